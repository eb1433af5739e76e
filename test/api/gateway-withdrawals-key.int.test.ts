import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { settledBalance, signedInAdmin } from '../support/gateway.ts';
import { keyHolder } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

// /api/v1/gateway/withdrawals: an API client reads its withdrawals by cursor; asking for one is the dashboard's alone.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Listed = { id: string; status: string; amount: number; requestedAt: string };
type Page = { data: Listed[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };

const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Bpk. Joko Wijaya' };
/** Asked for as the interface has it: in the dashboard, with the merchant's session. */
const withdraw = (caller: Caller, body: object, key?: string) =>
  service.app.inject({
    method: 'POST',
    url: '/api/dashboard/gateway/withdrawals',
    cookies: { svc_token: caller.cookie },
    headers: key ? { 'idempotency-key': key } : {},
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
  it('is not there: an API key never asks for a withdrawal (405), and nothing is held', async () => {
    const merchant = await keyHolder(service);
    await settledBalance(service, merchant.id, 200_000);
    const asked = await service.app.inject({
      method: 'POST',
      url: '/api/v1/gateway/withdrawals',
      headers: { 'x-api-key': merchant.key, 'idempotency-key': 'api-wd-1' },
      payload: { amount: 60_000, ...bank },
    });
    expect(asked.statusCode, asked.body).toBe(405);
    expect((await list(merchant)).data).toEqual([]);
    expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ onHold: 0, available: 200_000 });
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
