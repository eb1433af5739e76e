import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import { holdingAccount, ledgerCash, payoutAccount } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { withdrawalDesk, type WithdrawalDesk } from '../support/withdrawals.ts';

// Payouts from where the cash is: the QRIS wallet holds the gateway's takings, the WALLET-A payout account pays; an
// admin moves money between them by hand and records it, and each payout names the account it left.
let service: TestService;
let desk: WithdrawalDesk;
let wallet: { accountId: string; phoneNumber: string };
let qris: { accountId: string; phoneNumber: string };
// the sandbox's bank names this account's holder JOKO WIJAYA
const destination = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };

beforeAll(async () => {
  service = await startTestService();
  desk = await withdrawalDesk(service, 5_000_000, '10.205.0.1');
  // the payout account holds 200,000; the QRIS wallet holds the takings, 2,992,600 (both in the ledger and at the provider)
  wallet = await payoutAccount(service, desk.owner.admin, 200_000);
  qris = await holdingAccount(service, desk.owner.admin, 'qris', 'WALLET-D');
  await ledgerCash(service, qris.accountId, 2_992_600);
});
afterAll(async () => service?.close());

const admin = () => desk.payer.admin;
const withdraw = async (amount: number) => (await desk.withdraw({ amount, ...destination })).id;
const cash = (accountId: string) => findHoldingCash(service.pool, accountId);
const status = async (id: string) => (await desk.withdrawal(id)).status;
const lastPaid = () => desk.lastPaid();
const transfer = (body: Record<string, unknown>) =>
  admin().session('POST', '/api/admin/gateway/holding-transfers', body);

describe('payouts from where the cash is', () => {
  it('/paid names the account the money left: without one it is 400 and nothing changes; with one that account pays', async () => {
    const id = await withdraw(300_000);
    const missing = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, { reference: 'BCA-1' });
    expect(missing.statusCode, missing.body).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await status(id)).toBe('REQUESTED');

    const before = { qris: await cash(qris.accountId), wallet: await cash(wallet.accountId) };
    const paid = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'BCA-1',
      holdingAccountId: qris.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await lastPaid()).toMatchObject({ withdrawalId: id, holdingAccountId: qris.accountId });
    expect(await cash(qris.accountId)).toBe(before.qris - 300_000);
    expect(await cash(wallet.accountId)).toBe(before.wallet);
  });

  it('a payout the payout account cannot cover is 409; a hand transfer from the QRIS wallet moves the cash and then it pays', async () => {
    const id = await withdraw(500_000);
    const short = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
    expect(short.statusCode, short.body).toBe(409);
    expect(short.json()).toMatchObject({ code: 'HOLDING_CASH_SHORT' });

    // the admin moves 1,000,000 in the providers' apps: a DEBIT on the QRIS wallet, a CREDIT on WALLET-A
    const sandbox = sandboxOf(service);
    await sandbox.addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 1_000_000,
      senderName: 'Pindah dana',
      description: 'transfer ke WALLET-A',
    });
    // the source's DEBIT synchronised before the admin records the transfer: taken as its side when recorded
    await desk.owner.admin.call('GET', `/api/v1/accounts/${qris.accountId}/refresh`);
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    const debitAt = service.clock.now();
    service.clock.advance(60_000); // recorded a minute after the money left
    const before = { qris: await cash(qris.accountId), wallet: await cash(wallet.accountId) };
    const recorded = await transfer({
      fromAccountId: qris.accountId,
      toAccountId: wallet.accountId,
      amount: 1_000_000,
      reference: 'HAND-0001',
      note: 'QRIS ke dompet pembayaran',
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const { id: transferId } = recorded.json().data as { id: string };
    expect(recorded.json().data).toMatchObject({ debitMutationId: expect.any(String), creditMutationId: null });
    // the ledger books it when its DEBIT left the source, beside when it was recorded
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    const times = await query<{ effective_at: Date; recorded_at: Date }>(
      service.pool,
      'TestHandTransferTimes',
      'select distinct effective_at, recorded_at from gateway_postings where reference_id = $1',
      [transferId],
    );
    expect(times.rows).toEqual([{ effective_at: debitAt, recorded_at: service.clock.now() }]);
    expect(await cash(qris.accountId)).toBe(before.qris - 1_000_000);
    expect(await cash(wallet.accountId)).toBe(before.wallet + 1_000_000);
    // recorded again: nothing more
    expect(
      (
        await transfer({
          fromAccountId: qris.accountId,
          toAccountId: wallet.accountId,
          amount: 1_000_000,
          reference: 'hand-0001 ',
        })
      ).statusCode,
    ).toBe(201);
    expect(await cash(wallet.accountId)).toBe(before.wallet + 1_000_000);

    // both sides' mutations arrive (WALLET-A's balance now pays): matched to the transfer, the CREDIT not taken as suspense
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: wallet.phoneNumber,
      type: 'CREDIT',
      amount: 1_000_000,
      senderName: 'Pindah dana',
      description: 'dari WALLET-D',
    });
    await desk.owner.admin.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
    const paid = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/pay`, {
      holdingAccountId: wallet.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await lastPaid()).toMatchObject({ withdrawalId: id, holdingAccountId: wallet.accountId });
    expect(await cash(wallet.accountId)).toBe(before.wallet + 1_000_000 - 500_000);

    const shown = await eventually(async () => {
      await service.projections.waitFor(await service.store.headPosition(), 10_000);
      const listed = (await admin().session('GET', '/api/admin/gateway/holding-transfers')).json().data as {
        id: string;
        debitMutationId: string | null;
        creditMutationId: string | null;
      }[];
      const t = listed.find(x => x.id === transferId)!;
      return t.debitMutationId && t.creditMutationId ? t : null;
    });
    expect(shown).toMatchObject({ amount: 1_000_000, fromAccountId: qris.accountId, toAccountId: wallet.accountId });
    const suspense = (await admin().session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data as {
      amount: number;
    }[];
    expect(suspense.filter(s => s.amount === 1_000_000)).toEqual([]);
    expect(await cash(wallet.accountId)).toBe(before.wallet + 500_000);

    // the reconciliation folds the hand transfer into both accounts: every entry balanced, each account consistent
    const day = new Date(service.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
    const report = (await admin().session('GET', `/api/admin/gateway/reconciliation?from=${day}&to=${day}`)).json()
      .data as {
      trialBalance: { balanced: boolean };
      holdingAccounts: { balanced: boolean; accounts: { accountId: string; closing: number }[] };
    };
    expect(report.trialBalance.balanced).toBe(true);
    expect(report.holdingAccounts.balanced).toBe(true);
    expect(report.holdingAccounts.accounts.find(a => a.accountId === wallet.accountId)?.closing).toBe(
      await cash(wallet.accountId),
    );
    expect(report.holdingAccounts.accounts.find(a => a.accountId === qris.accountId)?.closing).toBe(
      await cash(qris.accountId),
    );
  });

  it('a hand transfer whose destination CREDIT went to suspense before it was recorded takes it out: the cash counted once', async () => {
    type Tie = { accountId: string; ledgerCash: number; providerBalance: number; unexplained: number; items: [] };
    const reconciliation = async () => {
      const day = new Date(service.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
      const answer = await admin().session('GET', `/api/admin/gateway/reconciliation?from=${day}&to=${day}`);
      return answer.json().data as {
        trialBalance: { balanced: boolean };
        holdingAccounts: { balanced: boolean; accounts: Tie[] };
        suspense: { open: number };
      };
    };
    const tieOf = (r: { holdingAccounts: { accounts: Tie[] } }, accountId: string) =>
      r.holdingAccounts.accounts.find(a => a.accountId === accountId)!;
    const earlier = await reconciliation();
    const amount = 250_000;
    const sandbox = sandboxOf(service);
    // from the payout account into the QRIS wallet; both sides synchronised before the admin records the transfer, the
    // CREDIT, claimed by no payment, in suspense
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: wallet.phoneNumber,
      type: 'DEBIT',
      amount,
      senderName: 'Pindah dana',
      description: 'transfer ke WALLET-D',
    });
    await sandbox.addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'CREDIT',
      amount,
      senderName: 'Pindah dana',
      description: 'dari WALLET-A',
    });
    await desk.owner.admin.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
    await desk.owner.admin.call('GET', `/api/v1/accounts/${qris.accountId}/refresh`);
    const openOf = async () =>
      (
        (await admin().session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data as { amount: number }[]
      ).filter(s => s.amount === amount);
    expect(
      await eventually(async () => {
        await service.projections.waitFor(await service.store.headPosition(), 10_000);
        const open = await openOf();
        return open.length > 0 ? open : null;
      }),
    ).toHaveLength(1);
    const before = { qris: await cash(qris.accountId), wallet: await cash(wallet.accountId) };

    service.clock.advance(60_000);
    const recorded = await transfer({
      fromAccountId: wallet.accountId,
      toAccountId: qris.accountId,
      amount,
      reference: 'HAND-AFTER-CREDIT',
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    expect(recorded.json().data).toMatchObject({
      debitMutationId: expect.any(String),
      creditMutationId: expect.any(String),
    });
    expect(await cash(wallet.accountId)).toBe(before.wallet - amount);
    expect(await cash(qris.accountId)).toBe(before.qris);
    expect(await openOf()).toEqual([]);
    const resolved = (await admin().session('GET', '/api/admin/gateway/suspense?status=TRANSFERRED')).json().data;
    expect(resolved).toMatchObject([{ amount, status: 'TRANSFERRED', holdingAccountId: qris.accountId }]);
    const page = (await desk.payer.browser.get('/admin/suspense?status=TRANSFERRED')).body;
    expect(page).toContain('Sisi masuk pemindahan dana antar rekening platform');

    // the ledger's cash of each moved as the provider's balance did, nothing left unexplained, nothing in suspense
    const report = await reconciliation();
    expect(report.trialBalance.balanced).toBe(true);
    expect(report.holdingAccounts.balanced).toBe(true);
    expect(report.suspense.open).toBe(0);
    const walletTie = tieOf(report, wallet.accountId);
    expect(walletTie).toMatchObject({ ledgerCash: await cash(wallet.accountId), unexplained: 0, tied: true });
    expect(walletTie.ledgerCash).toBe(walletTie.providerBalance);
    const [qrisTie, qrisEarlier] = [tieOf(report, qris.accountId), tieOf(earlier, qris.accountId)];
    // the QRIS wallet's seeded takings are in the ledger only (untied before): nothing more left unexplained
    expect(qrisTie).toMatchObject({ ledgerCash: await cash(qris.accountId), unexplained: qrisEarlier.unexplained });
    expect(qrisTie.items).toEqual(qrisEarlier.items);
    expect(qrisTie.ledgerCash - qrisEarlier.ledgerCash).toBe(amount);
    expect(qrisTie.providerBalance - qrisEarlier.providerBalance).toBe(amount);
  });

  it("more than the source's ledger cash is refused, and a transfer only joins the platform's accounts", async () => {
    const before = { qris: await cash(qris.accountId), wallet: await cash(wallet.accountId) };
    const tooMuch = await transfer({
      fromAccountId: qris.accountId,
      toAccountId: wallet.accountId,
      amount: before.qris + 1,
      reference: 'HAND-TOO-MUCH',
    });
    expect(tooMuch.statusCode, tooMuch.body).toBe(409);
    expect(tooMuch.json()).toMatchObject({ code: 'HOLDING_CASH_SHORT' });
    const toItself = await transfer({
      fromAccountId: qris.accountId,
      toAccountId: qris.accountId,
      amount: 1,
      reference: 'HAND-SELF',
    });
    expect(toItself.statusCode).toBe(400);
    const elsewhere = await transfer({
      fromAccountId: qris.accountId,
      toAccountId: desk.merchant.id,
      amount: 1,
      reference: 'HAND-ELSEWHERE',
    });
    expect(elsewhere.json()).toMatchObject({ code: 'HOLDING_TRANSFER_INVALID' });
    expect(await cash(qris.accountId)).toBe(before.qris);
    expect(await cash(wallet.accountId)).toBe(before.wallet);
    // a payout goes through WALLET-A only
    const id = await withdraw(50_000);
    const notWalletA = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/pay`, {
      holdingAccountId: qris.accountId,
    });
    expect(notWalletA.statusCode, notWalletA.body).toBe(400);
    expect(await status(id)).toBe('REQUESTED');
  });

  it("the console chooses each payout's source from the accounts with their ledger cash, and records a hand transfer", async () => {
    const id = await withdraw(60_000);
    const page = (await desk.payer.browser.get('/admin/withdrawals')).body;
    const qrisCash = await cash(qris.accountId);
    expect(page).toContain(
      `<option value="${qris.accountId}">WALLET-D · WALLET-D · kas Rp ${qrisCash.toLocaleString('id-ID')}</option>`,
    );
    expect(page).toMatch(
      new RegExp(`<option value="${wallet.accountId}" selected>[^<]* · rekening pembayaran · kas Rp`),
    );
    const noSource = await desk.payer.browser.post(`/admin/withdrawals/${id}/paid`, { reference: 'BCA-PAGE' });
    expect(noSource.statusCode).toBe(400);
    expect(textOf(noSource.body, 'notice')).toBe('Pilih rekening sumber pembayaran');
    const paid = await desk.payer.browser.post(`/admin/withdrawals/${id}/paid`, {
      reference: 'BCA-PAGE',
      holdingAccountId: qris.accountId,
    });
    expect(paid.headers.location).toBe('/admin/withdrawals?done=paid');
    expect(await lastPaid()).toMatchObject({ withdrawalId: id, holdingAccountId: qris.accountId });
    expect(await cash(qris.accountId)).toBe(qrisCash - 60_000);

    const moved = await desk.payer.browser.post('/admin/withdrawals/holding-transfers', {
      fromAccountId: qris.accountId,
      toAccountId: wallet.accountId,
      amount: '100000',
      reference: 'HAND-PAGE',
      note: '',
    });
    expect(moved.headers.location).toBe('/admin/withdrawals?done=holding-transfer');
    expect(await cash(qris.accountId)).toBe(qrisCash - 160_000);
    const listed = (await desk.payer.browser.get('/admin/withdrawals')).body;
    expect(listed).toContain('Ref. HAND-PAGE');
    expect(listed).toContain('belum terlihat');
    const refused = await desk.payer.browser.post('/admin/withdrawals/holding-transfers', {
      fromAccountId: qris.accountId,
      toAccountId: wallet.accountId,
      amount: String(qrisCash),
      reference: 'HAND-PAGE-2',
    });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body, 'notice')).toBe('Kas rekening platform di buku besar kurang dari jumlah pembayaran');
  });

  it('a payout whose DEBIT is seen before the cut-off and recorded with /paid after it is explained on its day', async () => {
    type Item = { kind: string; amount: number; reference: string };
    type Tie = { accountId: string; unexplained: number; items: Item[] };
    const id = await withdraw(123_000);
    // 23:59 WIB: the money leaves the QRIS wallet and is synchronised; the admin records it after midnight
    const now = service.clock.now();
    const day = new Date(now.getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
    service.clock.set(new Date(`${day}T23:59:00+07:00`));
    const qrisTie = async () => {
      const answer = await admin().session('GET', `/api/admin/gateway/reconciliation?from=${day}&to=${day}`);
      expect(answer.statusCode, answer.body).toBe(200);
      const accounts = (answer.json().data as { holdingAccounts: { accounts: Tie[] } }).holdingAccounts.accounts;
      return accounts.find(a => a.accountId === qris.accountId)!;
    };
    const before = await qrisTie();
    await sandboxOf(service).addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 123_000,
      senderName: 'Joko Wijaya',
      description: 'penarikan merchant',
    });
    await desk.owner.admin.call('GET', `/api/v1/accounts/${qris.accountId}/refresh`);
    service.clock.advance(3 * 60_000);
    const paid = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'BCA-AFTER-MIDNIGHT',
      holdingAccountId: qris.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    const after = await qrisTie();
    expect(after.items.filter(i => i.reference === id)).toEqual([
      expect.objectContaining({ kind: 'PAYOUT_NOT_RECORDED', amount: -123_000 }),
    ]);
    expect(after.unexplained).toBe(before.unexplained);
  });
});
