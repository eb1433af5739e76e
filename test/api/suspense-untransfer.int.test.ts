import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import { caughtUp, wibDay } from '../support/finance.ts';
import { holdingAccount, signedInAdminBrowser } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

// A credit a hand transfer took out of suspense as its destination side, given back by an admin: it was a customer's
// payment, and the transfer's own CREDIT comes later. Both wallets are marked with their provider balances booked as
// openings, so the ledger ties to the providers from the start.
let service: TestService;
type AdminBrowser = Awaited<ReturnType<typeof signedInAdminBrowser>>;
let owner: AdminBrowser;
let qris: { accountId: string; phoneNumber: string };
let va: { accountId: string; phoneNumber: string };

type Item = { id: string; amount: number; status: string; untransferred: Record<string, unknown> | null };
type TieItem = { kind: string; amount: number; reference: string };
type Tie = { accountId: string; ledgerCash: number; providerBalance: number; unexplained: number; items: TieItem[] };
type Report = {
  balanced: boolean;
  trialBalance: { balanced: boolean; accounts: { account: string; closing: number }[] };
  holdingAccounts: { balanced: boolean; accounts: Tie[] };
  suspense: { open: number; ageing: { total: { items: number; amount: number } } };
};

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInAdminBrowser(service);
  qris = await holdingAccount(service, owner.admin, 'qris', 'WALLET-D');
  va = await holdingAccount(service, owner.admin, 'va');
});
afterAll(async () => service?.close());

const admin = () => owner.admin;
const cash = (accountId: string) => findHoldingCash(service.pool, accountId);
const items = async (status: string): Promise<Item[]> =>
  (await admin().session('GET', `/api/admin/gateway/suspense?status=${status}`)).json().data;
const untransfer = (id: string, body: unknown) =>
  admin().session('POST', `/api/admin/gateway/suspense/${id}/untransfer`, body);
const reportOf = async (day: string): Promise<Report> => {
  const answer = await admin().session('GET', `/api/admin/gateway/reconciliation?from=${day}&to=${day}`);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data;
};
/** What the platform owes in suspense at the report's end (the ledger's sign: owed is negative). */
const suspenseOwed = (r: Report) =>
  -(r.trialBalance.accounts.find(a => a.account === 'platform:suspense')?.closing ?? 0);
const tieOf = (r: Report, accountId: string) => r.holdingAccounts.accounts.find(a => a.accountId === accountId)!;
const transferOf = async (id: string) =>
  (
    (await admin().session('GET', '/api/admin/gateway/holding-transfers')).json().data as {
      id: string;
      creditMutationId: string | null;
    }[]
  ).find(t => t.id === id)!;

/** A mutation on one of the wallets at the provider, synchronised, every saga and read model caught up. */
async function moved(account: 'qris' | 'va', type: 'CREDIT' | 'DEBIT', amount: number, senderName: string) {
  const { phoneNumber, accountId } = account === 'qris' ? qris : va;
  await sandboxOf(service).addTransaction({
    providerCode: account === 'qris' ? 'WALLET-D' : 'WALLET-A',
    accountRef: phoneNumber,
    type,
    amount,
    senderName,
    description: senderName,
  });
  const refreshed = await admin().call('GET', `/api/v1/accounts/${accountId}/refresh`);
  expect(refreshed.statusCode, refreshed.body).toBe(200);
  await caughtUp(service);
}

/** The credit of `amount` on the VA wallet, OPEN in suspense; a hand transfer from the QRIS wallet then takes it. */
async function takenByTransfer(amount: number, reference: string) {
  await moved('qris', 'DEBIT', amount, 'Pindah dana');
  await moved('va', 'CREDIT', amount, 'BUDI SANTOSO');
  const open = await eventually(async () => (await items('OPEN')).find(i => i.amount === amount));
  service.clock.advance(30_000);
  const recorded = await admin().session('POST', '/api/admin/gateway/holding-transfers', {
    fromAccountId: qris.accountId,
    toAccountId: va.accountId,
    amount,
    reference,
  });
  expect(recorded.statusCode, recorded.body).toBe(201);
  expect((await items('TRANSFERRED')).find(i => i.id === open.id)).toBeDefined();
  return { suspenseId: open.id, transferId: recorded.json().data.id as string };
}

describe('a suspense credit given back from the hand transfer that took it', () => {
  it('goes back OPEN with the reason, the transfer awaits its CREDIT, and every day still ties', async () => {
    const amount = 250_000;
    // the transfer is recorded at 23:57 WIB, and given back after midnight: the day before keeps it as it was
    const now = service.clock.now();
    const day = wibDay(Date.parse(`${wibDay(now)}T23:50:00+07:00`) > now.getTime() ? now : now.getTime() + 86_400_000);
    service.clock.set(new Date(`${day}T23:57:00+07:00`));
    const { suspenseId, transferId } = await takenByTransfer(amount, 'HAND-TAKEN');
    const taken = await reportOf(day);
    expect(taken.suspense.open).toBe(0);
    const before = { qris: await cash(qris.accountId), va: await cash(va.accountId) };

    service.clock.set(new Date(Date.parse(`${day}T23:59:59+07:00`) + 120_000));
    const given = await untransfer(suspenseId, { reason: 'Pembayaran pelanggan, bukan pemindahan ini' });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json().data).toMatchObject({
      id: suspenseId,
      status: 'OPEN',
      resolvedAt: null,
      untransferred: { transferId, reason: 'Pembayaran pelanggan, bukan pemindahan ini', by: admin().id },
    });
    // the destination's cash counts the transfer again beside the credit, which suspense owes once more
    expect(await cash(va.accountId)).toBe(before.va + amount);
    expect(await cash(qris.accountId)).toBe(before.qris);
    expect(await transferOf(transferId)).toMatchObject({ creditMutationId: null });
    expect((await items('OPEN')).map(i => i.id)).toContain(suspenseId);

    // the day it was taken is as it was: the credit was resolved then, the ledger tied
    const dayBefore = await reportOf(day);
    expect(dayBefore.suspense.ageing.total).toEqual(taken.suspense.ageing.total);
    expect(tieOf(dayBefore, va.accountId)).toEqual(tieOf(taken, va.accountId));
    // the next day: the money in suspense again, the transfer's CREDIT not seen yet explains the destination
    const next = wibDay(service.clock.now());
    const after = await reportOf(next);
    expect(after.balanced).toBe(true);
    expect(after.trialBalance.balanced).toBe(true);
    expect(after.holdingAccounts.balanced).toBe(true);
    expect(after.suspense.ageing.total).toEqual({ items: 1, amount });
    expect(suspenseOwed(after) - suspenseOwed(dayBefore)).toBe(amount);
    const vaTie = tieOf(after, va.accountId);
    expect(vaTie).toMatchObject({ ledgerCash: await cash(va.accountId), unexplained: 0 });
    expect(vaTie.items).toEqual([
      expect.objectContaining({ kind: 'HAND_TRANSFER_SIDE_NOT_SEEN', amount: -amount, reference: transferId }),
    ]);
    expect(tieOf(after, qris.accountId)).toMatchObject({ unexplained: 0 });

    // the transfer's own CREDIT arrives: matched to it, not suspense; nothing left to explain
    service.clock.advance(60_000);
    await moved('va', 'CREDIT', amount, 'Pindah dana');
    expect((await transferOf(transferId)).creditMutationId).not.toBeNull();
    expect((await items('OPEN')).filter(i => i.amount === amount)).toHaveLength(1);
    const seen = await reportOf(next);
    expect(tieOf(seen, va.accountId)).toMatchObject({ unexplained: 0, items: [] });
    expect(seen.trialBalance.balanced).toBe(true);

    // given back once; OPEN again, it is refunded as any open credit
    const again = await untransfer(suspenseId, { reason: 'lagi' });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ code: 'SUSPENSE_ALREADY_UNTRANSFERRED' });
    const refunded = await admin().session('POST', `/api/admin/gateway/suspense/${suspenseId}/refund`, {
      reference: 'REFUND-BUDI',
      note: 'kembali ke pelanggan',
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json().data).toMatchObject({ status: 'REFUNDED' });
  });

  it('refuses a credit no transfer took, and a missing reason, changing nothing', async () => {
    await moved('qris', 'CREDIT', 77_777, 'SALAH KIRIM');
    const stray = await eventually(async () => (await items('OPEN')).find(i => i.amount === 77_777));
    const notTaken = await untransfer(stray.id, { reason: 'bukan pemindahan' });
    expect(notTaken.statusCode, notTaken.body).toBe(409);
    expect(notTaken.json()).toMatchObject({ code: 'SUSPENSE_NOT_TRANSFERRED' });

    const { suspenseId } = await takenByTransfer(120_000, 'HAND-NO-REASON');
    const before = await cash(va.accountId);
    for (const body of [{ reason: '   ' }, {}]) {
      const refused = await untransfer(suspenseId, body);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await items('TRANSFERRED')).map(i => i.id)).toContain(suspenseId);
    expect(await cash(va.accountId)).toBe(before);
    expect((await items('OPEN')).find(i => i.id === stray.id)).toMatchObject({ untransferred: null });
  });

  it('the console gives a taken credit back with a reason; refusals are said on the page', async () => {
    const { suspenseId, transferId } = await takenByTransfer(180_000, 'HAND-PAGE');
    const listed = (await owner.browser.get('/admin/suspense?status=TRANSFERRED')).body;
    expect(listed).toContain(`action="/admin/suspense/${suspenseId}/untransfer"`);
    expect(listed).toContain(`id="untransfer-reason-${suspenseId}" name="reason" required`);

    const blank = await owner.browser.post(`/admin/suspense/${suspenseId}/untransfer`, { reason: ' ' });
    expect(blank.statusCode).toBe(400);
    expect(textOf(blank.body, 'notice')).toBe('Alasan wajib diisi');
    expect((await items('TRANSFERRED')).map(i => i.id)).toContain(suspenseId);

    const given = await owner.browser.post(`/admin/suspense/${suspenseId}/untransfer`, {
      reason: 'Dana pelanggan VA',
    });
    expect(given.headers.location).toBe('/admin/suspense?done=untransferred');
    const open = (await owner.browser.get('/admin/suspense?done=untransferred')).body;
    expect(textOf(open, 'notice')).toBe('Dana kembali terbuka; pemindahan dananya menunggu dana masuknya lagi.');
    expect(open).toContain(`Dikembalikan dari pemindahan dana <code>${transferId}</code>`);
    expect(open).toContain('Dana pelanggan VA');
    expect(open).toContain(`action="/admin/suspense/${suspenseId}/refund"`);

    const again = await owner.browser.post(`/admin/suspense/${suspenseId}/untransfer`, { reason: 'lagi' });
    expect(again.statusCode).toBe(409);
    expect(textOf(again.body, 'notice')).toBe(
      'Dana ini sudah dikembalikan dari pemindahan dananya dan berstatus terbuka',
    );
  });
});
