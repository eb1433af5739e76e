import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { settledBalance, signedInAdmin } from '../support/gateway.ts';
import { keyHolder } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

// /api/v1/gateway/withdrawals: an API client asks for a withdrawal (Idempotency-Key) and reads its withdrawals by cursor.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Listed = { id: string; status: string; amount: number; requestedAt: string };
type Page = { data: Listed[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };

const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Bpk. Joko Wijaya' };
const withdraw = (caller: Caller, body: object, key?: string) =>
  service.app.inject({
    method: 'POST',
    url: '/api/v1/gateway/withdrawals',
    headers: { 'x-api-key': caller.key, ...(key ? { 'idempotency-key': key } : {}) },
    payload: body as never,
  });
const list = async (caller: Caller, query = '') => {
  const answer = await caller.call('GET', `/api/v1/gateway/withdrawals${query}`);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json() as Page;
};
async function walk(caller: Caller, limit: number, filters = '') {
  const ids: string[] = [];
  for (let cursor: string | null = null, pages = 0; pages < 50; pages++) {
    const page: Page = await list(caller, `?limit=${limit}${filters}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...page.data.map(w => w.id));
    cursor = page.pagination.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error('too many pages');
}

describe('POST /api/v1/gateway/withdrawals', () => {
  it('answers a repeat with the first answer and holds once; another body with the key is 422, nothing changed', async () => {
    const merchant = await keyHolder(service);
    await settledBalance(service, merchant.id, 200_000);
    const body = { amount: 60_000, ...bank };
    const first = await withdraw(merchant, body, 'api-wd-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data).toMatchObject({ status: 'REQUESTED' });
    const again = await withdraw(merchant, body, 'api-wd-1');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const other = await withdraw(merchant, { ...body, amount: 70_000 }, 'api-wd-1');
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ status: 'error', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await list(merchant)).data.map(w => w.id)).toEqual([first.json().data.id]);
    expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 60_000, available: 140_000 });
    // the dashboard shows the same withdrawal, as it was asked for there
    const dashboard = await service.app.inject({
      method: 'GET',
      url: `/api/dashboard/gateway/withdrawals/${first.json().data.id}`,
      cookies: { svc_token: merchant.cookie },
    });
    expect(dashboard.json().data).toEqual((await list(merchant)).data[0]);
  });

  it('refuses below the minimum and past the available balance, recording nothing', async () => {
    const merchant = await keyHolder(service);
    await settledBalance(service, merchant.id, 80_000);
    expect((await withdraw(merchant, { amount: 10_000, ...bank })).json().code).toBe('WITHDRAWAL_BELOW_MINIMUM');
    expect((await withdraw(merchant, { amount: 90_000, ...bank })).json().code).toBe('INSUFFICIENT_BALANCE');
    expect((await withdraw(merchant, { amount: 60_000, ...bank, accountNumber: 'x' })).statusCode).toBe(400);
    expect((await list(merchant)).data).toEqual([]);
  });
});

describe('GET /api/v1/gateway/withdrawals', () => {
  it("lists the merchant's withdrawals once each across pages of any size, newest first (ties by id), by status", async () => {
    const merchant = await keyHolder(service);
    const stranger = await keyHolder(service);
    await settledBalance(service, merchant.id, 1_000_000);
    await settledBalance(service, stranger.id, 100_000);
    const theirs = await withdraw(stranger, { amount: 50_000, ...bank });
    expect(theirs.statusCode).toBe(201);
    const made: { id: string; at: number }[] = [];
    // three requested at one instant, two at the next: ties in requested_at
    for (const step of [0, 0, 0, 1_000, 0]) {
      service.clock.advance(step);
      const answer = await withdraw(merchant, { amount: 50_000, ...bank });
      expect(answer.statusCode, answer.body).toBe(201);
      made.push({ id: answer.json().data.id as string, at: service.clock.now().getTime() });
    }
    const newestFirst = [...made].sort((a, b) => b.at - a.at || (b.id < a.id ? -1 : 1)).map(w => w.id);
    for (const limit of [1, 2, 3, 4, 5, 6]) expect(await walk(merchant, limit)).toEqual(newestFirst);

    const admin = await signedInAdmin(service);
    const rejected = await admin.session('POST', `/api/admin/gateway/withdrawals/${made[2]!.id}/reject`, {
      note: 'rekening salah',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(await walk(merchant, 2, '&status=REJECTED')).toEqual([made[2]!.id]);
    expect(await walk(merchant, 2, '&status=REQUESTED')).toEqual(newestFirst.filter(id => id !== made[2]!.id));
    expect((await list(merchant, '?status=PAID')).data).toEqual([]);
    expect((await caller400(merchant, '?cursor=zzz')).json().code).toBe('VALIDATION_ERROR');
    expect((await caller400(merchant, '?limit=101')).json().code).toBe('VALIDATION_ERROR');
  });
});

async function caller400(caller: Caller, query: string) {
  const answer = await caller.call('GET', `/api/v1/gateway/withdrawals${query}`);
  expect(answer.statusCode).toBe(400);
  return answer;
}
