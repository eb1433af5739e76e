import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCash } from '../support/gateway.ts';
import { textOf, type PageBrowser } from '../support/pages.ts';
import { linkWalletA } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { withdrawalDesk, type WithdrawalDesk } from '../support/withdrawals.ts';

let service: TestService;
let owner: WithdrawalDesk['owner'];
let payer: WithdrawalDesk['payer'];
let wallet: { accountId: string; phoneNumber: string };
let withdraw: (amount: number) => Promise<string>;
let merchantId: string;
/** Requested before any payout account was chosen: its destination never checked. */
let unchecked: string;
// the sandbox's bank names this account's holder JOKO WIJAYA: the same holder, spelt as a merchant may
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Bpk. Joko Wijaya' };

beforeAll(async () => {
  service = await startTestService();
  const desk = await withdrawalDesk(service, 600_000, '10.203.0.1');
  ({ owner, payer } = desk);
  merchantId = desk.merchant.id;
  withdraw = async amount => (await desk.withdraw({ amount, ...bank })).id;
  const linked = await linkWalletA(service, owner.admin);
  wallet = { accountId: linked.accountId, phoneNumber: linked.phoneNumber };
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-A',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: 1_000_000,
    senderName: 'Top up',
    description: 'top up',
  });
  expect((await owner.admin.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`)).statusCode).toBe(200);
  unchecked = await withdraw(100_000);
});
afterAll(async () => service?.close());

const rowOf = (html: string, id: string) =>
  new RegExp(`<tr data-withdrawal-id="${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';
const balanceOf = async () =>
  (await owner.admin.call('GET', `/api/v1/accounts/${wallet.accountId}`)).json().data.balance as number;
const pay = (b: PageBrowser, id: string) => b.post(`/admin/withdrawals/${id}/pay`);

// the platform has one payout account: this describe, first in the file, starts with none chosen
describe('the admin withdrawals page, choosing the payout account', () => {
  it("chooses the payout account among the admin's own WALLET-A accounts, with the form token", async () => {
    const page = await owner.browser.get('/admin/withdrawals');
    expect(textOf(page.body, 'payout-account-current')).toMatch(/^Belum dipilih/);
    expect(page.body).toContain(`<option value="${wallet.accountId}"`);
    const noToken = await owner.browser.postBare('/admin/withdrawals/payout-account', { accountId: wallet.accountId });
    expect(noToken.statusCode).toBe(403);
    expect(textOf((await owner.browser.get('/admin/withdrawals')).body, 'payout-account-current')).toMatch(
      /^Belum dipilih/,
    );
    // another admin's account is not one of the payer's own: refused on the page
    const foreign = await payer.browser.post('/admin/withdrawals/payout-account', { accountId: wallet.accountId });
    expect(foreign.statusCode).toBe(404);
    const chosen = await owner.browser.post('/admin/withdrawals/payout-account', { accountId: wallet.accountId });
    expect(chosen.headers.location).toBe('/admin/withdrawals?done=payout-account');
    await ledgerCash(service, wallet.accountId, 1_000_000); // what it pays out, the ledger must hold
    expect(textOf((await payer.browser.get('/admin/withdrawals')).body, 'payout-account-current')).toMatch(
      /^A · saldo Rp [\d.]+$/,
    );
  });
});

describe('the admin withdrawals page, paying out', () => {
  beforeAll(async () => {
    // chosen as the page above chooses it (again, if it ran), and with the cash it pays out in the ledger
    const chosen = await owner.admin.session('POST', '/api/admin/gateway/payout-account', {
      accountId: wallet.accountId,
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    await ledgerCash(service, wallet.accountId, 1_000_000);
  });

  it('shows the holder name the provider returned, or that the destination was not checked', async () => {
    const checked = await withdraw(100_000);
    const page = (await payer.browser.get('/admin/withdrawals')).body;
    expect(rowOf(page, unchecked)).toContain('tidak diperiksa');
    expect(rowOf(page, checked)).toMatch(/Nama di bank: <span class="badge ok">\w+ \w+<\/span>/);
  });

  it('pays through WALLET-A once: a second click moves nothing more', async () => {
    const id = await withdraw(120_000);
    const before = await balanceOf();
    await payer.browser.get('/admin/withdrawals');
    const paid = await pay(payer.browser, id);
    expect(paid.headers.location).toBe('/admin/withdrawals?done=paid-out');
    await pay(payer.browser, id);
    expect(await balanceOf()).toBe(before - 120_000);
    const row = rowOf((await payer.browser.get('/admin/withdrawals')).body, id);
    expect(row).toContain('Dibayar');
    expect(row).toContain(`Ref. ${id}`);
    expect(row).not.toContain('Bayar lewat WALLET-A');
  });

  it('marks paid with when the money left (WIB); a time after now is refused on the page', async () => {
    const id = await withdraw(50_000);
    const now = service.clock.now();
    const wib = (at: Date) => new Date(at.getTime() + 7 * 3_600_000).toISOString().slice(0, 19);
    const form = { reference: `BCA-AT-${id.slice(-6)}`, holdingAccountId: wallet.accountId };
    const page = (await payer.browser.get('/admin/withdrawals')).body;
    expect(rowOf(page, id)).toMatch(/<input id="paid-at-\w+" name="transferredAt" type="datetime-local" step="1">/);
    const later = await payer.browser.post(`/admin/withdrawals/${id}/paid`, {
      ...form,
      transferredAt: wib(new Date(now.getTime() + 60_000)),
    });
    expect(later.statusCode).toBe(400);
    expect(textOf(later.body, 'notice')).toBe('Waktu transfer tidak boleh setelah sekarang');
    expect(rowOf(later.body, id)).toContain('Tandai dibayar');
    const left = new Date(Math.floor(now.getTime() / 1000) * 1000 - 3_600_000);
    const paid = await payer.browser.post(`/admin/withdrawals/${id}/paid`, { ...form, transferredAt: wib(left) });
    expect(paid.headers.location).toBe('/admin/withdrawals?done=paid');
    const events = await service.store.readStream(`gateway-${merchantId}`);
    expect(events.filter(e => e.type === 'WithdrawalPaid').at(-1)!.data).toMatchObject({
      withdrawalId: id,
      transferredAt: left.toISOString(),
    });
  });

  it('a refused payout shows its reason on the page and leaves the withdrawal requested', async () => {
    const id = await withdraw(70_000);
    const before = await balanceOf();
    await payer.browser.get('/admin/withdrawals');
    await sandboxOf(service).faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    const failed = await pay(payer.browser, id);
    await sandboxOf(service).clearFaults();
    expect(failed.statusCode).toBe(502);
    expect(textOf(failed.body, 'notice')).toMatch(
      /^Transfer lewat WALLET-A gagal: .+; tidak ada dana yang berpindah, penarikan tetap diajukan$/,
    );
    const row = rowOf(failed.body, id);
    expect(row).toContain('Diproses');
    expect(row).toMatch(/Pembayaran gagal: \S/);
    expect(await balanceOf()).toBe(before);
  });
});
