import { afterAll, beforeAll, expect } from 'vitest';
import type { AnsweredReconciliation } from '../../src/audit/gateway-closed-periods.ts';
import type { HoldingAccountPeriod } from '../../src/audit/gateway-period-balances.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import { billOf, caughtUp, clockTo, markHoldingAccounts, synced, type PlatformAccount } from './finance.ts';
import { approvedMerchant, signedInAdmin, type Admin } from './gateway.ts';
import { linkServiceWallet, linkWalletA, paymentBody } from './payments.ts';
import { sandboxOf } from './sandbox.ts';
import { startTestService, type TestService } from './service.ts';

/**
 * The world of the month-end tests (the tie to the bank, a month closed): a service on the test clock, an admin, an
 * approved gateway merchant, and the platform's QRIS wallet (WALLET-D) and WALLET-A account linked with the money the
 * sandbox seeds them with, not marked yet (marking books that money as their openings).
 */
export type MonthEnd = {
  service: TestService;
  admin: Admin;
  merchant: Awaited<ReturnType<typeof approvedMerchant>>;
  qris: PlatformAccount;
  va: PlatformAccount;
};

/** The world, its clock at `at` (when given) before anyone signs in. */
export async function monthEnd(at?: string): Promise<MonthEnd> {
  const service = await startTestService({
    TEST_CLOCK: 'true',
    TEST_CLOCK_FORCE: 'true',
    REGISTER_LIMIT_PER_IP: '1000',
  });
  if (at) await clockTo(service, at, { settle: true });
  const admin = await signedInAdmin(service);
  const merchant = await approvedMerchant(service, admin);
  const qris: PlatformAccount = {
    key: 'qris',
    providerCode: 'WALLET-D',
    ...(await linkServiceWallet(admin, 'WALLET-D')),
  };
  const va: PlatformAccount = { key: 'va', providerCode: 'WALLET-A', ...(await linkWalletA(service, admin)) };
  return { service, admin, merchant, qris, va };
}

/** The world of a test file: started before its tests (its clock at `at`, when given), closed after them. */
export function monthEndWorld(at?: string): MonthEnd {
  const w = {} as MonthEnd;
  beforeAll(async () => {
    Object.assign(w, await monthEnd(at));
  }, 120_000);
  afterAll(async () => w.service?.close());
  return w;
}

/** Both wallets marked as the platform's holding accounts (their openings booked), WALLET-A the payout account. */
export const markedWallets = (w: MonthEnd) => markHoldingAccounts(w.admin, [w.qris, w.va], w.va);

/** Where a withdrawal is paid to. */
export const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };

/** The reconciliation of the WIB days from..to, as an admin asks for it. */
export async function reportOf(w: MonthEnd, from: string, to = from): Promise<AnsweredReconciliation> {
  const response = await w.admin.session('GET', `/api/admin/gateway/reconciliation?from=${from}&to=${to}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

export const rowOf = (data: GatewayReconciliation, account: PlatformAccount): HoldingAccountPeriod =>
  data.holdingAccounts.accounts.find(h => h.accountId === account.accountId)!;

/**
 * A day's report: balanced, and each wallet consistent and tied to its provider, its fold's closing the ledger's cash
 * and the provider's balance less that cash what its items explain.
 */
export async function expectDayTied(w: MonthEnd, day: string): Promise<AnsweredReconciliation> {
  const data = await reportOf(w, day);
  expect(data.trialBalance.balanced, day).toBe(true);
  expect(data.holdingAccounts.tied, day).toBe(true);
  for (const account of [w.qris, w.va]) {
    const row = rowOf(data, account);
    expect(row, `${day} ${account.key}`).toMatchObject({ tied: true, unexplained: 0, consistent: true });
    expect(row.closing, `${day} ${account.key}: the fold's closing is the ledger's cash`).toBe(row.ledgerCash);
    expect(row.providerBalance! - row.ledgerCash, `${day} ${account.key}`).toBe(row.explained);
  }
  return data;
}

/** A gateway payment the merchant created now (a QRIS bill into the QRIS wallet, a virtual account into WALLET-A). */
export async function createdPayment(w: MonthEnd, type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const response = await w.merchant.call('POST', '/api/v1/payments', paymentBody('GATEWAY', { type, amount }));
  expect(response.statusCode, response.body).toBe(200);
  await caughtUp(w.service);
  return response.json().data.id as string;
}

/** The buyer pays the payment's bill at the sandbox (nothing synchronised yet). */
export async function paidBill(w: MonthEnd, paymentId: string) {
  const bill = await billOf(w.service, paymentId);
  await (bill.qris
    ? sandboxOf(w.service).pay({ qris: bill.qris })
    : sandboxOf(w.service).pay({ vaNumber: bill.vaNumber!, amount: bill.totalAmount }));
}

/** A payment created and paid now, its wallet synchronised. */
export async function paidPayment(w: MonthEnd, type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const id = await createdPayment(w, type, amount);
  await paidBill(w, id);
  await synced(w.service, w.admin, type === 'QRIS-DYNAMIC' ? w.qris : w.va);
  return id;
}

/** A withdrawal the merchant asked for from the dashboard, to `bank`. */
export async function requestedWithdrawal(w: MonthEnd, amount: number) {
  const asked = await w.merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank });
  expect(asked.statusCode, asked.body).toBe(201);
  return asked.json().data.id as string;
}
