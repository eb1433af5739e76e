import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setHolidayCalendarYear } from '../../src/commands/holiday-calendar.ts';
import { query } from '../../src/db/pool.ts';
import { createAuditor, revokeAuditor } from '../../src/commands/auditor.ts';
import { projections } from '../../src/projections/all.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { approvedMerchant, holdingAccount, signedInAdmin, payoutAccount } from '../support/gateway.ts';
import { createKey, keyHolder, registerUser } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';

let service: TestService;
let receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
beforeAll(async () => {
  // webhooks go to receivers on this machine: one takes them, one answers 410 Gone (its endpoint is disabled)
  receivers = [await startReceiver(), await startReceiver(() => ({ status: 410 }))];
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await service?.close();
  for (const receiver of receivers) await receiver.close();
});

/** Every read model's rows, each table in a fixed order. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const p of projections)
    for (const table of p.tables)
      tables[table] = (await query(service.pool, 'SnapshotTable', `select * from ${table} t order by t::text`)).rows;
  return tables;
}

/** Schemas a verification or a rebuild left behind. */
async function leftoverSchemas() {
  const found = await query<{ name: string }>(
    service.pool,
    'ReplaySchemas',
    `select nspname as name from pg_namespace where nspname ~ '^(verify|rebuild)_'`,
  );
  return found.rows.map(r => r.name);
}

/** Sagas and projections have handled every event: nothing is still on its way into a read model. */
async function settle() {
  for (let head = await service.store.headPosition(); ;) {
    expect(await service.sagas.waitFor(head, 20_000)).toBe(true);
    expect(await service.projections.waitFor(head, 20_000)).toBe(true);
    const after = await service.store.headPosition();
    if (after.commit === head.commit && after.prepare === head.prepare) return;
    head = after; // a saga appended: wait for what followed
  }
}

const count = (rows: unknown[] | undefined, where: (row: Record<string, unknown>) => boolean) =>
  (rows as Record<string, unknown>[]).filter(where).length;

/** Users, keys and sessions: signed up, used, revoked, logged out. */
async function someUsers() {
  for (let i = 0; i < 3; i++) {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    await service.app.inject({ method: 'GET', url: '/api/v1/anything', headers: { 'x-api-key': key.key } });
    service.clock.advance(10 * 60_000);
    await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: user.cookie } });
    if (i === 1)
      await service.app.inject({
        method: 'DELETE',
        url: `/api/dashboard/api-keys/${key.id}`,
        cookies: { svc_token: user.cookie },
      });
    if (i === 2)
      await service.app.inject({ method: 'GET', url: '/api/auth/logout', cookies: { svc_token: user.cookie } });
  }
}

/** A merchant's accounts, their synced mutations, payments in every state, and webhook endpoints. */
async function aMerchant() {
  const merchant = await keyHolder(service);
  const sandbox = sandboxOf(service);
  const ok = async (response: Promise<{ statusCode: number; body: string }>) => {
    const answered = await response;
    expect(answered.statusCode, answered.body).toBe(200);
    return answered;
  };

  // webhook endpoints: one taking deliveries, one gone (disabled by its 410), one removed
  await ok(merchant.call('POST', '/api/v1/webhooks', { url: receivers[0]!.url }));
  await ok(merchant.call('POST', '/api/v1/webhooks', { url: receivers[1]!.url }));
  const removed = await ok(merchant.call('POST', '/api/v1/webhooks', { url: `${receivers[0]!.url}/removed` }));
  await ok(merchant.call('DELETE', `/api/v1/webhooks/${JSON.parse(removed.body).data.id}`));

  // accounts: a wallet the service pays into, WALLET-A logged in by OTP, a bank account renamed, one deleted
  const wallet = await linkServiceWallet(merchant);
  const walletA = await linkWalletA(service, merchant);
  const bank = await ok(
    merchant.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-MANDIRI',
      accountName: 'Toko',
      intervalMinutes: 60,
      accountNumber: '7700112233',
      username: 'toko',
      password: 'rahasia',
    }),
  );
  const bankId = JSON.parse(bank.body).accountId as string;
  await ok(merchant.call('PATCH', `/api/v1/accounts/${bankId}`, { accountName: 'Toko Baru', intervalMinutes: 30 }));
  const gone = await linkServiceWallet(merchant, 'WALLET-E');
  await ok(merchant.call('DELETE', `/api/v1/accounts/${gone.accountId}`));

  // mutations: the bank's own history, a debit, and the wallet's credit that pays a payment
  service.clock.advance(60_000);
  await sandbox.addTransaction({
    providerCode: 'BANK-MANDIRI',
    accountRef: '7700112233',
    type: 'DEBIT',
    amount: 2_500,
    senderName: 'Budi',
    description: 'ongkir',
  });
  await ok(merchant.call('GET', `/api/v1/accounts/${bankId}/refresh`));

  // payments: completed, expired, pending with its method chosen on the payment page, pending
  const paid = await createPayment(merchant, paymentBody(wallet.accountId, { type: 'QRIS-DYNAMIC' }));
  await sandbox.pay({ accountNumber: wallet.phoneNumber, providerCode: 'WALLET-D', amount: paid.totalAmount });
  await ok(merchant.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`));
  const lapsing = await createPayment(
    merchant,
    paymentBody(wallet.accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }),
  );
  const chosen = await createPayment(merchant, paymentBody(walletA.accountId, { amount: 33_000 }));
  await ok(service.app.inject({ method: 'POST', url: `/pay/${chosen.id}/method`, payload: { type: 'VA-BANK1' } }));
  await createPayment(merchant, paymentBody(wallet.accountId, { type: 'QRIS-DYNAMIC', amount: 12_000 }));
  // a transfer out of WALLET-A: a bank transfer validated and sent
  await sandbox.addTransaction({
    providerCode: 'WALLET-A',
    accountRef: walletA.phoneNumber,
    type: 'CREDIT',
    amount: 200_000,
    senderName: 'Top up',
  });
  await ok(merchant.call('GET', `/api/v1/accounts/${walletA.accountId}/refresh`));
  const bankEntry = JSON.parse(
    (
      await ok(
        merchant.call('POST', `/api/v1/accounts/${walletA.accountId}/transfer`, { action: 'wallet-a-bank-list' }),
      )
    ).body,
  ).data[0];
  const init = await ok(
    merchant.call('POST', `/api/v1/accounts/${walletA.accountId}/transfer`, {
      action: 'wallet-a-bank-init',
      accountNumber: '1234567890',
      amount: '50000',
      ...bankEntry,
    }),
  );
  const bankAccountIndexNo = JSON.parse(init.body).data.bankAccountIndexNo;
  await ok(
    merchant.call('POST', `/api/v1/accounts/${walletA.accountId}/transfer`, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo,
      amount: '50000',
    }),
  );
  service.clock.advance(6 * 60_000);
  await service.paymentExpiry.tick();
  await settle();
  expect((await statusOf(merchant, paid.id)).status).toBe('COMPLETED');
  expect((await statusOf(merchant, lapsing.id)).status).toBe('EXPIRED');
  // the gone endpoint is disabled by its receiver's answer to the payment.completed webhook
  await eventually(
    async () =>
      (await query(service.pool, 'DisabledEndpoints', 'select 1 from webhook_endpoints where disabled_at is not null'))
        .rowCount === 1,
  );
}

/** The gateway: access requested and approved, a holding account, payments settled and pending, a withdrawal. */
async function aGatewayMerchant() {
  const admin = await signedInAdmin(service);
  const { accountId: holding, phoneNumber } = await holdingAccount(service, admin);
  const merchant = await approvedMerchant(service, admin);
  const payByQr = async (amount: number) => {
    const created = await createPayment(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }));
    const qr = await service.app.inject({ method: 'GET', url: `/pay/${created.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: created.totalAmount });
    await service.paymentChecks.checkNow(holding);
    await eventually(async () => (await statusOf(merchant, created.id)).status === 'COMPLETED');
  };
  await payByQr(120_000);
  await settle();
  // past the next working day's 00:00 WIB: the first payment settles; the second stays pending
  service.clock.advance(24 * 3_600_000);
  await service.gatewaySettlement.tick();
  await settle();
  await payByQr(80_000);
  // money no payment claims: in suspense, open
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: phoneNumber,
    type: 'CREDIT',
    amount: 4_321,
    senderName: 'SALAH KIRIM',
  });
  await service.paymentChecks.checkNow(holding);
  await eventually(async () => {
    await settle();
    return (await query(service.pool, 'FindSuspense', 'select 1 from gateway_suspense where amount = 4321')).rowCount;
  });
  const withdrawal = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', {
    amount: 60_000,
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'Joko Wijaya',
  });
  expect(withdrawal.statusCode, withdrawal.body).toBe(201);
  // a payout through the platform's WALLET-A that the provider refused: the withdrawal stays requested, its failure kept
  const payout = await payoutAccount(service, admin, 100_000);
  // money moved by hand from the QRIS wallet to the payout account, recorded
  const moved = await admin.session('POST', '/api/admin/gateway/holding-transfers', {
    fromAccountId: holding,
    toAccountId: payout.accountId,
    amount: 50_000,
    reference: 'HAND-REBUILD',
  });
  expect(moved.statusCode, moved.body).toBe(201);
  await sandboxOf(service).faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
  const refused = await admin.session('POST', `/api/admin/gateway/withdrawals/${withdrawal.json().data.id}/pay`);
  await sandboxOf(service).clearFaults();
  expect(refused.statusCode, refused.body).toBe(502);
  // the month before this one closed (ended, none closed before it): its frozen report in the log
  const now = new Date(service.clock.now().getTime() + 7 * 3_600_000); // WIB
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const closed = await admin.session('POST', `/api/admin/gateway/periods/${lastMonth}/close`);
  expect(closed.statusCode, closed.body).toBe(201);
  await settle();
}

describe('read models', () => {
  it('are rebuilt exactly from history after being dropped, and verify finds nothing amiss', async () => {
    await someUsers();
    await aMerchant();
    await aGatewayMerchant();
    // an auditor's token made and one revoked
    const auditorDeps = { store: service.store, clock: service.clock, readModels: service.projections };
    await createAuditor(auditorDeps, 'witness', 'operator:test');
    await revokeAuditor(auditorDeps, (await createAuditor(auditorDeps, 'gone', 'operator:test')).id, 'operator:test');
    await setHolidayCalendarYear(service.deps, '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2', {
      year: 2027,
      source: 'test',
      days: [{ date: '2027-01-01', name: 'Tahun Baru', kind: 'libur-nasional' }],
    });
    await settle();
    const before = await snapshot();
    expect(before.users).toHaveLength(6); // with the gateway's admin and merchant
    expect(before.api_keys).toHaveLength(6);
    expect(count(before.user_sessions, s => s.ended_at !== null)).toBe(1);
    const ownAccounts = (before.payments as { status: string; gateway: boolean }[]).filter(p => !p.gateway);
    expect(ownAccounts.map(p => p.status).sort()).toEqual(['COMPLETED', 'EXPIRED', 'PENDING', 'PENDING']);
    expect(count(before.payments, p => p.gateway === true && p.status === 'COMPLETED')).toBe(2);
    // the pending gateway payment, and the cash put in the payout account's ledger (payoutAccount)
    expect(count(before.gateway_unsettled, () => true)).toBe(2);
    expect(count(before.gateway_withdrawals, w => w.status === 'REQUESTED')).toBe(1);
    expect(count(before.transfers, t => t.status === 'COMPLETED')).toBe(1);
    expect(count(before.payments, p => p.type === 'VA-BANK1')).toBe(1);
    expect(before.accounts).toHaveLength(5); // the payout wallet too; the deleted one is gone; the holding account is one
    expect(count(before.accounts, a => a.account_name === 'Toko Baru')).toBe(1);
    expect(count(before.mutations, m => m.type === 'DEBIT')).toBeGreaterThan(0);
    expect(count(before.mutations, m => m.type === 'CREDIT')).toBeGreaterThan(0);
    expect(before.mutation_accounts!.length).toBeGreaterThan(0);
    expect(before.webhook_endpoints).toHaveLength(3);
    expect(count(before.webhook_endpoints, e => e.disabled_status_code === 410)).toBe(1);
    expect(count(before.webhook_endpoints, e => e.removed_at !== null)).toBe(1);
    for (const [table, rows] of Object.entries(before)) expect(rows.length, `${table} has rows`).toBeGreaterThan(0);

    // while the live projections run: verified into a scratch schema, rebuilt into shadow tables swapped in
    for (const p of projections) expect(await verifyProjection(service, p), p.name).toEqual([]);
    for (const p of projections) await rebuildProjection(service, p);
    const swapped = await snapshot();
    for (const table of Object.keys(before)) expect(swapped[table], table).toEqual(before[table]);
    expect(await leftoverSchemas()).toEqual([]);

    // with nothing running, from dropped tables
    await service.projections.stop();
    for (const p of projections)
      await query(service.pool, 'DropForTest', p.tables.map(t => `drop table ${t};`).join(''));
    for (const p of projections) await rebuildProjection(service, p);
    const after = await snapshot();
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
    await service.projections.start();
    for (const p of projections) expect(await verifyProjection(service, p), p.name).toEqual([]);
  }, 90_000);
});
