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

/** What a test gives the service beyond its environment; `beside` starts a second instance of that one. */
export type TestServiceOptions = Pick<ServiceOptions, 'webhooks' | 'log'> & { beside?: TestService };

/**
 * The whole service on a fresh database of the run's PostgreSQL, with a clock the test moves and a wall clock (the
 * sessions' time) that stands at the real time of the start until a test moves it. `beside` an instance: a second
 * instance of it instead, as behind a load balancer, on its database, data folder (so its secrets), ledger
 * checkpoints and sandbox, with its clocks.
 */
export async function startTestService(
  env: Record<string, string> = {},
  options: TestServiceOptions = {},
): Promise<TestService> {
  const { beside, ...serviceOptions } = options;
  const config = loadConfig({
    ...(beside ? sharedWith(beside) : await freshPlace()),
    // a DATABASE_URL gets no generated ledger key
    DIGEST_SIGNING_KEY: testSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    // the sandbox pushes no notifications unless a test asks (a push checks at once, ahead of the cadence tests count)
    SANDBOX_PUSH: 'none',
    ...env,
  });
  const clock = beside?.clock ?? new TestClock();
  const wallClock = beside?.wallClock ?? new TestClock(new Date());
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
    ...serviceOptions,
  });
  checkAnswersAgainstDocument(service.app);
  return Object.assign(service, { clock, wallClock, config });
}

const freshPlace = async () => ({
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-test-data-')),
  DATABASE_URL: await freshDatabaseUrl(),
});

// a SANDBOX_URL: the second instance calls the first one's sandbox and starts none of its own
const sharedWith = (first: TestService) => ({
  DATA_DIR: first.config.dataDir,
  DATABASE_URL: first.config.databaseUrl!,
  LEDGER_CHECKPOINT_DIR: first.config.ledgerCheckpointDir,
  SANDBOX_URL: first.sandboxUrl!,
});

/** Two instances of the service on one database (the second beside the first), both under `env`. */
export async function startTwoInstances(env: Record<string, string> = {}): Promise<[TestService, TestService]> {
  const first = await startTestService(env);
  try {
    return [first, await startTestService(env, { beside: first })];
  } catch (error) {
    await first.close();
    throw error;
  }
}
