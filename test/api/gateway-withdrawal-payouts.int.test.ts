import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGatewayBalance, findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import {
  ledgerCash,
  payoutAccount,
  settledBalance,
  signedInAdmin,
  testHoldingAccount,
  withSession,
  type Admin,
} from '../support/gateway.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

// the sandbox's bank names this account's holder JOKO WIJAYA: the same holder, spelt as a merchant may
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Bpk. Joko Wijaya' };

let logins = 0;
/** Signed in again: settling moves the test clock by days, past the sessions (and the wallet's provider session). */
async function signedInAgain<U extends { email: string; password: string }>(user: U) {
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: user.email, password: user.password },
    remoteAddress: `10.202.0.${++logins}`,
  });
  expect(login.statusCode, login.body).toBe(200);
  const cookie = sessionCookie(login);
  return { ...user, cookie, session: withSession(service, cookie) };
}
/** A merchant with `settled` rupiah withdrawable. */
async function merchantWith(settled: number) {
  const merchant = await registerUser(service);
  await settledBalance(service, merchant.id, settled);
  return { ...merchant, session: withSession(service, merchant.cookie) };
}
type Merchant = Awaited<ReturnType<typeof merchantWith>>;
const withdraw = (m: Merchant, amount: number, destination: Partial<typeof bank> = {}) =>
  m.session('POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank, ...destination });
const asAdmin = async (admin: Admin, id: string) =>
  ((await admin.session('GET', '/api/admin/gateway/withdrawals')).json().data as { id: string }[]).find(
    w => w.id === id,
  ) as Record<string, unknown> | undefined;
const balanceOf = async (admin: Admin, accountId: string) =>
  (await admin.call('GET', `/api/v1/accounts/${accountId}`)).json().data.balance as number;
const debitsOf = async (admin: Admin, accountId: string) =>
  (
    (await admin.call('GET', `/api/v1/mutations?accountId=${accountId}&type=DEBIT&limit=100`)).json().data as {
      amount: number;
      description: string;
    }[]
  ).filter(m => m.description.startsWith('Transfer ke'));

describe('withdrawals paid through the platform WALLET-A payout account', () => {
  let owner: Admin;
  let payer: Admin;
  let wallet: { accountId: string; phoneNumber: string };
  const merchants: Merchant[] = [];
  beforeAll(async () => {
    const admins = [await signedInAdmin(service), await signedInAdmin(service)];
    const settled = [];
    for (const amount of [200_000, 200_000, 200_000, 300_000, 300_000, 300_000])
      settled.push(await merchantWith(amount));
    await settledBalance(service, admins[1]!.id, 200_000);
    const [o, p] = await Promise.all(admins.map(signedInAgain));
    owner = o!;
    payer = p!;
    for (const m of settled) merchants.push(await signedInAgain(m));
  });

  // first in the file: the payout account is one for the whole platform, and the describe below chooses one
  describe('without a payout account', () => {
    it('without a payout account: the destination is not checked (said so), and paying through WALLET-A is 409', async () => {
      const merchant = merchants[5]!;
      const requested = await withdraw(merchant, 100_000);
      expect(requested.statusCode, requested.body).toBe(201);
      expect(requested.json().data).toMatchObject({ status: 'REQUESTED', holderName: null, destinationChecked: false });
      expect(await asAdmin(payer, requested.json().data.id)).toMatchObject({
        holderName: null,
        destinationChecked: false,
        payoutFailure: null,
      });
      const paid = await payer.session('POST', `/api/admin/gateway/withdrawals/${requested.json().data.id}/pay`);
      expect(paid.statusCode, paid.body).toBe(409);
      expect(paid.json()).toMatchObject({ code: 'PAYOUT_ACCOUNT_NOT_SET' });
      expect((await payer.session('GET', '/api/admin/gateway/payout-account')).json().data).toBeNull();
    });
  });

  describe('with a payout account', () => {
    beforeAll(async () => {
      wallet = await payoutAccount(service, owner, 1_000_000);
    });

    it('an admin chooses one of their own WALLET-A accounts; another admin cannot choose it', async () => {
      const shown = (await payer.session('GET', '/api/admin/gateway/payout-account')).json().data;
      expect(shown).toMatchObject({
        accountId: wallet.accountId,
        ownerId: owner.id,
        balance: await balanceOf(owner, wallet.accountId),
        isActive: true,
      });
      const foreign = await payer.session('POST', '/api/admin/gateway/payout-account', { accountId: wallet.accountId });
      expect(foreign.statusCode).toBe(404);
    });

    it('a checked destination: the holder name is recorded and shown to the admin', async () => {
      const merchant = merchants[0]!;
      const requested = await withdraw(merchant, 100_000);
      expect(requested.statusCode, requested.body).toBe(201);
      const { id, holderName } = requested.json().data as { id: string; holderName: string };
      expect(requested.json().data).toMatchObject({
        destinationChecked: true,
        holderName: expect.stringMatching(/\w+ \w+/),
      });
      expect(await asAdmin(payer, id)).toMatchObject({
        holderName,
        destinationChecked: true,
        accountHolderName: bank.accountHolderName,
      });
    });

    it('an invalid destination is 400 and no withdrawal, the balance untouched', async () => {
      const merchant = merchants[1]!;
      const listed = async () => (await merchant.session('GET', '/api/dashboard/gateway/withdrawals')).json().data;
      const [withdrawals, balance] = [await listed(), await findGatewayBalance(service.pool, merchant.id)];
      const refused = await withdraw(merchant, 100_000, { accountNumber: '9991234567' });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'WITHDRAWAL_DESTINATION_INVALID' });
      const unknownBank = await withdraw(merchant, 100_000, { bankCode: 'NOBANK' });
      expect(unknownBank.json()).toMatchObject({ code: 'WITHDRAWAL_DESTINATION_INVALID' });
      expect(await listed()).toEqual(withdrawals);
      expect(await findGatewayBalance(service.pool, merchant.id)).toEqual(balance);
    });

    it('pays once from the payout account, even asked twice at once and again after: PAID with the transfer id as reference', async () => {
      const merchant = merchants[2]!;
      const id = (await withdraw(merchant, 120_000)).json().data.id as string;
      const before = await balanceOf(owner, wallet.accountId);
      const both = await Promise.all(
        [1, 2].map(() => payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`)),
      );
      for (const answer of both) expect(answer.statusCode, answer.body).toBe(200);
      expect(both[0]!.json().data).toMatchObject({ id, status: 'PAID', reference: id, processedBy: payer.id });
      const again = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      expect(again.json().data).toMatchObject({ status: 'PAID', reference: id });
      expect(await balanceOf(owner, wallet.accountId)).toBe(before - 120_000);
      expect((await debitsOf(owner, wallet.accountId)).filter(d => d.amount === 120_000)).toHaveLength(1);
      expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
        settled: 80_000,
        pending: 0,
        onHold: 0,
        available: 80_000,
      });
    });

    it('an admin cannot pay out their own withdrawal, and nothing moves', async () => {
      const id = (await payer.session('POST', '/api/dashboard/gateway/withdrawals', { amount: 60_000, ...bank })).json()
        .data.id as string;
      const before = await balanceOf(owner, wallet.accountId);
      const own = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      expect(own.statusCode, own.body).toBe(403);
      expect(await balanceOf(owner, wallet.accountId)).toBe(before);
    });

    it('a refused transfer leaves it REQUESTED with the reason; paying again makes a new transfer and pays once', async () => {
      const merchant = merchants[3]!;
      const id = (await withdraw(merchant, 70_000)).json().data.id as string;
      const before = await balanceOf(owner, wallet.accountId);
      await sandbox.faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
      const failed = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      await sandbox.clearFaults();
      expect(failed.statusCode, failed.body).toBe(502);
      expect(failed.json()).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_FAILED' });
      expect(await asAdmin(payer, id)).toMatchObject({
        status: 'REQUESTED',
        payoutFailure: { outcome: 'FAILED', transferId: id, reason: expect.any(String) },
      });
      expect(await balanceOf(owner, wallet.accountId)).toBe(before);
      expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 70_000 });
      const paid = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      expect(paid.statusCode, paid.body).toBe(200);
      expect(paid.json().data.reference).not.toBe(id);
      expect(await balanceOf(owner, wallet.accountId)).toBe(before - 70_000);
    });

    it("a payout is credited to the payout account's cash in the ledger, and one its cash does not cover is 409 before money moves", async () => {
      const cash = await findHoldingCash(service.pool, wallet.accountId);
      const merchant = merchants[1]!;
      const id = (await withdraw(merchant, 60_000)).json().data.id as string;
      expect((await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`)).statusCode).toBe(200);
      expect(await findHoldingCash(service.pool, wallet.accountId)).toBe(cash - 60_000);

      // another payout account, whose cash in the ledger (50,000) is less than its provider balance after a top-up
      const small = await payoutAccount(service, owner, 50_000);
      await sandbox.addTransaction({
        providerCode: 'WALLET-A',
        accountRef: small.phoneNumber,
        type: 'CREDIT',
        amount: 500_000,
        senderName: 'Top up',
        description: 'top up',
      });
      expect((await owner.call('GET', `/api/v1/accounts/${small.accountId}/refresh`)).statusCode).toBe(200);
      const big = (await withdraw(merchants[0]!, 90_000)).json().data.id as string;
      const debitsBefore = (await debitsOf(owner, small.accountId)).length; // the sandbox's history of a new wallet has some
      const refused = await payer.session('POST', `/api/admin/gateway/withdrawals/${big}/pay`);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'HOLDING_CASH_SHORT' });
      expect(await asAdmin(payer, big)).toMatchObject({ status: 'REQUESTED' });
      expect(await debitsOf(owner, small.accountId)).toHaveLength(debitsBefore);
      // recorded as paid elsewhere: from an account without that cash, refused alike; from the merchants' holding account, paid
      const elsewhere = await payer.session('POST', `/api/admin/gateway/withdrawals/${big}/paid`, {
        reference: 'BCA-SHORT-1',
        holdingAccountId: small.accountId,
      });
      expect(elsewhere.json()).toMatchObject({ code: 'HOLDING_CASH_SHORT' });
      const holding = await findHoldingCash(service.pool, testHoldingAccount);
      const paid = await payer.session('POST', `/api/admin/gateway/withdrawals/${big}/paid`, {
        reference: 'BCA-SHORT-1',
        holdingAccountId: testHoldingAccount,
      });
      expect(paid.statusCode, paid.body).toBe(200);
      expect(await findHoldingCash(service.pool, testHoldingAccount)).toBe(holding - 90_000);
      expect(await findHoldingCash(service.pool, small.accountId)).toBe(50_000);
      expect(
        (await owner.session('POST', '/api/admin/gateway/payout-account', { accountId: wallet.accountId })).statusCode,
      ).toBe(200);
    });

    it('an unconfirmed transfer leaves it REQUESTED and says so', async () => {
      const merchant = merchants[4]!;
      const id = (await withdraw(merchant, 80_000)).json().data.id as string;
      await sandbox.faults({ providerCode: 'WALLET-A', transferTimeout: 1 });
      const unconfirmed = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      await sandbox.clearFaults();
      expect(unconfirmed.statusCode, unconfirmed.body).toBe(502);
      expect(unconfirmed.json()).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_UNCONFIRMED' });
      expect(await asAdmin(payer, id)).toMatchObject({
        status: 'REQUESTED',
        payoutFailure: { outcome: 'UNCONFIRMED', transferId: id },
      });
      // the money may have moved: it cannot be rejected (and then paid again by the merchant's next request)
      const rejected = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/reject`, {
        note: 'salah rekening',
      });
      expect(rejected.statusCode, rejected.body).toBe(409);
      expect(rejected.json()).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_IN_FLIGHT' });
      expect(await asAdmin(payer, id)).toMatchObject({ status: 'REQUESTED' });
      expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 80_000 });
    });

    it('two payouts at once from an account whose cash covers one: one is paid, the other 409, the account never below zero', async () => {
      const account = crypto.randomUUID();
      await ledgerCash(service, account, 100_000);
      const [one, two] = [await merchantWith(60_000), await merchantWith(60_000)];
      const ids = [
        (await withdraw(one, 60_000)).json().data.id as string,
        (await withdraw(two, 60_000)).json().data.id as string,
      ];
      const answers = await Promise.all(
        ids.map((id, i) =>
          payer.session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
            reference: `BCA-RACE-CASH-${i}`,
            holdingAccountId: account,
          }),
        ),
      );
      expect(answers.map(a => a.statusCode).sort()).toEqual([200, 409]);
      expect(answers.find(a => a.statusCode === 409)!.json()).toMatchObject({ code: 'HOLDING_CASH_SHORT' });
      expect(await findHoldingCash(service.pool, account)).toBe(40_000);
    });

    it('a withdrawal whose transfer was refused can be rejected; a rejected one is never paid through WALLET-A', async () => {
      const merchant = merchants[5]!;
      const id = (await withdraw(merchant, 50_000)).json().data.id as string;
      await sandbox.faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
      expect((await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`)).statusCode).toBe(502);
      await sandbox.clearFaults();
      const rejected = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/reject`, {
        note: 'salah rekening',
      });
      expect(rejected.statusCode, rejected.body).toBe(200);
      const before = await balanceOf(owner, wallet.accountId);
      const pay = await payer.session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
      expect(pay.json()).toMatchObject({ code: 'WITHDRAWAL_NOT_REQUESTED' });
      expect(await balanceOf(owner, wallet.accountId)).toBe(before);
    });
  });
});
