import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayLedger, gatewayLedgerStream, merchantBalance } from '../../src/domain/gateway-ledger.ts';
import { creditGatewayPayment } from '../../src/commands/gateway-ledger.ts';
import { requestWithdrawal } from '../../src/commands/gateway-withdrawals.ts';
import { handleCommand, load } from '../../src/store/commands/handle.ts';
import { registerUser as registerWithRole } from '../../src/commands/registration.ts';
import { createPool } from '../../src/db/pool.ts';
import { DomainError } from '../../src/errors.ts';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { settledBalance as settledBalanceOf, testHoldingAccount } from '../support/gateway.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

type Method = 'GET' | 'POST';
const call = (cookie: string | null, method: Method, url: string, payload?: unknown) =>
  service.app.inject({ method, url, ...(cookie ? { cookies: { svc_token: cookie } } : {}), payload: payload as never });

let admins = 0;
/** A signed-in ADMIN, made as the CLI makes one. */
async function signedInAdmin() {
  const email = `ledger-admin${++admins}-${process.pid}@example.com`;
  const { userId } = await registerWithRole(service.deps, {
    name: `Admin ${admins}`,
    email,
    password: 'rahasia123',
    role: 'ADMIN',
  });
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: 'rahasia123' },
    remoteAddress: `10.201.0.${admins}`,
  });
  expect(login.statusCode, login.body).toBe(200);
  return { id: userId, cookie: sessionCookie(login) };
}

const settledBalance = (merchantId: string, ...nets: number[]) => settledBalanceOf(service, merchantId, ...nets);

// the sandbox's bank names this account's holder JOKO WIJAYA: the same holder, spelt as a merchant may
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Bpk. Joko Wijaya' };
const withdraw = (cookie: string | null, amount: number) =>
  call(cookie, 'POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank });

describe('withdrawals: who may call', () => {
  it('answers 401 without a session, and 403 to non-admins on the admin routes', async () => {
    const id = nextUuid();
    for (const [method, url] of [
      ['POST', '/api/dashboard/gateway/withdrawals'],
      ['GET', '/api/dashboard/gateway/withdrawals'],
      ['GET', '/api/admin/gateway/withdrawals'],
      ['POST', `/api/admin/gateway/withdrawals/${id}/paid`],
      ['POST', `/api/admin/gateway/withdrawals/${id}/reject`],
    ] as const) {
      const anonymous = await call(
        null,
        method,
        url,
        method === 'POST' ? { amount: 50_000, ...bank, reference: 'x', note: 'x' } : undefined,
      );
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json()).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
    }
    const merchant = await registerUser(service);
    for (const [method, url, payload] of [
      ['GET', '/api/admin/gateway/withdrawals', undefined],
      ['POST', `/api/admin/gateway/withdrawals/${id}/paid`, { reference: 'TRF-1' }],
      ['POST', `/api/admin/gateway/withdrawals/${id}/reject`, { note: 'no' }],
    ] as const) {
      const forbidden = await call(merchant.cookie, method, url, payload);
      expect(forbidden.statusCode, url).toBe(403);
      expect(forbidden.json()).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    }
  });
});

describe('withdrawals: request, pay, reject', () => {
  it('holds a requested withdrawal, lists it, and an admin pays it once', async () => {
    const merchant = await registerUser(service);
    const admin = await signedInAdmin();
    await settledBalance(merchant.id, 100_000, 97_000);
    expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
      settled: 197_000,
      pending: 0,
      onHold: 0,
      available: 197_000,
    });

    const requested = await withdraw(merchant.cookie, 150_000);
    expect(requested.statusCode, requested.body).toBe(201);
    const { id } = requested.json().data;
    expect(requested.json()).toEqual({
      status: 'success',
      data: { id, status: 'REQUESTED', holderName: null, destinationChecked: false, holderMatches: null },
    });
    expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
      settled: 197_000,
      pending: 0,
      onHold: 150_000,
      available: 47_000,
    });

    const mine = await call(merchant.cookie, 'GET', '/api/dashboard/gateway/withdrawals');
    expect(mine.json().data).toEqual([
      expect.objectContaining({ id, amount: 150_000, ...bank, status: 'REQUESTED', processedAt: null }),
    ]);
    const listed = await call(admin.cookie, 'GET', '/api/admin/gateway/withdrawals?status=REQUESTED');
    expect(listed.json().data).toContainEqual(
      expect.objectContaining({ id, merchantId: merchant.id, amount: 150_000 }),
    );

    const paid = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-0001',
      holdingAccountId: testHoldingAccount,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toMatchObject({ id, status: 'PAID', reference: 'TRF-0001', processedBy: admin.id });
    expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
      settled: 47_000,
      pending: 0,
      onHold: 0,
      available: 47_000,
    });

    const again = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-0002',
      holdingAccountId: testHoldingAccount,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_NOT_REQUESTED' });
    const rejectPaid = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/reject`, {
      note: 'too late',
    });
    expect(rejectPaid.statusCode).toBe(409);
    expect((await call(admin.cookie, 'GET', '/api/admin/gateway/withdrawals?status=PAID')).json().data).toContainEqual(
      expect.objectContaining({ id }),
    );
  });

  it('gives a rejected withdrawal back to the available balance', async () => {
    const merchant = await registerUser(service);
    const admin = await signedInAdmin();
    await settledBalance(merchant.id, 80_000);
    const { id } = (await withdraw(merchant.cookie, 80_000)).json().data;
    expect((await withdraw(merchant.cookie, 50_000)).json()).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const rejected = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/reject`, {
      note: 'rekening tidak cocok',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().data).toMatchObject({ id, status: 'REJECTED', note: 'rekening tidak cocok' });
    expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
      settled: 80_000,
      pending: 0,
      onHold: 0,
      available: 80_000,
    });
    expect((await withdraw(merchant.cookie, 80_000)).statusCode).toBe(201);
  });

  it('refuses below the minimum, above the available balance, pending money and a malformed request (400)', async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 60_000);
    await creditGatewayPayment(
      service.deps,
      {
        merchantId: merchant.id,
        paymentId: nextUuid(),
        holdingAccountId: nextUuid(),
        totalAmount: 500_000,
        fee: 0,
        completedAt: service.clock.now(),
      },
      {
        actor: 'test',
        now: service.clock.now(),
      },
    );
    const below = await withdraw(merchant.cookie, 49_999);
    expect(below.statusCode).toBe(400);
    expect(below.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_BELOW_MINIMUM' });
    // the 500,000 is pending until the next working day: only the 60,000 settled is available
    const above = await withdraw(merchant.cookie, 60_001);
    expect(above.statusCode).toBe(400);
    expect(above.json()).toMatchObject({ status: 'error', code: 'INSUFFICIENT_BALANCE' });
    const malformed = await call(merchant.cookie, 'POST', '/api/dashboard/gateway/withdrawals', {
      amount: '60000',
      ...bank,
      accountNumber: '12-34',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    expect((await call(merchant.cookie, 'GET', '/api/dashboard/gateway/withdrawals')).json().data).toEqual([]);
  });

  it('answers 404 for an unknown withdrawal, and for another merchant’s', async () => {
    const merchant = await registerUser(service);
    const other = await registerUser(service);
    const admin = await signedInAdmin();
    await settledBalance(merchant.id, 50_000);
    const { id } = (await withdraw(merchant.cookie, 50_000)).json().data;
    expect((await call(merchant.cookie, 'GET', `/api/dashboard/gateway/withdrawals/${id}`)).json().data).toMatchObject({
      id,
      status: 'REQUESTED',
    });
    const othersView = await call(other.cookie, 'GET', `/api/dashboard/gateway/withdrawals/${id}`);
    expect(othersView.statusCode).toBe(404);
    expect(othersView.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_NOT_FOUND' });
    expect((await call(other.cookie, 'GET', '/api/dashboard/gateway/withdrawals')).json().data).toEqual([]);
    for (const action of ['paid', 'reject']) {
      const unknown = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${nextUuid()}/${action}`, {
        reference: 'TRF',
        holdingAccountId: testHoldingAccount,
        note: 'no',
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_NOT_FOUND' });
    }
  });

  it('lets no admin pay out their own withdrawal (403); another admin may', async () => {
    const admin = await signedInAdmin();
    const colleague = await signedInAdmin();
    await settledBalance(admin.id, 70_000);
    const { id } = (await withdraw(admin.cookie, 70_000)).json().data;
    const own = await call(admin.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-SELF',
      holdingAccountId: testHoldingAccount,
    });
    expect(own.statusCode).toBe(403);
    expect(own.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_OWN_PAYOUT' });
    const paid = await call(colleague.cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-OK',
      holdingAccountId: testHoldingAccount,
    });
    expect(paid.statusCode, paid.body).toBe(200);
  });
});

describe('withdrawals: concurrent requests', () => {
  it('grant no more than is available when 10 requests arrive at once', async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 300_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => withdraw(merchant.cookie, 60_000)));
    expect(answers.filter(a => a.statusCode === 201)).toHaveLength(5);
    const refused = answers.filter(a => a.statusCode !== 201);
    expect(refused.map(a => a.json().code)).toEqual(Array(5).fill('INSUFFICIENT_BALANCE'));
    expect(await findGatewayBalance(service.pool, merchant.id)).toEqual({
      settled: 300_000,
      pending: 0,
      onHold: 300_000,
      available: 0,
    });
  });

  it('grant no more than is available when two processes race on the stream (the expected revision decides)', async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 300_000);
    // another process: its own event store and command queue on the same database, its own stale view of the stream
    const pool = createPool(service.config.databaseUrl!, 10);
    const elsewhere = await PostgresEventStore.create(pool);
    try {
      const { connector, vault, log } = service.deps;
      const there = {
        store: elsewhere,
        clock: service.clock,
        readModels: { waitFor: async () => true },
        connector,
        vault,
        log,
      };
      const here = { ...service.deps };
      const tries = Array.from({ length: 10 }, (_, i) =>
        requestWithdrawal(i % 2 ? there : here, merchant.id, { amount: 50_000, ...bank }, 50_000).then(
          () => 'granted',
          (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
        ),
      );
      // each withdrawal is 50,000 (the minimum): 6 fit in 300,000
      const outcomes = await Promise.all(tries);
      const granted = outcomes.filter(o => o === 'granted').length;
      // never more than fits; exactly that many unless a request gave up on a contended stream (409, try again)
      expect(granted).toBeLessThanOrEqual(6);
      if (!outcomes.includes('CONFLICT')) expect(granted).toBe(6);
      expect(
        outcomes.every(o => o === 'granted' || o === 'INSUFFICIENT_BALANCE' || o === 'CONFLICT'),
        outcomes.join(),
      ).toBe(true);
      const ledger = await load({ store: service.store }, gatewayLedgerStream(merchant.id), gatewayLedger);
      const balance = merchantBalance(ledger.state, merchant.id);
      expect(balance.available).toBeGreaterThanOrEqual(0);
      expect(balance.onHold).toBe(50_000 * granted);
    } finally {
      await elsewhere.close();
      await pool.end();
    }
  });
});

describe('withdrawals: Idempotency-Key', () => {
  const withdrawKeyed = (cookie: string, key: string, body: object) =>
    service.app.inject({
      method: 'POST',
      url: '/api/dashboard/gateway/withdrawals',
      cookies: { svc_token: cookie },
      headers: { 'idempotency-key': key },
      payload: body as never,
    });
  const mine = async (cookie: string) =>
    (await call(cookie, 'GET', '/api/dashboard/gateway/withdrawals')).json().data as { id: string }[];

  it('answers a repeat with the first answer and holds the amount once; another body with the key is 422', async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 200_000);
    const body = { amount: 60_000, ...bank };
    const first = await withdrawKeyed(merchant.cookie, 'wd-1', body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await withdrawKeyed(merchant.cookie, 'wd-1', body);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await mine(merchant.cookie)).toEqual([expect.objectContaining({ id: first.json().data.id })]);
    expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 60_000, available: 140_000 });

    const other = await withdrawKeyed(merchant.cookie, 'wd-1', { ...body, amount: 70_000 });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ status: 'error', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await mine(merchant.cookie)).toHaveLength(1);
    // the key is the merchant's own: another merchant's same key is another withdrawal
    const someoneElse = await registerUser(service);
    await settledBalance(someoneElse.id, 60_000);
    const theirs = await withdrawKeyed(someoneElse.cookie, 'wd-1', body);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().data.id).not.toBe(first.json().data.id);
  });

  it('makes one withdrawal of 5 identical requests sent at once with one key', async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 300_000);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => withdrawKeyed(merchant.cookie, 'wd-concurrent', { amount: 50_000, ...bank })),
    );
    expect(answers.map(a => a.statusCode)).toEqual(Array(5).fill(201));
    expect(new Set(answers.map(a => a.json().data.id)).size).toBe(1);
    expect(await mine(merchant.cookie)).toHaveLength(1);
    expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 50_000, available: 250_000 });
  });
});

describe('withdrawals: a payout reference pays one withdrawal', () => {
  const requested = async () => {
    const merchant = await registerUser(service);
    await settledBalance(merchant.id, 50_000);
    const answer = await withdraw(merchant.cookie, 50_000);
    expect(answer.statusCode, answer.body).toBe(201);
    return { merchant, id: answer.json().data.id as string };
  };
  const pay = (cookie: string, id: string, reference: string) =>
    call(cookie, 'POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference,
      holdingAccountId: testHoldingAccount,
    });

  it('refuses a reference another withdrawal used (any merchant, any case, spaces aside) with 409, changing nothing', async () => {
    const admin = await signedInAdmin();
    const first = await requested();
    const second = await requested();
    expect((await pay(admin.cookie, first.id, 'BCA-TRF-DUP')).statusCode).toBe(200);
    const reused = await pay(admin.cookie, second.id, '  bca-trf-dup ');
    expect(reused.statusCode, reused.body).toBe(409);
    expect(reused.json()).toMatchObject({ status: 'error', code: 'WITHDRAWAL_REFERENCE_USED' });
    expect(
      (await call(second.merchant.cookie, 'GET', `/api/dashboard/gateway/withdrawals/${second.id}`)).json().data,
    ).toMatchObject({ status: 'REQUESTED', reference: null });
    expect(await findGatewayBalance(service.pool, second.merchant.id)).toMatchObject({ onHold: 50_000, available: 0 });
    // the same withdrawal paid again: as before, it is paid already
    expect((await pay(admin.cookie, first.id, 'BCA-TRF-DUP')).json()).toMatchObject({
      code: 'WITHDRAWAL_NOT_REQUESTED',
    });
    expect((await pay(admin.cookie, second.id, 'BCA-TRF-OTHER')).statusCode).toBe(200);
  });

  it('refuses a reference paid before references were claimed (no claim stream, only the paid withdrawal)', async () => {
    const admin = await signedInAdmin();
    const old = await requested();
    // a payout as recorded before payouts were events of their own: the ledger's event alone
    await handleCommand(
      service.deps,
      gatewayLedgerStream(old.merchant.id),
      gatewayLedger,
      {
        type: 'PayWithdrawal',
        merchantId: old.merchant.id,
        withdrawalId: old.id,
        reference: 'BCA-TRF-OLD',
        holdingAccountId: old.merchant.id,
        paidBy: admin.id,
        now: service.clock.now(),
      },
      { actor: 'test', now: service.clock.now() },
    );
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    const next = await requested();
    expect((await pay(admin.cookie, next.id, 'bca-trf-old')).json()).toMatchObject({
      code: 'WITHDRAWAL_REFERENCE_USED',
    });
  });

  it('lets one of two admins racing with one reference on two withdrawals pay', async () => {
    const [one, two] = [await signedInAdmin(), await signedInAdmin()];
    const a = await requested();
    const b = await requested();
    const answers = await Promise.all([pay(one.cookie, a.id, 'BCA-TRF-RACE'), pay(two.cookie, b.id, 'BCA-TRF-RACE')]);
    expect(answers.map(r => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find(r => r.statusCode === 409)!.json()).toMatchObject({ code: 'WITHDRAWAL_REFERENCE_USED' });
    const paid = (await call(one.cookie, 'GET', '/api/admin/gateway/withdrawals?status=PAID')).json().data as {
      id: string;
    }[];
    expect(paid.filter(w => w.id === a.id || w.id === b.id)).toHaveLength(1);
  });
});
