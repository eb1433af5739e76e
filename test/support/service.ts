import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestClock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { checkAnswersAgainstDocument } from './contract-inject.ts';
import { freshDatabaseUrl } from './database.ts';
import { testSigningKey } from './signing-key.ts';

export type TestService = Service & { clock: TestClock; wallClock: TestClock; config: Config };

/**
 * The whole service on a fresh database of the run's PostgreSQL, with a clock the test moves and a wall clock (the
 * sessions' time) that stands at the real time of the start until a test moves it.
 */
export async function startTestService(
  env: Record<string, string> = {},
  options: Pick<ServiceOptions, 'webhooks' | 'log'> = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-test-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: await freshDatabaseUrl(),
    // a DATABASE_URL gets no generated ledger key
    DIGEST_SIGNING_KEY: testSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    // the sandbox pushes no notifications unless a test asks (a push checks at once, ahead of the cadence tests count)
    SANDBOX_PUSH: 'none',
    ...env,
  });
  const clock = new TestClock();
  const wallClock = new TestClock(new Date());
  // the scheduler ticks only when a test says so (service.accountSync.tick()), against the test clock
  const service = await createService(config, {
    clock,
    wallClock,
    log: createLogger('silent'),
    startSandbox: true,
    schedulerTickMs: 3_600_000,
    connector: { attempts: 1, backoffMs: 10, breakerHalfOpenMs: 50, timeoutMs: 5000 },
    // an answer its documented schema refuses fails the test's request (src/api/documented-responses.ts)
    strictResponses: true,
    ...options,
  });
  checkAnswersAgainstDocument(service.app);
  return Object.assign(service, { clock, wallClock, config });
}
