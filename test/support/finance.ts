import { expect } from 'vitest';
import { merchantBalanceAsOf } from '../../src/audit/balance-as-of.ts';
import { comparePositions } from '../../src/store/event-store.ts';
import { query } from '../../src/db/pool.ts';
import type { MerchantBalance } from '../../src/domain/gateway-ledger.ts';
import type { Admin } from './gateway.ts';
import { linkServiceWallet, linkWalletA } from './payments.ts';
import { sandboxOf } from './sandbox.ts';
import type { TestService } from './service.ts';

/** Every saga and projection caught up with the log, and the log quiet (a saga's event starts the next saga). */
export async function caughtUp(service: TestService) {
  for (let round = 0; round < 10; round++) {
    const head = await service.store.headPosition();
    await service.sagas.waitFor(head, 20_000);
    await service.projections.waitFor(await service.store.headPosition(), 20_000);
    if (comparePositions(head, await service.store.headPosition()) === 0) return;
  }
  throw new Error('the log did not come to rest');
}

/** Moves the test clock (TEST_CLOCK=true) to `at`; with `settle`, until every saga and read model followed. */
export async function clockTo(service: TestService, at: string, { settle = false } = {}) {
  const moved = await service.app.inject({ method: 'POST', url: '/api/test-clock', payload: { setTo: at } });
  expect(moved.statusCode, moved.body).toBe(200);
  if (settle) await caughtUp(service);
}

export type PlatformAccount = {
  key: 'qris' | 'va';
  accountId: string;
  phoneNumber: string;
  providerCode: 'WALLET-D' | 'WALLET-A';
};

/** Syncs a platform account now (the admin's refresh) and waits until sagas and read models followed. */
export async function synced(service: TestService, admin: Admin, account: PlatformAccount) {
  const refreshed = await admin.call('GET', `/api/v1/accounts/${account.accountId}/refresh`);
  if (refreshed.statusCode !== 200)
    throw new Error(`refresh ${account.key}: ${refreshed.statusCode} ${refreshed.body}`);
  await caughtUp(service);
}

/** The provider's own balance of a platform account. */
export const providerBalance = async (service: TestService, account: PlatformAccount) =>
  (await sandboxOf(service).account(account.providerCode, account.phoneNumber)).balance;

/** Spends what the sandbox seeded an account with: its provider balance 0, so the ledger and the provider compare exactly. */
async function emptied(service: TestService, admin: Admin, account: PlatformAccount) {
  const seeded = await providerBalance(service, account);
  if (seeded > 0)
    await sandboxOf(service).addTransaction({
      providerCode: account.providerCode,
      accountRef: account.phoneNumber,
      type: 'DEBIT',
      amount: seeded,
      senderName: 'Spent',
      description: 'spent',
    });
  await synced(service, admin, account);
  return account;
}

/**
 * The platform's two holding accounts, both emptied at the provider before they are marked: a QRIS wallet (WALLET-D) and
 * a WALLET-A account for virtual accounts, which is also the payout account. Marked a second later than emptied, so no
 * credit of the accounts' own history counts as the gateway's.
 */
export async function emptyHoldingAccounts(service: TestService, admin: Admin) {
  const qris = await emptied(service, admin, {
    key: 'qris',
    ...(await linkServiceWallet(admin, 'WALLET-D')),
    providerCode: 'WALLET-D',
  });
  const va = await emptied(service, admin, {
    key: 'va',
    ...(await linkWalletA(service, admin)),
    providerCode: 'WALLET-A',
  });
  service.clock.advance(1_000);
  await markHoldingAccounts(admin, [qris, va], va);
  return { qris, va };
}

/** The accounts marked as the platform's holding accounts (each one's provider balance booked as its opening), `payout` the payout account. */
export async function markHoldingAccounts(admin: Admin, accounts: PlatformAccount[], payout: PlatformAccount) {
  for (const account of accounts) {
    const marked = await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: account.accountId });
    if (marked.statusCode !== 201) throw new Error(`mark holding: ${marked.statusCode} ${marked.body}`);
  }
  const chosen = await admin.session('POST', '/api/admin/gateway/payout-account', { accountId: payout.accountId });
  if (chosen.statusCode !== 200) throw new Error(`payout account: ${chosen.statusCode} ${chosen.body}`);
}

/** No longer the gateway's: a later run's payments go to its own holding accounts. */
export async function unmarked(admin: Admin, accounts: PlatformAccount[]) {
  for (const account of accounts) {
    const done = await admin.session('DELETE', `/api/admin/gateway/holding-accounts/${account.accountId}`);
    if (done.statusCode !== 200) throw new Error(`unmark: ${done.statusCode} ${done.body}`);
  }
}

/** WALLET-A signed in again (its provider session lives 24 hours of the test clock). */
export async function walletASignedInAgain(service: TestService, admin: Admin, account: PlatformAccount) {
  const sent = await admin.call('POST', '/api/v1/accounts', {
    action: 'wallet-a-send-otp',
    phoneNumber: account.phoneNumber,
    pin: '123456',
    accountId: account.accountId,
  });
  if (sent.statusCode !== 200) throw new Error(`wallet A relogin: ${sent.statusCode} ${sent.body}`);
  const otp = await sandboxOf(service).otp(account.phoneNumber);
  const verified = await admin.call('POST', '/api/v1/accounts', {
    action: 'wallet-a-verify-otp',
    sessionId: sent.json().sessionId,
    otp,
    accountId: account.accountId,
  });
  if (verified.statusCode !== 200) throw new Error(`wallet A relogin: ${verified.statusCode} ${verified.body}`);
}

/** Ledger entries whose postings do not sum to zero (one entry: one event of one stream). */
export async function unbalancedEntries(service: TestService) {
  const r = await query<{ merchant_id: string; stream_revision: number; sum: number }>(
    service.pool,
    'TestUnbalanced',
    'select merchant_id, stream_revision, sum(amount)::bigint as sum from gateway_postings group by 1, 2 having sum(amount) <> 0',
  );
  return r.rows;
}

/**
 * The platform's own accounts on the wrong side of zero: a holding account is an asset (debit balance, at least 0),
 * suspense and fees are what the platform owes and earned (credit balances, at most 0); each also from gateway_cash.
 */
export async function platformAccountsWrongSide(service: TestService) {
  const r = await query<{ account: string; balance: number }>(
    service.pool,
    'TestPlatformAccounts',
    `select account, sum(amount)::bigint as balance from gateway_postings
     where account like 'holding:%' or account in ('platform:suspense', 'platform:fees') group by account
     union all select 'cash:' || account_id, balance from gateway_cash`,
  );
  return r.rows.filter(row =>
    row.account.startsWith('holding:') || row.account.startsWith('cash:') ? row.balance < 0 : row.balance > 0,
  );
}

/** The sum of the postings of one platform account (suspense and fees: negative, a credit balance). */
export async function platformBalance(
  service: TestService,
  account: 'platform:suspense' | 'platform:fees' | 'platform:unique-codes',
) {
  const r = await query<{ balance: number | null }>(
    service.pool,
    'TestPlatformBalance',
    'select sum(amount)::bigint as balance from gateway_postings where account = $1',
    [account],
  );
  return Number(r.rows[0]?.balance ?? 0);
}

type Caller = { call: (method: 'GET', url: string) => Promise<{ statusCode: number; json: () => { data: unknown } }> };

/** A merchant's balances three ways: the statement's last entry, GET /api/v1/gateway, and a fold of the ledger now. */
export async function balancesThreeWays(service: TestService, merchant: Caller & { id: string }) {
  const statement = (await merchant.call('GET', '/api/v1/gateway/transactions?limit=1')).json().data as {
    balance: MerchantBalance;
  }[];
  const shown = ((await merchant.call('GET', '/api/v1/gateway')).json().data as { balance: MerchantBalance }).balance;
  const folded = (
    await merchantBalanceAsOf(
      { store: service.store, pool: service.pool, publicKeys: [] },
      merchant.id,
      service.clock.now(),
    )
  ).balance;
  const none = { settled: 0, pending: 0, onHold: 0, available: 0 };
  return { statement: statement[0]?.balance ?? none, shown, folded };
}

/** The three agree: the statement's last balances are the read model's and the ledger's fold. */
export async function expectBalancesAgree(
  service: TestService,
  merchant: Caller & { id: string },
): Promise<MerchantBalance> {
  const { statement, shown, folded } = await balancesThreeWays(service, merchant);
  expect(statement, 'statement = /api/v1/gateway').toEqual(shown);
  expect(folded, 'fold of the ledger = /api/v1/gateway').toEqual(shown);
  return shown;
}

/** A gateway payment's bill as the sandbox needs it to pay: the QR payload or the virtual account's number. */
export async function billOf(service: TestService, paymentId: string) {
  const r = await query<{
    qris_payload: string | null;
    account_number: string | null;
    receiving_account_id: string;
    amount: number;
    total_amount: number;
    expires_at: Date;
  }>(
    service.pool,
    'TestGatewayBill',
    'select qris_payload, account_number, receiving_account_id, amount, total_amount, expires_at from payments where id = $1',
    [paymentId],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`no payment ${paymentId}`);
  return {
    qris: row.qris_payload,
    vaNumber: row.account_number,
    accountId: row.receiving_account_id,
    amount: Number(row.amount),
    totalAmount: Number(row.total_amount),
    expiresAt: row.expires_at.getTime(),
  };
}

/** The WIB date of an instant (UTC+7 all year). */
export const wibDay = (at: Date | number) =>
  new Date(new Date(at).getTime() + 7 * 3_600_000).toISOString().slice(0, 10);

/** The next 00:00 WIB after `at`. */
export const nextWibMidnight = (at: Date) => new Date(Date.parse(`${wibDay(at)}T00:00:00+07:00`) + 86_400_000);
