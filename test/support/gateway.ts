import { expect } from 'vitest';
import { creditGatewayPayment } from '../../src/commands/gateway-ledger.ts';
import { registerUser as registerWithRole } from '../../src/commands/registration.ts';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { nextUuid } from './ids.ts';
import { pageBrowser } from './pages.ts';
import { createKey, keyHolder, sessionCookie, sessionCookies } from './http.ts';
import { linkServiceWallet, linkWalletA } from './payments.ts';
import { sandboxOf } from './sandbox.ts';
import type { TestService } from './service.ts';

let adminSeed = 0;

/** A signed-in ADMIN (made as the CLI makes one), with an API key to link the platform's accounts. */
export async function signedInAdmin(service: TestService) {
  const email = `admin${++adminSeed}-${process.pid}@example.com`;
  const { userId } = await registerWithRole(service.deps, {
    name: `Admin ${adminSeed}`,
    email,
    password: 'rahasia123',
    role: 'ADMIN',
  });
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: 'rahasia123' },
    remoteAddress: `10.200.0.${adminSeed}`,
  });
  if (login.statusCode !== 200) throw new Error(`admin login: ${login.statusCode} ${login.body}`);
  const cookie = sessionCookie(login);
  const { key } = await createKey(service, cookie);
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    service.app.inject({ method, url, headers: { 'x-api-key': key }, payload: payload as never });
  const session = withSession(service, cookie);
  return { id: userId, name: `Admin ${adminSeed}`, email, password: 'rahasia123', cookie, key, call, session };
}

export type Admin = Awaited<ReturnType<typeof signedInAdmin>>;

/** An admin signed in through the login page too: a page browser in the admin console, and the admin's own calls. */
export async function signedInAdminBrowser(service: TestService) {
  const admin = await signedInAdmin(service);
  const browser = pageBrowser(service);
  await browser.get('/login');
  const login = await browser.post('/login', { email: admin.email, password: admin.password, next: '/admin' });
  if (login.headers.location !== '/admin') throw new Error(`admin page login: ${login.statusCode} ${login.body}`);
  await browser.get('/admin');
  return { admin, browser };
}

/** A call on the dashboard or admin console with a session cookie; a post without a body is still JSON, as those routes ask. */
export const withSession =
  (service: TestService, cookie: string) =>
  (method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: unknown) =>
    service.app.inject({
      method,
      url,
      cookies: sessionCookies(cookie),
      payload: payload as never,
      headers: method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' },
    });

export const businessData = {
  businessName: 'Toko Maju',
  businessType: 'retail',
  phone: '081234567890',
  address: 'Jl. Merdeka 1, Bandung',
};

/** A merchant with an API key whose gateway access the admin approved. */
export async function approvedMerchant(service: TestService, admin: Admin, options: { feeToCustomer?: boolean } = {}) {
  const merchant = await keyHolder(service);
  const session = withSession(service, merchant.cookie);
  const requested = await session('POST', '/api/dashboard/gateway/access-request', businessData);
  if (requested.statusCode !== 201) throw new Error(`access request: ${requested.statusCode} ${requested.body}`);
  const approved = await admin.session('POST', `/api/admin/gateway/access-requests/${merchant.id}/approve`);
  if (approved.statusCode !== 200) throw new Error(`approve: ${approved.statusCode} ${approved.body}`);
  if (options.feeToCustomer) {
    const set = await session('PATCH', '/api/dashboard/gateway/settings', { feeToCustomer: true });
    if (set.statusCode !== 200) throw new Error(`fee mode: ${set.statusCode} ${set.body}`);
  }
  return { ...merchant, session };
}

/** A platform account linked by the admin and marked as a holding account: a QRIS wallet, or WALLET-A for virtual accounts. */
export async function holdingAccount(
  service: TestService,
  admin: Admin,
  kind: 'qris' | 'va' = 'qris',
  providerCode = 'WALLET-D',
) {
  const linked = kind === 'va' ? await linkWalletA(service, admin) : await linkServiceWallet(admin, providerCode);
  const marked = await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: linked.accountId });
  if (marked.statusCode !== 201) throw new Error(`mark holding: ${marked.statusCode} ${marked.body}`);
  return linked;
}

/** The platform account the merchants' test money is paid into (one for all: the ledger's cash covers their payouts). */
export const testHoldingAccount = nextUuid();

/** Money in a merchant's ledger, settled: gateway payments credited (as the saga does), then a settlement run. */
export async function settledBalance(service: TestService, merchantId: string, ...nets: number[]) {
  const completedAt = service.clock.now();
  for (const net of nets) {
    await creditGatewayPayment(
      service.deps,
      {
        merchantId,
        paymentId: nextUuid(),
        holdingAccountId: testHoldingAccount,
        totalAmount: net + 3_000,
        fee: 3_000,
        completedAt,
      },
      {
        actor: 'test',
        now: completedAt,
      },
    );
  }
  await service.projections.waitFor(await service.store.headPosition(), 10_000);
  // day by day until a working day has begun after the payments' day (weekends and holidays settle nothing)
  for (let day = 0; (await findGatewayBalance(service.pool, merchantId)).pending > 0; day++) {
    expect(day).toBeLessThan(14);
    service.clock.advance(24 * 3_600_000);
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    await service.gatewaySettlement.tick();
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
  }
}

/** The admin's WALLET-A account holding exactly `balance` rupiah (synchronised), chosen as the platform's payout account. */
export async function payoutAccount(service: TestService, admin: Admin, balance: number) {
  const sandbox = sandboxOf(service);
  const wallet = await linkWalletA(service, admin);
  // exactly `balance`: what the sandbox seeded the wallet with is spent first
  const seeded = (await sandbox.account('WALLET-A', wallet.phoneNumber)).balance;
  if (seeded > 0)
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: wallet.phoneNumber,
      type: 'DEBIT',
      amount: seeded,
      senderName: 'Spent',
      description: 'spent',
    });
  await sandbox.addTransaction({
    providerCode: 'WALLET-A',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: balance,
    senderName: 'Top up',
    description: 'top up',
  });
  const refreshed = await admin.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
  if (refreshed.statusCode !== 200) throw new Error(`refresh: ${refreshed.statusCode} ${refreshed.body}`);
  const chosen = await admin.session('POST', '/api/admin/gateway/payout-account', { accountId: wallet.accountId });
  if (chosen.statusCode !== 200) throw new Error(`payout account: ${chosen.statusCode} ${chosen.body}`);
  await ledgerCash(service, wallet.accountId, balance);
  return wallet;
}

/** `amount` rupiah of cash in a platform account as the ledger has it: a gateway payment of a merchant nobody knows paid into it. */
export async function ledgerCash(service: TestService, accountId: string, amount: number) {
  const now = service.clock.now();
  await creditGatewayPayment(
    service.deps,
    {
      merchantId: nextUuid(),
      paymentId: nextUuid(),
      holdingAccountId: accountId,
      totalAmount: amount,
      fee: 0,
      completedAt: now,
    },
    { actor: 'test', now },
  );
  await service.projections.waitFor(await service.store.headPosition(), 10_000);
}
