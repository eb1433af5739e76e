import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { toDynamicQr } from '../../src/emv-qr.ts';
import {
  ProviderError,
  unreachableProviders,
  type ProviderConnector,
  type ProviderSession,
} from '../../src/providers/connector.ts';
import { httpConnector, type HttpConnectorOptions } from '../../src/providers/http-connector.ts';
import { buildSandbox, startSandbox } from '../../src/providers/sandbox/server.ts';

/**
 * Outbound transfers from WALLET-A through the HTTP connector against a listening sandbox: banks, inquiries, bank
 * transfers and QR payments by our reference, their status, the transfer faults, and the rule that a call moving money
 * is never sent twice unless it never left.
 */
const clock = new TestClock();
let url: string;
let close: () => Promise<void>;
/** Transfer requests (bank or QR) that reached the sandbox, counted as they arrive. */
let transferRequests = 0;

beforeAll(async () => {
  const sandbox = await buildSandbox({ clock });
  sandbox.app.server.on('request', (req: { method?: string; url?: string }) => {
    if (req.method === 'POST' && /\/(bank-transfers|qris-payments)$/.test(req.url ?? '')) transferRequests += 1;
  });
  await sandbox.app.listen({ port: 0, host: '127.0.0.1' });
  const address = sandbox.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  close = () => sandbox.app.close();
});
afterAll(async () => close?.());
afterEach(async () => {
  await fetch(`${url}/sandbox/faults`, { method: 'DELETE' });
  vi.restoreAllMocks();
});

const connectorFor = (options: Partial<HttpConnectorOptions> = {}) =>
  httpConnector({ baseUrl: url, attempts: 3, backoffMs: 5, ...options });
const faults = (body: Record<string, unknown>) =>
  fetch(`${url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(r => {
    expect(r.status).toBe(200);
  });

type Wallet = { phone: string; session: ProviderSession; holderName: string };

/** A WALLET-A login as the service does it: OTP with the PIN, the code read from the sandbox inbox. */
async function walletA(connector: ProviderConnector, phone: string): Promise<Wallet> {
  const { challengeId } = await connector.sendOtp('WALLET-A', { phoneNumber: phone, pin: '123456', channel: 'SMS' });
  const { code } = (await (await fetch(`${url}/sandbox/otp?phone=${phone}`)).json()) as { code: string };
  const verified = await connector.verifyOtp('WALLET-A', { challengeId, otp: code });
  if (verified.kind !== 'session') throw new Error('WALLET-A asked for a second OTP');
  return { phone, session: verified.session, holderName: verified.holderName };
}

/** What `run` ends with, and how many transfer requests reached the sandbox meanwhile. */
async function arriving<T>(run: () => Promise<T>): Promise<{ result: T; arrived: number }> {
  const before = transferRequests;
  const result = await run();
  return { result, arrived: transferRequests - before };
}

async function failureOf(promise: Promise<unknown>): Promise<{ failure: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ProviderError) return { failure: err.failure, message: err.message };
    throw err;
  }
  throw new Error('expected a ProviderError');
}

const bca = { instId: '014', instLocalName: 'BCA' };
const balanceOf = (c: ProviderConnector, w: Wallet) => c.fetchBalance('WALLET-A', w.phone, w.session);
const historyOf = async (c: ProviderConnector, providerCode: string, accountRef: string, session: ProviderSession) =>
  (await c.fetchTransactions(providerCode, accountRef, session, null)).transactions;
const withReference = async (c: ProviderConnector, w: Wallet, reference: string) =>
  (await historyOf(c, 'WALLET-A', w.phone, w.session)).filter(t => t.reference === reference);

describe('banks and inquiries', () => {
  it('lists a dozen Indonesian banks with the fields bank-init copies', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550001');
    const banks = await connector.listBanks('WALLET-A', wallet.phone, wallet.session);
    expect(banks).toHaveLength(12);
    expect(new Set(banks.map(b => b.instId)).size).toBe(12);
    expect(new Set(banks.map(b => b.instLocalName)).size).toBe(12);
    expect(banks).toContainEqual({
      instId: '014',
      name: 'Bank Central Asia',
      instLocalName: 'BCA',
      payMethod: 'BANK_TRANSFER',
      payOption: 'ONLINE',
    });
    expect(banks.map(b => b.instLocalName)).toEqual(
      expect.arrayContaining(['BRI', 'MANDIRI', 'BNI', 'CIMB', 'PERMATA', 'DANAMON', 'BSI', 'BTN']),
    );
  });

  it('names the holder from the bank and the number, the same every time; 999... and a wrong bank code are refused', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550002');
    const inquire = (destination: { instId: string; instLocalName: string; accountNumber: string }) =>
      connector.inquireBankAccount('WALLET-A', wallet.phone, wallet.session, destination);

    const first = await inquire({ ...bca, accountNumber: '1234567890' });
    expect(first.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(await inquire({ ...bca, accountNumber: '1234567890' })).toEqual(first);
    // another bank or number: (almost always) another holder; 16 digits are fine too
    const others = await Promise.all(
      ['1234567891', '1234567892', '1234567893', '1234567894567890'].map(n => inquire({ ...bca, accountNumber: n })),
    );
    expect(new Set([first, ...others].map(o => o.accountName)).size).toBeGreaterThan(1);

    expect(await failureOf(inquire({ ...bca, accountNumber: '9991234567' }))).toEqual({
      failure: 'rejected',
      message: 'invalid account number 9991234567',
    });
    expect((await failureOf(inquire({ ...bca, accountNumber: '123456789' }))).message).toMatch(/10 to 16 digits/);
    expect((await failureOf(inquire({ ...bca, accountNumber: '12345678901234567' }))).message).toMatch(
      /10 to 16 digits/,
    );
    const mismatch = await failureOf(inquire({ instId: '014', instLocalName: 'BRI', accountNumber: '1234567890' }));
    expect(mismatch).toMatchObject({ failure: 'rejected', message: expect.stringContaining('bank mismatch') });
  });

  it('is for WALLET-A accounts only', async () => {
    const connector = connectorFor();
    const { session } = await connector.loginDirect('WALLET-D', { phoneNumber: '081255550003' });
    expect(await failureOf(connector.listBanks('WALLET-D', '081255550003', session))).toMatchObject({
      failure: 'rejected',
      message: expect.stringContaining('do not send transfers'),
    });
  });
});

describe('bank transfers', () => {
  it('debit the balance at once and list a DEBIT whose id is the transaction id answered', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550011');
    const before = await balanceOf(connector, wallet);
    const receipt = await connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
      ...bca,
      accountNumber: '5500000011',
      reference: 'ref-debit',
      amount: 125_000,
    });

    expect(await balanceOf(connector, wallet)).toBe(before - 125_000);
    const [debit] = await withReference(connector, wallet, 'ref-debit');
    expect(debit).toMatchObject({
      id: receipt.transactionId,
      type: 'DEBIT',
      amount: 125_000,
      description: 'Transfer ke BCA 5500000011',
    });
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-debit')).toEqual({
      status: 'SUCCESS',
      transactionId: receipt.transactionId,
    });
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'never-sent')).toEqual({
      status: 'NOT_FOUND',
    });
  });

  it('move money once per reference: the same reference again answers the same transaction', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550012');
    const before = await balanceOf(connector, wallet);
    const input = { ...bca, accountNumber: '5500000012', reference: 'ref-twice', amount: 40_000 };
    const first = await connector.transferToBank('WALLET-A', wallet.phone, wallet.session, input);
    const again = await connector.transferToBank('WALLET-A', wallet.phone, wallet.session, input);

    expect(again).toEqual(first);
    expect(await balanceOf(connector, wallet)).toBe(before - 40_000);
    expect(await withReference(connector, wallet, 'ref-twice')).toHaveLength(1);
    // the reference names one transfer: another request under it is refused, nothing moves
    const reused = await failureOf(
      connector.transferToBank('WALLET-A', wallet.phone, wallet.session, { ...input, amount: 50_000 }),
    );
    expect(reused).toMatchObject({
      failure: 'rejected',
      message: expect.stringContaining('used for another transfer'),
    });
    expect(await balanceOf(connector, wallet)).toBe(before - 40_000);
  });

  it('are refused beyond the balance, with nothing debited', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550013');
    const before = await balanceOf(connector, wallet);
    const count = (await historyOf(connector, 'WALLET-A', wallet.phone, wallet.session)).length;

    const refused = await failureOf(
      connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
        ...bca,
        accountNumber: '5500000013',
        reference: 'ref-poor',
        amount: before + 1,
      }),
    );
    expect(refused).toMatchObject({
      failure: 'insufficient-balance',
      message: expect.stringContaining('balance insufficient'),
    });
    expect(await balanceOf(connector, wallet)).toBe(before);
    expect(await historyOf(connector, 'WALLET-A', wallet.phone, wallet.session)).toHaveLength(count);
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-poor')).toEqual({
      status: 'NOT_FOUND',
    });
  });

  it('to an invalid account or a mismatched bank are refused with the reason, nothing debited', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550014');
    const before = await balanceOf(connector, wallet);
    const send = (d: object) =>
      connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
        ...bca,
        accountNumber: '5500000014',
        reference: 'ref-bad',
        amount: 10_000,
        ...d,
      });
    expect(await failureOf(send({ accountNumber: '9995000000' }))).toMatchObject({
      failure: 'rejected',
      message: expect.stringContaining('invalid account'),
    });
    expect(await failureOf(send({ instLocalName: 'BNI' }))).toMatchObject({
      failure: 'rejected',
      message: expect.stringContaining('bank mismatch'),
    });
    expect(await balanceOf(connector, wallet)).toBe(before);
  });
});

describe('QR payments', () => {
  it("pay another user's payment QR end to end: a DEBIT on wallet A, a CREDIT on the account that owns the QR", async () => {
    const connector = connectorFor();
    const payer = await walletA(connector, '081255550021');
    const merchant = await connector.loginDirect('WALLET-D', { phoneNumber: '081255550022' });
    const qris = await connector.fetchStaticQris('WALLET-D', '081255550022', merchant.session);
    const payerBefore = await balanceOf(connector, payer);
    const merchantBefore = await connector.fetchBalance('WALLET-D', '081255550022', merchant.session);

    const receipt = await connector.payQris('WALLET-A', payer.phone, payer.session, {
      reference: 'ref-qr',
      qris,
      amount: 33_000,
    });

    expect(await balanceOf(connector, payer)).toBe(payerBefore - 33_000);
    expect(await withReference(connector, payer, 'ref-qr')).toEqual([
      expect.objectContaining({ id: receipt.transactionId, type: 'DEBIT', amount: 33_000 }),
    ]);
    expect(await connector.fetchBalance('WALLET-D', '081255550022', merchant.session)).toBe(merchantBefore + 33_000);
    expect((await historyOf(connector, 'WALLET-D', '081255550022', merchant.session)).at(-1)).toMatchObject({
      type: 'CREDIT',
      amount: 33_000,
      description: 'QRIS payment',
      senderName: payer.holderName,
    });
    // the same reference again: paid once
    expect(
      await connector.payQris('WALLET-A', payer.phone, payer.session, { reference: 'ref-qr', qris, amount: 33_000 }),
    ).toEqual(receipt);
    expect(await connector.fetchBalance('WALLET-D', '081255550022', merchant.session)).toBe(merchantBefore + 33_000);
  });

  it("take a dynamic QR's own amount; another one is refused before anything moves", async () => {
    const connector = connectorFor();
    const payer = await walletA(connector, '081255550023');
    const merchant = await connector.loginDirect('WALLET-E', { phoneNumber: '081255550024' });
    const dynamic = toDynamicQr(await connector.fetchStaticQris('WALLET-E', '081255550024', merchant.session), 75_000);
    const before = await balanceOf(connector, payer);

    const mismatch = await failureOf(
      connector.payQris('WALLET-A', payer.phone, payer.session, {
        reference: 'ref-dyn',
        qris: dynamic,
        amount: 70_000,
      }),
    );
    expect(mismatch).toMatchObject({ failure: 'rejected', message: 'The QRIS asks for 75000, not 70000' });
    expect(await balanceOf(connector, payer)).toBe(before);
    expect(await connector.transferStatus('WALLET-A', payer.phone, payer.session, 'ref-dyn')).toEqual({
      status: 'NOT_FOUND',
    });

    await connector.payQris('WALLET-A', payer.phone, payer.session, {
      reference: 'ref-dyn',
      qris: dynamic,
      amount: 75_000,
    });
    expect(await balanceOf(connector, payer)).toBe(before - 75_000);
    expect((await historyOf(connector, 'WALLET-E', '081255550024', merchant.session)).at(-1)).toMatchObject({
      type: 'CREDIT',
      amount: 75_000,
    });
  });
});

describe('transfer faults', () => {
  it('transferRefuse: refused, nothing moves, never seen; the next transfer goes through', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550031');
    const before = await balanceOf(connector, wallet);
    await faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    const input = { ...bca, accountNumber: '5500000031', reference: 'ref-refused', amount: 20_000 };

    expect(await failureOf(connector.transferToBank('WALLET-A', wallet.phone, wallet.session, input))).toMatchObject({
      failure: 'rejected',
      message: expect.stringContaining('refused'),
    });
    expect(await balanceOf(connector, wallet)).toBe(before);
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-refused')).toEqual({
      status: 'NOT_FOUND',
    });

    await connector.transferToBank('WALLET-A', wallet.phone, wallet.session, input);
    expect(await balanceOf(connector, wallet)).toBe(before - 20_000);
  });

  it('transferTimeout: the connector times out without sending again; the status then says SUCCESS', async () => {
    const connector = connectorFor({ timeoutMs: 150, attempts: 3 });
    const wallet = await walletA(connector, '081255550032');
    const before = await balanceOf(connector, wallet);
    await faults({ providerCode: 'WALLET-A', transferTimeout: 1, transferHoldMs: 1500 });

    const started = Date.now();
    const { result: unknown, arrived } = await arriving(() =>
      failureOf(
        connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
          ...bca,
          accountNumber: '5500000032',
          reference: 'ref-late',
          amount: 30_000,
        }),
      ),
    );
    expect(unknown.failure).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(1000); // the connector's own timeout, not the sandbox's answer
    expect(arrived).toBe(1);

    const status = await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-late');
    expect(status).toMatchObject({ status: 'SUCCESS' });
    const [debit] = await withReference(connector, wallet, 'ref-late');
    expect(debit).toMatchObject({
      id: status.status === 'SUCCESS' ? status.transactionId : '',
      type: 'DEBIT',
      amount: 30_000,
    });
    expect(await balanceOf(connector, wallet)).toBe(before - 30_000);
  });

  it('a 5xx on a transfer is not retried either: unknown to the caller, NOT_FOUND at the provider', async () => {
    const connector = connectorFor({ attempts: 3 });
    const wallet = await walletA(connector, '081255550033');
    await faults({ providerCode: 'WALLET-A', failNext: 1 });
    const { result: unknown, arrived } = await arriving(() =>
      failureOf(
        connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
          ...bca,
          accountNumber: '5500000033',
          reference: 'ref-500',
          amount: 1000,
        }),
      ),
    );
    expect(unknown.failure).toBe('unavailable');
    expect(arrived).toBe(1);
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-500')).toEqual({
      status: 'NOT_FOUND',
    });
  });

  it('transferFailAfterAccept: an unknown outcome, then FAILED with the money given back (no net debit)', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550034');
    const before = await balanceOf(connector, wallet);
    await faults({ providerCode: 'WALLET-A', transferFailAfterAccept: 1 });

    const { result: unknown, arrived } = await arriving(() =>
      failureOf(
        connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
          ...bca,
          accountNumber: '5500000034',
          reference: 'ref-back',
          amount: 45_000,
        }),
      ),
    );
    expect(unknown.failure).toBe('unavailable');
    expect(arrived).toBe(1);
    expect(await connector.transferStatus('WALLET-A', wallet.phone, wallet.session, 'ref-back')).toEqual({
      status: 'FAILED',
      reason: expect.stringContaining('returned'),
    });
    expect(await balanceOf(connector, wallet)).toBe(before);
    expect((await withReference(connector, wallet, 'ref-back')).map(t => [t.type, t.amount])).toEqual([
      ['DEBIT', 45_000],
      ['CREDIT', 45_000],
    ]);
  });
});

describe('the connector sends a money-moving call again only when it never left', () => {
  const transferCalls = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.filter(([target]) => String(target).endsWith('/bank-transfers')).length;

  it('a refused connection is tried again (nothing reached the provider)', async () => {
    const connector = connectorFor();
    const wallet = await walletA(connector, '081255550041');
    // a port nothing listens on: take a free one and let it go
    const probe = await startSandbox({ clock, port: 0 });
    await probe.close();
    const spy = vi.spyOn(globalThis, 'fetch');
    const nowhere = httpConnector({ baseUrl: probe.url, attempts: 3, backoffMs: 5 });
    const unknown = await failureOf(
      nowhere.transferToBank('WALLET-A', wallet.phone, wallet.session, {
        ...bca,
        accountNumber: '5500000041',
        reference: 'ref-refused-conn',
        amount: 1000,
      }),
    );
    expect(unknown.failure).toBe('unavailable');
    expect(transferCalls(spy)).toBe(3);
  });

  it('a timeout is not: one request, whatever the attempts', async () => {
    const connector = connectorFor({ timeoutMs: 100, attempts: 4 });
    const wallet = await walletA(connector, '081255550042');
    await faults({ providerCode: 'WALLET-A', transferTimeout: 1, transferHoldMs: 1000 });
    const spy = vi.spyOn(globalThis, 'fetch');
    const { result: unknown, arrived } = await arriving(() =>
      failureOf(
        connector.transferToBank('WALLET-A', wallet.phone, wallet.session, {
          ...bca,
          accountNumber: '5500000042',
          reference: 'ref-once',
          amount: 1000,
        }),
      ),
    );
    expect(unknown.failure).toBe('unavailable');
    expect(transferCalls(spy)).toBe(1);
    expect(arrived).toBe(1);
  });
});

describe('sandbox state file', () => {
  it('keeps the balance, the transactions and the transfers by reference across a restart', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'sandbox-transfers-')), 'sandbox-state.json');
    const first = await startSandbox({ clock, port: 0, stateFile });
    const c1 = httpConnector({ baseUrl: first.url, attempts: 1 });
    const { challengeId } = await c1.sendOtp('WALLET-A', {
      phoneNumber: '081255550051',
      pin: '123456',
      channel: 'SMS',
    });
    const { code } = (await (await fetch(`${first.url}/sandbox/otp?phone=081255550051`)).json()) as { code: string };
    const login = await c1.verifyOtp('WALLET-A', { challengeId, otp: code });
    if (login.kind !== 'session') throw new Error('no session');
    const input = { ...bca, accountNumber: '5500000051', reference: 'ref-kept', amount: 60_000 };
    const receipt = await c1.transferToBank('WALLET-A', '081255550051', login.session, input);
    const balance = await c1.fetchBalance('WALLET-A', '081255550051', login.session);
    await first.close();

    const second = await startSandbox({ clock, port: 0, stateFile });
    try {
      const c2 = httpConnector({ baseUrl: second.url, attempts: 1 });
      expect(await c2.fetchBalance('WALLET-A', '081255550051', login.session)).toBe(balance);
      expect(await c2.transferStatus('WALLET-A', '081255550051', login.session, 'ref-kept')).toEqual({
        status: 'SUCCESS',
        transactionId: receipt.transactionId,
      });
      expect(await c2.transferToBank('WALLET-A', '081255550051', login.session, input)).toEqual(receipt);
      expect(await c2.fetchBalance('WALLET-A', '081255550051', login.session)).toBe(balance);
      const history = (await c2.fetchTransactions('WALLET-A', '081255550051', login.session, null)).transactions;
      expect(history.filter(t => t.reference === 'ref-kept')).toEqual([
        expect.objectContaining({ id: receipt.transactionId, type: 'DEBIT' }),
      ]);
    } finally {
      await second.close();
    }
  });
});

describe('no provider configured', () => {
  it('every transfer method says unavailable, and the connector itself can be awaited', async () => {
    const session = { token: 't', expiresAt: '' };
    const calls = [
      unreachableProviders.listBanks('WALLET-A', '0812', session),
      unreachableProviders.inquireBankAccount('WALLET-A', '0812', session, { ...bca, accountNumber: '1234567890' }),
      unreachableProviders.transferToBank('WALLET-A', '0812', session, {
        ...bca,
        accountNumber: '1234567890',
        reference: 'r',
        amount: 1,
      }),
      unreachableProviders.payQris('WALLET-A', '0812', session, { reference: 'r', qris: 'q', amount: 1 }),
      unreachableProviders.transferStatus('WALLET-A', '0812', session, 'r'),
    ];
    for (const call of calls) expect((await failureOf(call)).failure).toBe('unavailable');
    expect(
      await Promise.race([
        Promise.resolve(unreachableProviders).then(() => 'resolved'),
        new Promise(r => setTimeout(() => r('hung'), 200)),
      ]),
    ).toBe('resolved');
  });
});
