import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/store/commands/handle.ts';
import { user } from '../../src/domain/user.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { keyHolder } from '../support/http.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
let accountNumberSeed = 1000;
const bankBody = (overrides: Record<string, unknown> = {}) => ({
  type: 'bank',
  providerCode: 'BANK-BCA',
  accountName: 'Operasional',
  intervalMinutes: 60,
  accountNumber: String(8_000_000_000 + accountNumberSeed++),
  username: 'budi',
  password: 'rahasia',
  ...overrides,
});

async function linkBank(caller: Caller, overrides: Record<string, unknown> = {}) {
  const body = bankBody(overrides);
  const response = await caller.call('POST', '/api/v1/accounts', body);
  expect(response.statusCode, response.body).toBe(200);
  return { id: response.json().accountId as string, accountNumber: body.accountNumber as string };
}

describe('GET /api/v1/providers', () => {
  it('lists every provider with its code, type, payment types and login flow', async () => {
    const caller = await keyHolder(service);
    const response = await caller.call('GET', '/api/v1/providers');
    expect(response.statusCode).toBe(200);
    const data = response.json().data as {
      providerCode: string;
      type: string;
      paymentTypes: string[];
      loginFlow: string;
    }[];
    expect(data.map(p => p.providerCode)).toEqual(
      expect.arrayContaining([
        'WALLET-A',
        'WALLET-A-BUSINESS',
        'WALLET-B',
        'WALLET-C',
        'WALLET-D',
        'WALLET-E',
        'BANK-BCA',
      ]),
    );
    expect(data.find(p => p.providerCode === 'WALLET-A')).toMatchObject({
      type: 'ewallet',
      paymentTypes: ['DIRECT', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3'],
    });
    expect((await service.app.inject({ method: 'GET', url: '/api/v1/providers' })).statusCode).toBe(401);
  });
});

describe('POST /api/v1/accounts', () => {
  it('links a bank account after logging in to the bank, and syncs it when due', async () => {
    const caller = await keyHolder(service);
    const { id, accountNumber } = await linkBank(caller);
    const created = (await caller.call('GET', `/api/v1/accounts/${id}`)).json().data;
    expect(created).toMatchObject({
      id,
      type: 'bank',
      providerCode: 'BANK-BCA',
      accountName: 'Operasional',
      accountNumber,
      balance: 0,
      lastSync: null,
      intervalMinutes: 60,
      isActive: true,
    });
    await service.accountSync.tick();
    const synced = await eventually(async () => {
      const a = (await caller.call('GET', `/api/v1/accounts/${id}`)).json().data;
      return a.lastSync ? a : null;
    });
    expect(synced.balance).toBeGreaterThan(0);
    expect(synced.lastSync).toBe(service.clock.now().toISOString());
  });

  it.each([
    ['no type', { type: undefined }],
    ['an unknown type', { type: 'crypto' }],
    ['no account name', { accountName: undefined }],
    ['no interval', { intervalMinutes: undefined }],
    ['an interval below 5 minutes', { intervalMinutes: 1 }],
    ['a fractional interval', { intervalMinutes: 7.5 }],
    ['no account number', { accountNumber: undefined }],
    ['no username', { username: undefined }],
    ['no password', { password: undefined }],
    ['a bank provider as an e-wallet', { type: 'ewallet', phoneNumber: '081234567890' }],
  ])('answers 400 for %s, and links nothing', async (_case, overrides) => {
    const caller = await keyHolder(service);
    const response = await caller.call('POST', '/api/v1/accounts', bankBody(overrides));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error' });
    expect((await caller.call('GET', '/api/v1/accounts')).json().data).toEqual([]);
  });

  it('answers 404 for an unknown provider', async () => {
    const caller = await keyHolder(service);
    const response = await caller.call('POST', '/api/v1/accounts', bankBody({ providerCode: 'BANK-NOPE' }));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 'error', code: 'PROVIDER_NOT_FOUND' });
  });

  it('answers 400 when the bank refuses the login', async () => {
    const caller = await keyHolder(service);
    const response = await caller.call('POST', '/api/v1/accounts', bankBody({ password: 'sandbox-fail' }));
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('PROVIDER_LOGIN_FAILED');
  });

  it('takes a day of its syncs in points at creation: more for a smaller intervalMinutes, once, nothing when refused', async () => {
    const caller = await keyHolder(service);
    const points = async () =>
      (await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: caller.cookie } })).json()
        .points as number;
    expect(await points()).toBe(1000);
    await linkBank(caller, { intervalMinutes: 5 });
    expect(await points()).toBe(1000 - 288);
    await linkBank(caller, { intervalMinutes: 60, providerCode: 'BANK-BRI' });
    expect(await points()).toBe(1000 - 288 - 24);
    expect((await caller.call('POST', '/api/v1/accounts', bankBody({ password: 'sandbox-fail' }))).statusCode).toBe(
      400,
    );
    expect(await points()).toBe(1000 - 288 - 24);
  });

  it('answers 400 when the points do not cover a day of its syncs', async () => {
    const caller = await keyHolder(service);
    // 1,000 points, 800 already spent: 200 left covers a day at 10 minutes (144) but not at 5 (288)
    await handleCommand(
      service.deps,
      `user-${caller.id}`,
      user,
      { type: 'DebitPoints', points: 800, accountId: nextUuid(), reason: 'account-sync' },
      { actor: 'test', now: service.clock.now() },
    );
    const response = await caller.call('POST', '/api/v1/accounts', bankBody({ intervalMinutes: 5 }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      status: 'error',
      code: 'NOT_ENOUGH_POINTS',
      message: 'Not enough points: 288 needed, 200 available',
    });
    expect((await caller.call('GET', '/api/v1/accounts')).json().data).toEqual([]);
    await linkBank(caller, { intervalMinutes: 10 });
  });

  it('answers special_flow for WALLET-B and WALLET-C instead of linking', async () => {
    const caller = await keyHolder(service);
    for (const providerCode of ['WALLET-B', 'WALLET-C']) {
      const response = await caller.call('POST', '/api/v1/accounts', {
        type: 'ewallet',
        providerCode,
        accountName: 'W',
        intervalMinutes: 60,
        phoneNumber: '081200000001',
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'special_flow',
        nextAction: { action: `${providerCode.toLowerCase()}-send-otp` },
      });
      expect(response.json().accountId).toBeUndefined();
    }
    expect((await caller.call('GET', '/api/v1/accounts')).json().data).toEqual([]);
  });

  it('creates WALLET-A inactive (its OTP flow activates it), and demands its PIN', async () => {
    const caller = await keyHolder(service);
    const wallet = {
      type: 'ewallet',
      providerCode: 'WALLET-A',
      accountName: 'Wallet',
      intervalMinutes: 60,
      phoneNumber: '081200000002',
    };
    expect((await caller.call('POST', '/api/v1/accounts', wallet)).statusCode).toBe(400);
    const response = await caller.call('POST', '/api/v1/accounts', { ...wallet, pin: '123456' });
    expect(response.statusCode).toBe(200);
    expect((await caller.call('GET', `/api/v1/accounts/${response.json().accountId}`)).json().data).toMatchObject({
      isActive: false,
      phoneNumber: '081200000002',
    });
  });

  it('links WALLET-D by phone number, active at once', async () => {
    const caller = await keyHolder(service);
    const response = await caller.call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Kasir',
      intervalMinutes: 60,
      phoneNumber: '081200000003',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ isActive: true, providerCode: 'WALLET-D' });
  });
});

describe('GET /api/v1/accounts', () => {
  it('filters by type, activity, provider and search, and pages', async () => {
    const caller = await keyHolder(service);
    const bank = await linkBank(caller, { accountName: 'Gaji Karyawan' });
    await linkBank(caller, { providerCode: 'BANK-BRI', accountName: 'Tabungan' });
    await caller.call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-A',
      accountName: 'Dompet',
      intervalMinutes: 60,
      phoneNumber: '081299990000',
      pin: '123456',
    });
    const list = async (query: string) => (await caller.call('GET', `/api/v1/accounts${query}`)).json();
    expect((await list('')).pagination).toEqual({ total: 3, page: 1, limit: 10, totalPages: 1, hasMore: false });
    expect((await list('?type=bank')).data).toHaveLength(2);
    expect((await list('?type=ewallet')).data.map((a: { providerCode: string }) => a.providerCode)).toEqual([
      'WALLET-A',
    ]);
    expect((await list('?isActive=false')).data).toHaveLength(1);
    expect((await list('?isActive=true')).data).toHaveLength(2);
    expect((await list('?providerCode=BANK-BRI')).data).toHaveLength(1);
    expect((await list('?search=gaji')).data.map((a: { id: string }) => a.id)).toEqual([bank.id]);
    expect((await list(`?search=${bank.accountNumber}`)).data.map((a: { id: string }) => a.id)).toEqual([bank.id]);
    expect((await list('?search=9999000')).data).toHaveLength(1); // phone number
    expect((await list('?search=Rakyat')).data).toHaveLength(1); // provider name
    expect((await list('?search=100%25')).data).toHaveLength(0); // % is a character, not a wildcard
    const page2 = await list('?limit=2&page=2');
    expect(page2.data).toHaveLength(1);
    expect(page2.pagination).toEqual({ total: 3, page: 2, limit: 2, totalPages: 2, hasMore: false });
    expect((await list('?limit=2')).pagination.hasMore).toBe(true);
  });

  it.each(['?limit=101', '?limit=0', '?page=0', '?page=x', '?type=card', '?isActive=maybe'])(
    'answers 400 for %s',
    async query => {
      const caller = await keyHolder(service);
      const response = await caller.call('GET', `/api/v1/accounts${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    },
  );
});

describe('one account', () => {
  it("answers 404 to another owner's account on every route, and to an unknown id", async () => {
    const owner = await keyHolder(service);
    const stranger = await keyHolder(service);
    const { id } = await linkBank(owner);
    for (const [method, url, body] of [
      ['GET', `/api/v1/accounts/${id}`],
      ['PATCH', `/api/v1/accounts/${id}`, { accountName: 'mine now' }],
      ['DELETE', `/api/v1/accounts/${id}`],
      ['GET', `/api/v1/accounts/${id}/refresh`],
    ] as const) {
      const response = await stranger.call(method, url, body);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      const unknown = await owner.call(method, url.replace(id, nextUuid()), body);
      expect(unknown.statusCode, `${method} unknown`).toBe(404);
    }
    expect((await owner.call('GET', `/api/v1/accounts/${id}`)).json().data.accountName).toBe('Operasional');
    expect((await owner.call('GET', '/api/v1/accounts/not-a-uuid')).statusCode).toBe(400);
  });

  it('changes name and interval, and checks new bank credentials with the bank', async () => {
    const caller = await keyHolder(service);
    const { id } = await linkBank(caller);
    const patched = await caller.call('PATCH', `/api/v1/accounts/${id}`, { accountName: 'Baru', intervalMinutes: 30 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ accountName: 'Baru', intervalMinutes: 30 });
    const refused = await caller.call('PATCH', `/api/v1/accounts/${id}`, { password: 'sandbox-fail' });
    expect(refused.statusCode).toBe(400);
    for (const body of [{}, { intervalMinutes: 0 }, { accountName: '' }, { balance: 5 }]) {
      const response = await caller.call('PATCH', `/api/v1/accounts/${id}`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await caller.call('GET', `/api/v1/accounts/${id}`)).json().data).toMatchObject({
      accountName: 'Baru',
      intervalMinutes: 30,
    });
  });

  it('refreshes on demand: a new provider transaction shows up in mutations once', async () => {
    const caller = await keyHolder(service);
    const { id, accountNumber } = await linkBank(caller);
    const sandbox = sandboxOf(service);
    await sandbox.addTransaction({
      providerCode: 'BANK-BCA',
      accountRef: accountNumber,
      type: 'CREDIT',
      amount: 150_000,
      senderName: 'PELANGGAN',
      description: 'bayar pesanan',
    });
    expect((await caller.call('GET', `/api/v1/accounts/${id}/refresh`)).statusCode).toBe(200);
    expect((await caller.call('GET', `/api/v1/accounts/${id}/refresh`)).statusCode).toBe(200);
    const mutations = (await caller.call('GET', `/api/v1/mutations?accountId=${id}&limit=100`)).json().data as {
      amount: number;
      senderName: string;
    }[];
    expect(mutations.filter(m => m.amount === 150_000 && m.senderName === 'PELANGGAN')).toHaveLength(1);
  });

  it('deletes the account and its mutations from every read model and its events from the store', async () => {
    const caller = await keyHolder(service);
    const { id } = await linkBank(caller);
    await caller.call('GET', `/api/v1/accounts/${id}/refresh`);
    expect((await caller.call('GET', `/api/v1/mutations?accountId=${id}`)).json().pagination.total).toBeGreaterThan(0);
    const response = await caller.call('DELETE', `/api/v1/accounts/${id}`);
    expect(response.statusCode).toBe(200);
    expect((await caller.call('GET', `/api/v1/accounts/${id}`)).statusCode).toBe(404);
    expect((await caller.call('GET', `/api/v1/mutations?accountId=${id}`)).json().pagination.total).toBe(0);
    expect(await service.store.readStream(`account-${id}`)).toEqual([]);
    const audit = (await service.store.readStream(`user-${caller.id}`)).filter(e => e.type === 'AccountDeleted');
    expect(audit.map(e => e.data)).toEqual([
      { userId: caller.id, accountId: id, deletedAt: service.clock.now().toISOString() },
    ]);
    expect((await caller.call('DELETE', `/api/v1/accounts/${id}`)).statusCode).toBe(404);
  });
});
