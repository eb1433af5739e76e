import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { writeDataFiles } from '../src/start-files.ts';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'svc-config-'));

describe('configuration', () => {
  it('has embedded defaults for everything', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config).toMatchObject({
      port: 3000,
      sandboxPort: 3001,
      databaseUrl: undefined,
      eventStore: 'postgres',
      publicBaseUrl: 'http://localhost:3000',
      logLevel: 'info',
      webhookAllowPrivate: false,
      sandbox: { start: true, host: '127.0.0.1' },
      http: {
        requestTimeoutSeconds: 30,
        headersTimeoutSeconds: 10,
        idleTimeoutSeconds: 60,
        keepAliveTimeoutSeconds: 72,
        maxConnections: 2048,
      },
    });
  });

  it('starts the sandbox on embedded defaults only, elsewhere when asked, and never with NODE_ENV=production', () => {
    const database = { DATABASE_URL: 'postgres://u:p@db:5432/x' };
    const start = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), ...env }).sandbox.start;
    expect(start({})).toBe(true);
    expect(start(database)).toBe(false);
    expect(start({ ...database, SANDBOX: 'true' })).toBe(true);
    expect(start({ SANDBOX: 'false' })).toBe(false);
    expect(start({ SANDBOX_PORT: '0' })).toBe(false);
    expect(start({ SANDBOX_URL: 'http://sandbox:3001' })).toBe(false);
    expect(start({ NODE_ENV: 'production' })).toBe(false);
    expect(() => loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', SANDBOX: 'true' })).toThrow(
      /SANDBOX: refused with NODE_ENV=production/,
    );
    expect(loadConfig({ DATA_DIR: dataDir(), SANDBOX_HOST: '0.0.0.0' }).sandbox.host).toBe('0.0.0.0');
  });

  it('has the gateway numbers of the interface Limits table, each overridable', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).gateway).toEqual({
      vaFee: 3000,
      qrisFee: { rateBp: 70, flat: 200 },
      limits: { qris: { min: 1000, max: 10_000_000 }, va: { min: 10_000, max: 50_000_000 } },
      minWithdrawal: 50_000,
    });
    const tuned = loadConfig({
      DATA_DIR: dataDir(),
      GATEWAY_VA_FEE: '4000',
      GATEWAY_QRIS_FEE_FLAT: '750',
      GATEWAY_MIN_WITHDRAWAL: '10000',
    });
    expect(tuned.gateway).toMatchObject({ vaFee: 4000, qrisFee: { rateBp: 70, flat: 750 }, minWithdrawal: 10_000 });
    expect(() => loadConfig({ DATA_DIR: dataDir(), GATEWAY_QRIS_FEE_RATE_BP: '0.7' })).toThrow(ConfigError);
  });

  it('keeps the webhook log and failed jobs 30 days, sessions until they are over, pruned 1,000 rows a statement, each overridable', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).retention).toEqual({
      webhookDays: 30,
      failedJobDays: 30,
      endedSessionDays: 0,
      batchRows: 1000,
      pauseMs: 100,
    });
    const tuned = loadConfig({ DATA_DIR: dataDir(), RETENTION_WEBHOOK_DAYS: '7', RETENTION_BATCH_ROWS: '200' });
    expect(tuned.retention).toMatchObject({ webhookDays: 7, batchRows: 200 });
    // a retention of none would delete deliveries as they finish: at least a day
    expect(() => loadConfig({ DATA_DIR: dataDir(), RETENTION_WEBHOOK_DAYS: '0' })).toThrow(ConfigError);
    expect(loadConfig({ DATA_DIR: dataDir(), RETENTION_ENDED_SESSIONS_DAYS: '2' }).retention.endedSessionDays).toBe(2);
    expect(() => loadConfig({ DATA_DIR: dataDir(), RETENTION_ENDED_SESSIONS_DAYS: '-1' })).toThrow(ConfigError);
  });

  it('keeps the test clock off unless asked, and refuses it with DATABASE_URL unless forced', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).testClock).toBe(false);
    expect(loadConfig({ DATA_DIR: dataDir(), TEST_CLOCK: 'true' }).testClock).toBe(true);
    const shared = { DATA_DIR: dataDir(), TEST_CLOCK: 'true', DATABASE_URL: 'postgres://db.example/service' };
    expect(() => loadConfig(shared)).toThrow(/TEST_CLOCK: refused with DATABASE_URL/);
    expect(loadConfig({ ...shared, TEST_CLOCK_FORCE: 'true' }).testClock).toBe(true);
  });

  it('generates missing secrets once and keeps them in the data folder, readable only by the owner', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    writeDataFiles(first.dataFiles);
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey).toBe(first.encryptionKey);
    const file = path.join(dir, 'secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).jwtSecret).toBe(first.jwtSecret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('prefers secrets given in the environment', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: 'x'.repeat(40), ENCRYPTION_KEY: 'ab'.repeat(32) });
    expect(config.jwtSecret).toBe('x'.repeat(40));
    expect(config.encryptionKey).toBe('ab'.repeat(32));
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ EVENT_STORE: 'mongo' }, 'EVENT_STORE'],
    [{ EVENT_STORE: 'eventstoredb' }, 'EVENTSTORE_CONNECTION_STRING'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ ENCRYPTION_KEY: 'nothex' }, 'ENCRYPTION_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ])('refuses %o naming %s', (env, name) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(name);
  });

  it('reads TRUST_PROXY as fastify takes it: off by default, true, a hop count, or addresses and CIDRs', () => {
    expect(loadConfig({ DATA_DIR: dataDir() })).toMatchObject({
      trustProxy: false,
      sessionIdleHours: 12,
      metricsToken: undefined,
    });
    expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: '10.0.0.0/8, ::1,127.0.0.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      '127.0.0.1',
    ]);
    for (const bad of ['yes', 'proxy.local', '10.0.0.0/33', '300.1.1.1'])
      expect(() => loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
  });

  it('refuses private webhook targets in every mode unless WEBHOOK_ALLOW_PRIVATE=true', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://u:p@db:5432/x' }).webhookAllowPrivate).toBe(
      false,
    );
    expect(loadConfig({ DATA_DIR: dataDir(), WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
  });
});

describe('logs', () => {
  it('never hold secrets: passwords, PINs, OTPs, keys, cookies and tokens are redacted', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const log = createLogger('info', sink);
    log.info(
      {
        req: {
          headers: { cookie: 'svc_token=abc.def.ghi', 'x-api-key': 'svc_live_secret', authorization: 'Bearer t' },
        },
        body: { password: 'rahasia123', pin: '123456', otp: '9876' },
        key: 'svc_live_shown_once',
        config: { jwtSecret: 'jwt-secret-value', encryptionKey: 'enc-key-value' },
      },
      'something happened',
    );
    const written = lines.join('');
    for (const secret of [
      'abc.def.ghi',
      'svc_live_secret',
      'Bearer t',
      'rahasia123',
      '123456',
      '9876',
      'svc_live_shown_once',
      'jwt-secret-value',
      'enc-key-value',
    ])
      expect(written).not.toContain(secret);
    expect(written).toContain('something happened');
    expect(written).toContain('[redacted]');
  });
});
