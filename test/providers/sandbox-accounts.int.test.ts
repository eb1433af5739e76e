import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectStatus, sandboxHarness, type SandboxHarness } from './sandbox-harness.ts';

/** Accounts the sandbox makes up: deterministic data, balance and paged history behind a session token. */
let sandbox: SandboxHarness;
beforeEach(async () => {
  sandbox = await sandboxHarness();
});
afterEach(async () => sandbox.close());

type Transaction = {
  id: string;
  type: 'CREDIT' | 'DEBIT';
  amount: number;
  description: string;
  senderName: string;
  reference: string | null;
  occurredAt: string;
};
const hours = (n: number) => n * 3_600_000;
const bank = { username: 'siti', password: 'rahasia', accountNumber: '8800112233' };

const history = async (s: SandboxHarness, token: string, query = '') => {
  const response = await s.get(`/providers/BANK-MANDIRI/accounts/8800112233/transactions${query}`, token);
  expectStatus(response, 200);
  return response.json<{ transactions: Transaction[]; hasMore: boolean }>();
};

describe('deterministic accounts', () => {
  it('starts an account with the same holder, balance and three past transactions for the same inputs', async () => {
    const other = await sandboxHarness();
    try {
      const seen = [];
      for (const s of [sandbox, other]) {
        const { sessionToken, account } = (await s.loginBank('BANK-MANDIRI', bank)).json();
        const balance = (await s.get('/providers/BANK-MANDIRI/accounts/8800112233/balance', sessionToken)).json();
        seen.push({ account, balance, history: await history(s, sessionToken) });
      }
      expect(seen[0]).toEqual(seen[1]);
      const { balance, history: h } = seen[0]!;
      expect(balance.currency).toBe('IDR');
      expect(balance.balance).toBeGreaterThanOrEqual(1_000_000);
      expect(balance.balance).toBeLessThanOrEqual(10_000_000);
      expect(Number.isInteger(balance.balance)).toBe(true);
      expect(h.transactions).toHaveLength(3);
      expect(h.hasMore).toBe(false);
      for (const t of h.transactions) {
        expect(t.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(t.occurredAt < sandbox.clock.now().toISOString()).toBe(true);
      }
      expect(h.transactions.map(t => t.occurredAt)).toEqual(h.transactions.map(t => t.occurredAt).sort());
    } finally {
      await other.close();
    }
  });

  it('gives another account other data', async () => {
    const a = (
      await sandbox.post('/sandbox/transactions', {
        providerCode: 'WALLET-D',
        accountRef: '081200000001',
        type: 'CREDIT',
        amount: 1,
      })
    ).statusCode;
    const b = (
      await sandbox.post('/sandbox/transactions', {
        providerCode: 'WALLET-D',
        accountRef: '081200000002',
        type: 'CREDIT',
        amount: 1,
      })
    ).statusCode;
    expect([a, b]).toEqual([201, 201]);
    const [one, two] = (await sandbox.get('/sandbox/accounts')).json().accounts as {
      balance: number;
      transactionCount: number;
    }[];
    expect(one!.balance).not.toBe(two!.balance);
    expect(one!.transactionCount).toBe(4);
  });
});

describe('balance and transactions', () => {
  it('pages the history oldest first, strictly after the given id', async () => {
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    for (let i = 1; i <= 4; i++) {
      sandbox.clock.advance(60_000);
      expectStatus(
        await sandbox.addTransaction({
          providerCode: 'BANK-MANDIRI',
          accountRef: '8800112233',
          type: 'CREDIT',
          amount: i * 1000,
          senderName: `S${i}`,
        }),
        201,
      );
    }
    const all = await history(sandbox, sessionToken);
    expect(all.transactions).toHaveLength(7);
    expect(all.transactions.slice(3).map(t => t.senderName)).toEqual(['S1', 'S2', 'S3', 'S4']);

    const page1 = await history(sandbox, sessionToken, '?limit=2');
    expect(page1).toEqual({ transactions: all.transactions.slice(0, 2), hasMore: true });
    const page2 = await history(sandbox, sessionToken, `?after=${page1.transactions[1]!.id}&limit=4`);
    expect(page2).toEqual({ transactions: all.transactions.slice(2, 6), hasMore: true });
    const page3 = await history(sandbox, sessionToken, `?after=${page2.transactions[3]!.id}&limit=4`);
    expect(page3).toEqual({ transactions: all.transactions.slice(6), hasMore: false });
    expect(await history(sandbox, sessionToken, `?after=${all.transactions[6]!.id}`)).toEqual({
      transactions: [],
      hasMore: false,
    });

    expectStatus(
      await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/transactions?after=unknown-id', sessionToken),
      400,
      'UNKNOWN_TRANSACTION',
    );
    expectStatus(
      await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/transactions?limit=101', sessionToken),
      400,
      'INVALID_REQUEST',
    );
  });

  it('adds a control transaction at clock time, moving the balance; a debit past the balance is refused', async () => {
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    const before = await sandbox.balanceOf('BANK-MANDIRI', '8800112233', sessionToken);
    const added = await sandbox.addTransaction({
      providerCode: 'BANK-MANDIRI',
      accountRef: '8800112233',
      type: 'DEBIT',
      amount: 2500,
      description: 'bayar',
      senderName: 'SITI',
      reference: 'INV-1',
    });
    expectStatus(added, 201);
    expect(await sandbox.balanceOf('BANK-MANDIRI', '8800112233', sessionToken)).toBe(before - 2500);
    const last = (await history(sandbox, sessionToken)).transactions.at(-1);
    expect(last).toEqual({
      id: added.json().id,
      type: 'DEBIT',
      amount: 2500,
      description: 'bayar',
      senderName: 'SITI',
      reference: 'INV-1',
      occurredAt: sandbox.clock.now().toISOString(),
    });
    const tooMuch = await sandbox.addTransaction({
      providerCode: 'BANK-MANDIRI',
      accountRef: '8800112233',
      type: 'DEBIT',
      amount: before,
    });
    expectStatus(tooMuch, 400, 'INSUFFICIENT_BALANCE');
    expect(await sandbox.balanceOf('BANK-MANDIRI', '8800112233', sessionToken)).toBe(before - 2500);
  });

  it('creates an unseen account on the fly for a control transaction, with the data a login would have found', async () => {
    expectStatus(
      await sandbox.addTransaction({
        providerCode: 'BANK-MANDIRI',
        accountRef: '8800112233',
        type: 'CREDIT',
        amount: 500,
      }),
      201,
    );
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    const fresh = await sandboxHarness();
    try {
      const token = (await fresh.loginBank('BANK-MANDIRI', bank)).json().sessionToken;
      expect(await sandbox.balanceOf('BANK-MANDIRI', '8800112233', sessionToken)).toBe(
        (await fresh.balanceOf('BANK-MANDIRI', '8800112233', token)) + 500,
      );
    } finally {
      await fresh.close();
    }
    expectStatus(
      await sandbox.addTransaction({
        providerCode: 'BANK-NOPE',
        accountRef: '8800112233',
        type: 'CREDIT',
        amount: 500,
      }),
      404,
      'UNKNOWN_PROVIDER',
    );
    expectStatus(
      await sandbox.addTransaction({
        providerCode: 'WALLET-D',
        accountRef: 'not-a-phone',
        type: 'CREDIT',
        amount: 500,
      }),
      400,
      'INVALID_ACCOUNT_REF',
    );
    expectStatus(
      await sandbox.addTransaction({
        providerCode: 'WALLET-D',
        accountRef: '081200000000',
        type: 'CREDIT',
        amount: 1.5,
      }),
      400,
      'INVALID_REQUEST',
    );
  });
});

describe('sessions', () => {
  it('refuses a missing or unknown token with 401 and another account’s token with 403', async () => {
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    expectStatus(await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/balance'), 401, 'SESSION_EXPIRED');
    expectStatus(
      await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/balance', 'sbx_unknown'),
      401,
      'SESSION_EXPIRED',
    );
    expectStatus(
      await sandbox.get('/providers/BANK-MANDIRI/accounts/9900000000/balance', sessionToken),
      403,
      'ACCOUNT_FORBIDDEN',
    );
    expectStatus(
      await sandbox.get('/providers/BANK-BCA/accounts/8800112233/balance', sessionToken),
      403,
      'ACCOUNT_FORBIDDEN',
    );
  });

  it('refuses a missing token with 401 and another account’s token with 403 on every account route', async () => {
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    const destination = { instId: '014', instLocalName: 'BCA', accountNumber: '1234567890' };
    const routes: [method: 'GET' | 'POST', path: string, body?: object][] = [
      ['GET', 'balance'],
      ['GET', 'transactions'],
      ['GET', 'qris'],
      ['POST', 'virtual-accounts', { vaNumber: '88001122' }],
      ['GET', 'banks'],
      ['POST', 'bank-inquiries', destination],
      ['POST', 'bank-transfers', { ...destination, reference: 'r-1', amount: 10_000 }],
      ['POST', 'qris-payments', { reference: 'r-2', qris: '0'.repeat(40), amount: 10_000 }],
      ['GET', 'transfers/r-1'],
    ];
    for (const [method, path, payload] of routes) {
      const inject = (accountRef: string, token?: string) =>
        sandbox.app.inject({
          method,
          url: `/providers/BANK-MANDIRI/accounts/${accountRef}/${path}`,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
          ...(payload ? { payload } : {}),
        });
      expectStatus(await inject('8800112233'), 401, 'SESSION_EXPIRED');
      expectStatus(await inject('9900000000', sessionToken), 403, 'ACCOUNT_FORBIDDEN');
    }
  });

  it('expires a session after sessionTtlMs on the clock', async () => {
    const { sessionToken } = (await sandbox.loginBank('BANK-MANDIRI', bank)).json();
    sandbox.clock.advance(hours(24) - 1);
    expectStatus(await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/balance', sessionToken), 200);
    sandbox.clock.advance(1);
    expectStatus(
      await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/balance', sessionToken),
      401,
      'SESSION_EXPIRED',
    );
    const short = await sandboxHarness({ sessionTtlMs: 1000 });
    try {
      const token = (await short.loginWallet('WALLET-D', '081200000003')).sessionToken;
      short.clock.advance(1000);
      expectStatus(await short.get('/providers/WALLET-D/accounts/081200000003/balance', token), 401, 'SESSION_EXPIRED');
    } finally {
      await short.close();
    }
  });

  it('expires every session of a provider by fault, for good, and leaves other providers alone', async () => {
    const walletToken = (await sandbox.loginWallet('WALLET-D', '081200000004')).sessionToken;
    const bankToken = (await sandbox.loginBank('BANK-MANDIRI', bank)).json().sessionToken;
    const faulted = await sandbox.faults({ providerCode: 'WALLET-D', expireSessions: true });
    expectStatus(faulted, 200);
    expect(faulted.json().expiredSessions).toBe(1);
    expectStatus(await sandbox.app.inject({ method: 'DELETE', url: '/sandbox/faults' }), 200);
    expectStatus(
      await sandbox.get('/providers/WALLET-D/accounts/081200000004/balance', walletToken),
      401,
      'SESSION_EXPIRED',
    );
    expectStatus(await sandbox.get('/providers/BANK-MANDIRI/accounts/8800112233/balance', bankToken), 200);
    // a new login works again
    const again = (await sandbox.loginWallet('WALLET-D', '081200000004')).sessionToken;
    expectStatus(await sandbox.get('/providers/WALLET-D/accounts/081200000004/balance', again), 200);
  });
});
