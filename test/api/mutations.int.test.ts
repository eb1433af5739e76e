import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let caller: Awaited<ReturnType<typeof keyHolder>>;
let bankId: string;
let walletId: string;

type Mutation = {
  id: string;
  accountId: string;
  accountType: string;
  amount: number;
  type: string;
  createdAt: string;
  senderName: string;
  description: string;
  status: string;
};

beforeAll(async () => {
  service = await startTestService();
  caller = await keyHolder(service);
  const sandbox = sandboxOf(service);
  const bank = await caller.call('POST', '/api/v1/accounts', {
    type: 'bank',
    providerCode: 'BANK-MANDIRI',
    accountName: 'Toko',
    intervalMinutes: 60,
    accountNumber: '7700112233',
    username: 'toko',
    password: 'rahasia',
  });
  bankId = bank.json().accountId;
  const wallet = await caller.call('POST', '/api/v1/accounts', {
    type: 'ewallet',
    providerCode: 'WALLET-E',
    accountName: 'Kasir',
    intervalMinutes: 60,
    phoneNumber: '081277770000',
  });
  walletId = wallet.json().accountId;
  // a known history on top of the deterministic one the sandbox starts with, a day apart each
  for (const [i, t] of [
    { accountRef: '7700112233', providerCode: 'BANK-MANDIRI', type: 'CREDIT', amount: 10_000 },
    { accountRef: '7700112233', providerCode: 'BANK-MANDIRI', type: 'DEBIT', amount: 2_500 },
    { accountRef: '081277770000', providerCode: 'WALLET-E', type: 'CREDIT', amount: 75_000 },
    { accountRef: '081277770000', providerCode: 'WALLET-E', type: 'CREDIT', amount: 125_000 },
  ].entries()) {
    service.clock.set(`2026-02-0${i + 1}T10:00:00.000Z`);
    await sandbox.addTransaction({
      ...(t as { accountRef: string; providerCode: string; type: 'CREDIT' | 'DEBIT'; amount: number }),
      senderName: `S${i}`,
      description: `tx ${i}`,
    });
  }
  for (const id of [bankId, walletId])
    expect((await caller.call('GET', `/api/v1/accounts/${id}/refresh`)).statusCode).toBe(200);
});
afterAll(async () => service?.close());

const list = async (query = '') => {
  const response = await caller.call('GET', `/api/v1/mutations${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    status: string;
    data: Mutation[];
    pagination: { total: number; page: number; limit: number; totalPages: number; hasMore: boolean };
  };
};
const ours = (data: Mutation[]) => data.filter(m => /^S\d$/.test(m.senderName));

describe('GET /api/v1/mutations', () => {
  it('lists newest first with the mutation fields and the pagination object', async () => {
    const all = await list('?limit=100');
    expect(all.status).toBe('success');
    const times = all.data.map(m => m.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(ours(all.data).map(m => m.amount)).toEqual([125_000, 75_000, 2_500, 10_000]);
    expect(ours(all.data)[0]).toMatchObject({
      type: 'CREDIT',
      senderName: 'S3',
      description: 'tx 3',
      status: 'SUCCESS',
      accountId: walletId,
      accountType: 'wallet',
      createdAt: '2026-02-04T10:00:00.000Z',
    });
    expect(all.pagination).toMatchObject({ page: 1, limit: 100, hasMore: false, total: all.data.length });
  });

  it('filters by account, account type, type, dates and amounts', async () => {
    expect((await list(`?accountId=${walletId}&limit=100`)).data.every(m => m.accountId === walletId)).toBe(true);
    expect((await list('?accountType=wallet&limit=100')).data.every(m => m.accountType === 'wallet')).toBe(true);
    expect((await list('?accountType=bank&limit=100')).data.every(m => m.accountType === 'bank')).toBe(true);
    expect((await list('?type=DEBIT&limit=100')).data.every(m => m.type === 'DEBIT')).toBe(true);
    expect(ours((await list('?from=2026-02-02&to=2026-02-03&limit=100')).data).map(m => m.amount)).toEqual([
      75_000, 2_500,
    ]);
    expect(ours((await list('?from=2026-02-03T00:00:00Z&limit=100')).data).map(m => m.amount)).toEqual([
      125_000, 75_000,
    ]);
    expect(ours((await list('?minAmount=75000&maxAmount=125000&limit=100')).data).map(m => m.amount)).toEqual([
      125_000, 75_000,
    ]);
    expect(
      ours((await list('?accountType=wallet&type=CREDIT&minAmount=100000&limit=100')).data).map(m => m.amount),
    ).toEqual([125_000]);
  });

  it('pages at most 100 at a time', async () => {
    const first = await list('?limit=2');
    const second = await list('?limit=2&page=2');
    expect(first.data).toHaveLength(2);
    expect(first.pagination.hasMore).toBe(true);
    expect(second.data.map(m => m.id)).not.toContain(first.data[0]!.id);
    expect(first.pagination.totalPages).toBe(Math.ceil(first.pagination.total / 2));
  });

  it.each([
    '?limit=101',
    '?page=0',
    '?type=TRANSFER',
    '?accountType=card',
    '?from=yesterday',
    '?minAmount=-1',
    '?minAmount=10&maxAmount=5',
    '?accountId=abc',
    '?from=2026-02-03&to=2026-02-01',
  ])('answers 400 for %s', async query => {
    const response = await caller.call('GET', `/api/v1/mutations${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
  });

  it("never shows another owner's mutations", async () => {
    const stranger = await keyHolder(service);
    expect((await stranger.call('GET', '/api/v1/mutations')).json().data).toEqual([]);
    expect((await stranger.call('GET', `/api/v1/mutations?accountId=${bankId}`)).json().data).toEqual([]);
  });
});
