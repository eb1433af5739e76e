import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { ProviderError } from '../../src/providers/connector.ts';
import { httpConnector } from '../../src/providers/http-connector.ts';
import { startSandbox } from '../../src/providers/sandbox/server.ts';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
beforeAll(async () => {
  sandbox = await startSandbox({ clock: new TestClock(), port: 0 });
});
afterAll(async () => sandbox?.close());

const faults = (body: Record<string, unknown>) =>
  fetch(`${sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const clearFaults = () => fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
const login = { username: 'conn', password: 'rahasia', accountNumber: '6600000001' };

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ProviderError) return err.failure;
    throw err;
  }
  return 'none';
}

describe('HTTP connector', () => {
  it('retries a safe call through transient failures', async () => {
    const connector = httpConnector({ baseUrl: sandbox.url, attempts: 3, backoffMs: 5 });
    const { session } = await connector.loginBank('BANK-BCA', login);
    await faults({ providerCode: 'BANK-BCA', failNext: 2 });
    expect(await connector.fetchBalance('BANK-BCA', login.accountNumber, session)).toBeGreaterThan(0);
    await clearFaults();
  });

  it('gives up after its attempts and says the provider is unavailable', async () => {
    const connector = httpConnector({ baseUrl: sandbox.url, attempts: 2, backoffMs: 5 });
    const { session } = await connector.loginBank('BANK-BCA', login);
    await faults({ providerCode: 'BANK-BCA', failNext: 2 });
    expect(await failure(connector.fetchBalance('BANK-BCA', login.accountNumber, session))).toBe('unavailable');
    await clearFaults();
  });

  it('times out a slow provider', async () => {
    const connector = httpConnector({ baseUrl: sandbox.url, attempts: 1, timeoutMs: 100 });
    const { session } = await connector.loginBank('BANK-BCA', login);
    await faults({ providerCode: 'BANK-BCA', latencyMs: 500 });
    const started = Date.now();
    expect(await failure(connector.fetchBalance('BANK-BCA', login.accountNumber, session))).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(450);
    await clearFaults();
  });

  it('opens the circuit of a failing provider only, and closes it when the provider recovers', async () => {
    const connector = httpConnector({ baseUrl: sandbox.url, attempts: 1, breakerThreshold: 3, breakerHalfOpenMs: 200 });
    const bca = await connector.loginBank('BANK-BCA', login);
    const bri = await connector.loginBank('BANK-BRI', login);
    await faults({ providerCode: 'BANK-BCA', outage: true });
    for (let i = 0; i < 3; i++) await failure(connector.fetchBalance('BANK-BCA', login.accountNumber, bca.session));
    await clearFaults();
    // open: refused without asking the provider, which is fine again by now
    expect(await failure(connector.fetchBalance('BANK-BCA', login.accountNumber, bca.session))).toBe('unavailable');
    expect(await connector.fetchBalance('BANK-BRI', login.accountNumber, bri.session)).toBeGreaterThan(0);
    await new Promise(r => setTimeout(r, 250));
    expect(await connector.fetchBalance('BANK-BCA', login.accountNumber, bca.session)).toBeGreaterThan(0);
  });

  it('tells refused credentials and expired sessions apart from outages, without retrying them', async () => {
    const connector = httpConnector({ baseUrl: sandbox.url, attempts: 3, backoffMs: 5 });
    expect(await failure(connector.loginBank('BANK-BCA', { ...login, password: 'sandbox-fail' }))).toBe(
      'invalid-credentials',
    );
    expect(
      await failure(connector.fetchBalance('BANK-BCA', login.accountNumber, { token: 'not-a-session', expiresAt: '' })),
    ).toBe('session-expired');
  });
});
