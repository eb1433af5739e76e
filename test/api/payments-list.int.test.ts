import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorOf } from '../../src/api/page-cursor.ts';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
  syncUntil,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

// GET /api/v1/payments: the key owner's payments newest first, filtered, a page at a time by an opaque cursor.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Listed = { id: string; orderId: string; status: string; type: string | null; createdAt: string };
type Page = { data: Listed[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };

const list = async (caller: Caller, query: string) => {
  const answer = await caller.call('GET', `/api/v1/payments${query}`);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json() as Page;
};

/** Every page of a list from its first, following nextCursor; the ids in the order they came. */
async function walk(caller: Caller, limit: number, filters = '') {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(500);
    const page: Page = await list(caller, `?limit=${limit}${filters}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.data.map(p => p.id));
    expect(page.pagination.hasMore).toBe(page.pagination.nextCursor !== null);
    if (!page.pagination.nextCursor) return ids;
    cursor = page.pagination.nextCursor;
  }
}

describe('GET /api/v1/payments: filters', () => {
  it('lists by status, type, order id and creation time (WIB days or instants), newest first', async () => {
    const caller = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const wallet = await linkServiceWallet(caller);
    const walletA = await linkWalletA(service, caller);
    const paid = await createPayment(
      caller,
      paymentBody(wallet.accountId, { orderId: 'list-paid', type: 'QRIS-DYNAMIC' }),
    );
    service.clock.advance(60_000);
    const direct = await createPayment(
      caller,
      paymentBody(walletA.accountId, { orderId: 'list-direct', type: 'DIRECT' }),
    );
    service.clock.advance(60_000);
    const expiring = await createPayment(
      caller,
      paymentBody(wallet.accountId, { orderId: 'list-expiring', type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }),
    );
    await sandbox.pay({ accountNumber: wallet.phoneNumber, providerCode: 'WALLET-D', amount: paid.totalAmount });
    await syncUntil(caller, wallet.accountId, paid.id, 'COMPLETED');
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    await eventually(async () => (await statusOf(caller, expiring.id)).status === 'EXPIRED');

    const ids = async (query: string) => (await list(caller, query)).data.map(p => p.id);
    expect(await ids('')).toEqual([expiring.id, direct.id, paid.id]);
    expect(await ids('?status=COMPLETED')).toEqual([paid.id]);
    expect(await ids('?status=EXPIRED')).toEqual([expiring.id]);
    expect(await ids('?status=PENDING')).toEqual([direct.id]);
    expect(await ids('?type=DIRECT')).toEqual([direct.id]);
    expect(await ids('?type=QRIS-DYNAMIC')).toEqual([expiring.id, paid.id]);
    // the order id whole, not its start
    expect(await ids('?orderId=list-direct')).toEqual([direct.id]);
    expect(await ids('?orderId=list-dir')).toEqual([]);
    // instants: from included, to excluded
    const created = (await list(caller, '')).data.map(p => p.createdAt);
    const [expiringAt, directAt] = created;
    expect(await ids(`?from=${encodeURIComponent(directAt!)}&to=${encodeURIComponent(expiringAt!)}`)).toEqual([
      direct.id,
    ]);
    // a WIB day: the whole of it; the test clock stands early on 2025-01-01 WIB
    const day = new Date(Date.parse(directAt!) + 7 * 3_600_000).toISOString().slice(0, 10);
    expect(await ids(`?from=${day}&to=${day}`)).toEqual([expiring.id, direct.id, paid.id]);
    const dayAfter = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(await ids(`?from=${dayAfter}`)).toEqual([]);
    // the page's rows are the payments as the status route shows them
    const page = await list(caller, '?orderId=list-paid');
    expect(page.data[0]).toEqual(await statusOf(caller, paid.id));
  });

  it('refuses what it cannot read (400, naming the parameter): a foreign cursor, a limit past 100, a bad period', async () => {
    const caller = await keyHolder(service);
    const refused = async (query: string, path: string) => {
      const answer = await caller.call('GET', `/api/v1/payments${query}`);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json().code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(answer.json().errors)).toContain(path);
    };
    await refused('?cursor=not-a-cursor', 'cursor');
    await refused(`?cursor=${Buffer.from('{"at":"x","id":"y"}').toString('base64url')}`, 'cursor');
    await refused('?limit=101', 'limit');
    await refused('?limit=0', 'limit');
    await refused('?status=PAID', 'status');
    await refused('?type=BITCOIN', 'type');
    await refused('?from=2025-02-30', 'from');
    await refused('?from=2025-01-02&to=2025-01-01', 'from');
    const fine = await list(caller, `?cursor=${cursorOf({ at: new Date(), id: crypto.randomUUID() })}`);
    expect(fine.data).toEqual([]);
  });
});

/** A payment row as the payments projection writes one, at `createdAt`, for the pagination property. */
const seeded = (ownerId: string, createdAt: Date, n: number) => ({
  id: crypto.randomUUID(),
  ownerId,
  orderId: `seed-${n}`,
  createdAt,
});

async function seed(rows: ReturnType<typeof seeded>[]) {
  await service.pool.query(
    `insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code,
       total_amount, redirect_url, status, expires_at, created_at)
     select id, "ownerId", "orderId", gen_random_uuid(), 'WALLET-D', 'QRIS-DYNAMIC', 10000, 1, 10001,
       'https://shop.example/thanks', 'PENDING', "createdAt" + interval '1 hour', "createdAt"
     from jsonb_to_recordset($1::jsonb) as r(id uuid, "ownerId" uuid, "orderId" text, "createdAt" timestamptz)`,
    [JSON.stringify(rows)],
  );
}

describe('GET /api/v1/payments: pages', () => {
  let owner: Caller;
  let stranger: Caller;
  beforeAll(async () => {
    owner = await keyHolder(service);
    stranger = await keyHolder(service);
  });

  test.prop(
    [
      // few distinct instants, so that many payments share their created_at
      fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 40 }),
      fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 10 }),
      fc.integer({ min: 1, max: 12 }),
    ],
    { numRuns: 25 },
  )(
    "every payment appears exactly once across the pages, newest first; another merchant's never",
    async (times, strangerTimes, limit) => {
      await service.pool.query('delete from payments where owner_id = any($1)', [[owner.id, stranger.id]]);
      const at = (t: number) => new Date(Date.UTC(2025, 0, 1, 3, 0, t));
      const mine = times.map((t, n) => seeded(owner.id, at(t), n));
      await seed([...mine, ...strangerTimes.map((t, n) => seeded(stranger.id, at(t), n))]);

      const listed = await walk(owner, limit);
      expect(new Set(listed).size).toBe(listed.length);
      const newestFirst = [...mine]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1))
        .map(p => p.id);
      expect(listed).toEqual(newestFirst);
    },
  );

  it('a page starts after the last row of the one before, whatever is created meanwhile', async () => {
    await service.pool.query('delete from payments where owner_id = $1', [owner.id]);
    const rows = [0, 1, 2, 3].map(n => seeded(owner.id, new Date(Date.UTC(2025, 0, 1, 3, 0, n)), n));
    await seed(rows);
    const first = await list(owner, '?limit=2');
    expect(first.data.map(p => p.orderId)).toEqual(['seed-3', 'seed-2']);
    await seed([seeded(owner.id, new Date(Date.UTC(2025, 0, 1, 3, 0, 9)), 9)]);
    const second = await list(owner, `?limit=2&cursor=${first.pagination.nextCursor}`);
    expect(second.data.map(p => p.orderId)).toEqual(['seed-1', 'seed-0']);
    expect(second.pagination).toEqual({ limit: 2, hasMore: false, nextCursor: null });
  });
});
