import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectStatus, sandboxHarness, type SandboxHarness } from './sandbox-harness.ts';

/** Faults switched on by tests act on the provider-facing API only, and are reproducible. */
let sandbox: SandboxHarness;
let token: string;
beforeEach(async () => {
  sandbox = await sandboxHarness();
  token = (
    await sandbox.loginBank('BANK-BRI', { username: 'andi', password: 'rahasia', accountNumber: '3300000001' })
  ).json().sessionToken;
});
afterEach(async () => sandbox.close());

const balance = () => sandbox.get('/providers/BANK-BRI/accounts/3300000001/balance', token);
const clearFaults = () => sandbox.app.inject({ method: 'DELETE', url: '/sandbox/faults' });

describe('faults', () => {
  it('outage: 503 PROVIDER_UNAVAILABLE for that provider only, until cleared; /sandbox/* keeps working', async () => {
    const set = await sandbox.faults({ providerCode: 'BANK-BRI', outage: true });
    expectStatus(set, 200);
    expect(set.json().faults).toEqual({ 'BANK-BRI': expect.objectContaining({ outage: true }) });
    expectStatus(await balance(), 503, 'PROVIDER_UNAVAILABLE');
    expectStatus(
      await sandbox.loginBank('BANK-BRI', { username: 'andi', password: 'rahasia', accountNumber: '3300000001' }),
      503,
      'PROVIDER_UNAVAILABLE',
    );
    // even a body that would be refused: the provider is down before it reads anything
    expectStatus(await sandbox.post('/providers/BANK-BRI/login', {}), 503, 'PROVIDER_UNAVAILABLE');
    expectStatus(
      await sandbox.loginBank('BANK-BCA', { username: 'andi', password: 'rahasia', accountNumber: '3300000001' }),
      200,
    );
    expectStatus(
      await sandbox.addTransaction({ providerCode: 'BANK-BRI', accountRef: '3300000001', type: 'CREDIT', amount: 10 }),
      201,
    );
    expectStatus(await sandbox.get('/sandbox/accounts'), 200);
    expect((await clearFaults()).json()).toEqual({ faults: {} });
    expectStatus(await balance(), 200);
  });

  it('outage for all providers when no providerCode is given', async () => {
    await sandbox.faults({ outage: true });
    expectStatus(await balance(), 503, 'PROVIDER_UNAVAILABLE');
    expectStatus(
      await sandbox.post('/providers/WALLET-C/otp', { phoneNumber: '081200000000' }),
      503,
      'PROVIDER_UNAVAILABLE',
    );
    expect((await sandbox.get('/sandbox/faults')).json().faults).toEqual({
      '*': expect.objectContaining({ outage: true }),
    });
  });

  it('failNext: exactly the next N provider-facing requests answer 500', async () => {
    await sandbox.faults({ providerCode: 'BANK-BRI', failNext: 2 });
    expectStatus(await sandbox.get('/sandbox/accounts'), 200); // not counted
    expectStatus(await balance(), 500, 'PROVIDER_ERROR');
    expectStatus(await balance(), 500, 'PROVIDER_ERROR');
    expectStatus(await balance(), 200);
    expect((await sandbox.get('/sandbox/faults')).json().faults).toEqual({});
    await sandbox.faults({ failNext: 1 });
    expectStatus(
      await sandbox.post('/providers/WALLET-E/login', { phoneNumber: '081200000000' }),
      500,
      'PROVIDER_ERROR',
    );
    expectStatus(await balance(), 200);
  });

  it('failureRate: a seeded share of requests fails, the same ones for the same seed', async () => {
    const run = async (s: SandboxHarness, seed: number) => {
      await s.faults({ providerCode: 'WALLET-E', failureRate: 0.5, seed });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++)
        statuses.push((await s.post('/providers/WALLET-E/login', { phoneNumber: '081200000000' })).statusCode);
      return statuses;
    };
    const other = await sandboxHarness();
    try {
      const first = await run(sandbox, 7);
      expect(await run(other, 7)).toEqual(first);
      expect(new Set(first)).toEqual(new Set([200, 500]));
      const failed = first.filter(s => s === 500).length;
      expect(failed).toBeGreaterThan(8);
      expect(failed).toBeLessThan(32);
      expect(await run(other, 8)).not.toEqual(first);
    } finally {
      await other.close();
    }
    await sandbox.faults({ providerCode: 'WALLET-E', failureRate: 1 });
    expectStatus(
      await sandbox.post('/providers/WALLET-E/login', { phoneNumber: '081200000000' }),
      500,
      'PROVIDER_ERROR',
    );
  });

  it('latencyMs: provider answers wait that long (wall time); control answers do not', async () => {
    await sandbox.faults({ providerCode: 'BANK-BRI', latencyMs: 80 });
    let started = performance.now();
    expectStatus(await balance(), 200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    started = performance.now();
    await sandbox.get('/sandbox/accounts');
    expect(performance.now() - started).toBeLessThan(75);
  });

  it('refuseLogin: logins and OTPs answer 401 LOGIN_REFUSED; open sessions keep working', async () => {
    await sandbox.faults({ refuseLogin: true });
    expectStatus(
      await sandbox.loginBank('BANK-BRI', { username: 'andi', password: 'rahasia', accountNumber: '3300000001' }),
      401,
      'LOGIN_REFUSED',
    );
    expectStatus(
      await sandbox.post('/providers/WALLET-D/login', { phoneNumber: '081200000000' }),
      401,
      'LOGIN_REFUSED',
    );
    expectStatus(await sandbox.post('/providers/WALLET-C/otp', { phoneNumber: '081200000000' }), 401, 'LOGIN_REFUSED');
    expectStatus(await balance(), 200);
    await sandbox.faults({ refuseLogin: false });
    expect((await sandbox.get('/sandbox/faults')).json().faults).toEqual({});
    expectStatus(await sandbox.post('/providers/WALLET-C/otp', { phoneNumber: '081200000000' }), 200);
  });

  it('clears one provider’s faults or all; rejects unknown switches and providers', async () => {
    await sandbox.faults({ providerCode: 'BANK-BRI', outage: true });
    await sandbox.faults({ providerCode: 'WALLET-C', requireSecondOtp: true });
    const cleared = await sandbox.app.inject({ method: 'DELETE', url: '/sandbox/faults?providerCode=BANK-BRI' });
    expect(Object.keys(cleared.json().faults)).toEqual(['WALLET-C']);
    expectStatus(await balance(), 200);
    expectStatus(await sandbox.faults({ providerCode: 'BANK-NOPE', outage: true }), 404, 'UNKNOWN_PROVIDER');
    expectStatus(await sandbox.faults({ explode: true }), 400, 'INVALID_REQUEST');
    expectStatus(await sandbox.faults({ failureRate: 2 }), 400, 'INVALID_REQUEST');
  });
});
