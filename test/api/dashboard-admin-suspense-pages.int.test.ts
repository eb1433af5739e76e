import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fee } from '../../src/domain/gateway-fees.ts';
import { query } from '../../src/db/pool.ts';
import { formatRupiah } from '../../src/web/html.ts';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { approvedMerchant, holdingAccount, signedInAdminBrowser } from '../support/gateway.ts';
import { nextUuid } from '../support/ids.ts';
import { signedInBrowser, textOf } from '../support/pages.ts';
import { paymentBody } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
type AdminBrowser = Awaited<ReturnType<typeof signedInAdminBrowser>>;
let owner: AdminBrowser;
let qris: { accountId: string; phoneNumber: string };
let va: { accountId: string; phoneNumber: string };
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
let merchant: Merchant;

type Item = {
  id: string;
  amount: number;
  status: string;
  holdingAccountId: string;
  suggestion: { paymentId: string } | null;
};
const settle = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);
const items = async (status: string): Promise<Item[]> =>
  (await owner.admin.session('GET', `/api/admin/gateway/suspense?status=${status}`)).json().data;
const statusOf = async (id: string) =>
  (
    await query<{ status: string }>(
      service.pool,
      'SuspenseStatus',
      'select status from gateway_suspense where id = $1',
      [id],
    )
  ).rows[0]?.status;
const pending = async () => (await findGatewayBalance(service.pool, merchant.id))?.pending ?? 0;
const rowOf = (html: string, id: string) =>
  new RegExp(`<tr data-suspense-id="${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';
/** An open credit's forms: a card of their own below the table. */
const formsOf = (html: string, id: string) =>
  new RegExp(`<section class="card" id="act-${id}"([\\s\\S]*?)</section>`).exec(html)?.[1] ?? '';

/** A credit into a holding account that pays nothing (or pays a VA in part): synchronised, then OPEN in suspense. */
async function suspended(account: { accountId: string }, amount: number): Promise<Item> {
  return eventually(async () => {
    await owner.admin.call('GET', `/api/v1/accounts/${account.accountId}/refresh`);
    await settle();
    return (await items('OPEN')).find(i => i.holdingAccountId === account.accountId && i.amount === amount);
  });
}
async function strayCredit(amount: number): Promise<Item> {
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: qris.phoneNumber,
    type: 'CREDIT',
    amount,
    senderName: 'SALAH KIRIM',
    reference: `STRAY-${amount}`,
  });
  return suspended(qris, amount);
}

beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  owner = await signedInAdminBrowser(service);
  qris = await holdingAccount(service, owner.admin, 'qris', 'WALLET-D');
  va = await holdingAccount(service, owner.admin, 'va');
  merchant = await approvedMerchant(service, owner.admin);
}, 120_000);
afterAll(async () => service?.close());

/** A VA payment of 150,000 paid in part (`amount`): the credit is OPEN in suspense, suggesting that payment. */
async function partlyPaidVa(amount: number): Promise<{ partial: Item; paymentId: string }> {
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'VA-BANK1', amount: 150_000 }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const paymentId: string = created.json().data.id;
  await settle();
  const vaNumber = (
    await query<{ account_number: string }>(
      service.pool,
      'FindVa',
      'select account_number from payments where id = $1',
      [paymentId],
    )
  ).rows[0]!.account_number;
  await sandboxOf(service).pay({ vaNumber, amount });
  return { partial: await suspended(va, amount), paymentId };
}

describe('the admin suspense page, a VA paid in part', () => {
  // each test's own credit, of an amount of its own: suspended() finds it by its account and amount
  let amount = 99_000;
  let partial: Item;
  let paymentId: string;
  beforeEach(async () => {
    amount += 1_000;
    ({ partial, paymentId } = await partlyPaidVa(amount));
  });

  it("lists an open credit with its suggestion: the VA's payment, its merchant, why, and the payment filled in", async () => {
    const page = await owner.browser.get('/admin/suspense');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<a class="button quiet" href="\/admin\/suspense" aria-current="page">Terbuka<\/a>/);
    const row = rowOf(page.body, partial.id);
    expect(row).toContain(formatRupiah(amount));
    expect(row).toMatch(/<time datetime="[^"]+">[^<]+ WIB<\/time>/);
    expect(row).toContain(`Pembayaran <code>${paymentId}</code>`);
    expect(row).toContain(`Merchant ${merchant.email}`);
    expect(row).toContain('nomor virtual account pembayaran ini tertulis di referensi transfer');
    expect(row).toContain(`href="#act-${partial.id}"`);
    const forms = formsOf(page.body, partial.id);
    expect(forms).toContain(`name="paymentId" maxlength="36" value="${paymentId}"`);
    expect(forms).toContain(`action="/admin/suspense/${partial.id}/allocate"`);
    expect(forms).toContain(`action="/admin/suspense/${partial.id}/refund"`);
    // the admin console's overview links the page too
    expect((await owner.browser.get('/admin')).body).toContain('href="/admin/suspense"');
  });

  it('refuses an allocation to an unknown payment on the page, changing nothing', async () => {
    const before = await pending();
    const refused = await owner.browser.post(`/admin/suspense/${partial.id}/allocate`, {
      paymentId: nextUuid(),
      userId: '',
      note: 'coba',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toBe('ID pembayaran tidak menunjuk pembayaran gateway mana pun');
    expect(formsOf(refused.body, partial.id)).toContain('Alokasikan');
    // both targets, or neither, an id that is no UUID, a user who is no approved merchant, no note: refused too
    for (const form of [
      { paymentId, userId: merchant.id, note: 'dua' },
      { paymentId: '', userId: '', note: 'nol' },
      { paymentId: 'bukan-uuid', userId: '', note: 'x' },
      { paymentId: '', userId: 'bukan-uuid', note: 'x' },
      { paymentId: '', userId: owner.admin.id, note: 'bukan merchant' },
      { paymentId, userId: '', note: ' ' },
    ]) {
      const response = await owner.browser.post(`/admin/suspense/${partial.id}/allocate`, form);
      expect(response.statusCode, JSON.stringify(form)).toBe(400);
      expect(textOf(response.body, 'notice'), JSON.stringify(form)).toMatch(
        /salah satu saja|tidak menunjuk|Catatan wajib diisi/,
      );
    }
    expect(await statusOf(partial.id)).toBe('OPEN');
    expect(await pending()).toBe(before);
  });

  it('refuses a form without its token, and a user who is not an admin', async () => {
    const noToken = await owner.browser.postBare(`/admin/suspense/${partial.id}/allocate`, {
      paymentId,
      note: 'tanpa token',
    });
    expect(noToken.statusCode).toBe(403);
    const { browser: user } = await signedInBrowser(service);
    expect((await user.get('/admin/suspense')).statusCode).toBe(403);
    expect(
      (await user.post(`/admin/suspense/${partial.id}/refund`, { reference: 'X', note: 'bukan admin' })).statusCode,
    ).toBe(403);
    expect(await statusOf(partial.id)).toBe('OPEN');
  });

  it("allocates to the suggested payment through the form: ALLOCATED, the merchant's pending up by the amount less the fee", async () => {
    const before = await pending();
    const charged = fee('VA-BANK1', amount, service.deps.config.gateway);
    const allocated = await owner.browser.post(`/admin/suspense/${partial.id}/allocate`, {
      paymentId,
      userId: '',
      note: 'bayar sebagian, milik Toko Maju',
    });
    expect(allocated.statusCode, allocated.body).toBe(303);
    expect(allocated.headers.location).toBe('/admin/suspense?done=allocated');
    expect(textOf((await owner.browser.get('/admin/suspense?done=allocated')).body, 'notice')).toMatch(
      /^Dana dialokasikan/,
    );
    expect(await statusOf(partial.id)).toBe('ALLOCATED');
    expect(await pending()).toBe(before + amount - charged);

    const page = await owner.browser.get('/admin/suspense?status=ALLOCATED');
    const row = rowOf(page.body, partial.id);
    expect(row).toContain(`Dialokasikan ke merchant ${merchant.email}`);
    expect(row).toContain(`Pembayaran <code>${paymentId}</code>`);
    expect(row).toContain(`Biaya ${formatRupiah(charged)} · bersih ${formatRupiah(amount - charged)}`);
    expect(row).toContain(`Oleh ${owner.admin.email}`);
    expect(row).toContain('Catatan: bayar sebagian, milik Toko Maju');
    expect(page.body).not.toContain(`/admin/suspense/${partial.id}/`);
    const open = (await owner.browser.get('/admin/suspense')).body;
    expect(rowOf(open, partial.id)).toBe('');
    expect(formsOf(open, partial.id)).toBe('');

    // a second allocation of the same credit: 409 on the page, nothing more credited
    const again = await owner.browser.post(`/admin/suspense/${partial.id}/allocate`, {
      userId: merchant.id,
      note: 'lagi',
    });
    expect(again.statusCode).toBe(409);
    expect(textOf(again.body, 'notice')).toBe('Dana ini sudah dialokasikan atau dikembalikan');
    expect(await pending()).toBe(before + amount - charged);
  });
});

describe('the admin suspense page, a stray credit', () => {
  it('allocates a stray credit to a merchant by user id', async () => {
    const item = await strayCredit(23_456);
    expect(rowOf((await owner.browser.get('/admin/suspense')).body, item.id)).toContain('Tidak ada saran');
    const before = await pending();
    const allocated = await owner.browser.post(`/admin/suspense/${item.id}/allocate`, {
      paymentId: '',
      userId: merchant.id,
      note: 'salah kirim',
    });
    expect(allocated.headers.location).toBe('/admin/suspense?done=allocated');
    expect(await pending()).toBe(before + 23_456 - fee('QRIS-DYNAMIC', 23_456, service.deps.config.gateway));
  });

  it('records a refund through the form: REFUNDED with its reference, who and why', async () => {
    const item = await strayCredit(7_777);
    const before = await pending();
    const missing = await owner.browser.post(`/admin/suspense/${item.id}/refund`, { reference: ' ', note: 'kosong' });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body, 'notice')).toContain('Referensi wajib diisi');
    expect(await statusOf(item.id)).toBe('OPEN');
    const refunded = await owner.browser.post(`/admin/suspense/${item.id}/refund`, {
      reference: 'BCA-REFUND-1',
      note: 'dikembalikan ke pengirim',
    });
    expect(refunded.headers.location).toBe('/admin/suspense?done=refunded');
    expect(await statusOf(item.id)).toBe('REFUNDED');
    expect(await pending()).toBe(before);
    const row = rowOf((await owner.browser.get('/admin/suspense?status=REFUNDED')).body, item.id);
    expect(row).toContain('Ref. BCA-REFUND-1');
    expect(row).toContain(`Oleh ${owner.admin.email}`);
    expect(row).toContain('Catatan: dikembalikan ke pengirim');
    const unknown = await owner.browser.post(`/admin/suspense/${nextUuid()}/refund`, {
      reference: 'X',
      note: 'tidak ada',
    });
    expect(unknown.statusCode).toBe(404);
    expect(textOf(unknown.body, 'notice')).toBe('Dana tak terklaim ini tidak ditemukan');
  });
});
