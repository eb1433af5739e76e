import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { startSandbox } from '../../src/providers/sandbox/server.ts';
import { expectStatus, sandboxHarness } from './sandbox-harness.ts';

/** The sandbox keeps its state in a JSON file: written shortly after changes and on close, read at start. */
const freshFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'sandbox-state-')), 'nested', 'sandbox-state.json');
const bank = { username: 'rina', password: 'rahasia', accountNumber: '4400000001' };

describe('sandbox state file', () => {
  it('reloads accounts, passwords, sessions, the inbox and virtual accounts', async () => {
    const stateFile = freshFile();
    const clock = new TestClock();
    const first = await sandboxHarness({ clock, stateFile });
    const { sessionToken } = (await first.loginBank('BANK-BNI', bank)).json();
    await first.addTransaction({
      providerCode: 'BANK-BNI',
      accountRef: '4400000001',
      type: 'CREDIT',
      amount: 12_345,
      senderName: 'SIMPAN',
    });
    const balance = await first.balanceOf('BANK-BNI', '4400000001', sessionToken);
    await first.post('/providers/WALLET-B/otp', { phoneNumber: '081244440001' });
    const code = await first.otpOf('081244440001');
    await first.post('/sandbox/virtual-accounts', {
      providerCode: 'WALLET-A',
      accountRef: '081244440002',
      vaNumber: '8808444400001',
    });
    await first.close();
    expect(existsSync(stateFile)).toBe(true);

    const second = await sandboxHarness({ clock, stateFile });
    try {
      expect(await second.balanceOf('BANK-BNI', '4400000001', sessionToken)).toBe(balance);
      expectStatus(await second.loginBank('BANK-BNI', { ...bank, password: 'lain' }), 401, 'INVALID_CREDENTIALS');
      expectStatus(await second.loginBank('BANK-BNI', bank), 200);
      expect(await second.otpOf('081244440001')).toBe(code);
      expectStatus(await second.post('/sandbox/payments', { vaNumber: '8808444400001', amount: 1000 }), 201);
      const history = (await second.get('/providers/BANK-BNI/accounts/4400000001/transactions', sessionToken)).json()
        .transactions;
      expect(history.at(-1)).toMatchObject({ senderName: 'SIMPAN', amount: 12_345 });
    } finally {
      await second.close();
    }
  });

  it('writes shortly after a change, without waiting for close', async () => {
    const stateFile = freshFile();
    const sandbox = await sandboxHarness({ stateFile });
    try {
      await sandbox.addTransaction({ providerCode: 'WALLET-E', accountRef: '081244440003', type: 'CREDIT', amount: 1 });
      await expect.poll(() => existsSync(stateFile), { timeout: 2000 }).toBe(true);
      const written = JSON.parse(readFileSync(stateFile, 'utf8'));
      expect(written.accounts[0]).toMatchObject({ providerCode: 'WALLET-E', accountRef: '081244440003' });
    } finally {
      await sandbox.close();
    }
  });

  it('keeps the file readable by its owner only (it holds session tokens), including one written before', async () => {
    const stateFile = freshFile();
    const mode = () => statSync(stateFile).mode & 0o777;
    const first = await sandboxHarness({ stateFile });
    try {
      const { sessionToken } = await first.loginWallet('WALLET-E', '081244440004');
      await expect.poll(() => existsSync(stateFile), { timeout: 2000 }).toBe(true);
      expect(readFileSync(stateFile, 'utf8')).toContain(sessionToken);
      expect(mode()).toBe(0o600);
    } finally {
      await first.close();
    }
    chmodSync(stateFile, 0o644);
    writeFileSync(`${stateFile}.${process.pid}.tmp`, '', { mode: 0o644 }); // a leftover of a crashed write
    const second = await sandboxHarness({ stateFile });
    try {
      expect(mode()).toBe(0o600);
      await second.addTransaction({ providerCode: 'WALLET-E', accountRef: '081244440004', type: 'CREDIT', amount: 1 });
    } finally {
      await second.close();
    }
    expect(mode()).toBe(0o600);
  });

  it('moves an unreadable state file aside and starts empty', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'sandbox-state-')), 'sandbox-state.json');
    writeFileSync(stateFile, '{"version": 9');
    const sandbox = await sandboxHarness({ stateFile });
    try {
      expect((await sandbox.get('/sandbox/accounts')).json()).toEqual({ accounts: [] });
      expect(existsSync(`${stateFile}.unreadable`)).toBe(true);
    } finally {
      await sandbox.close();
    }
  });
});

describe('startSandbox', () => {
  it('listens on a free port and answers over real HTTP', async () => {
    const started = await startSandbox({ clock: new TestClock(), port: 0 });
    try {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${started.url}/health`)).json()).toEqual({ status: 'ok' });
    } finally {
      await started.close();
    }
  });
});
