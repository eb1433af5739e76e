import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createService } from '../../src/service.ts';
import type { WebhookSettings } from '../../src/webhooks/settings.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import type { TestService } from '../support/service.ts';
import { testSigningKey } from '../support/signing-key.ts';

/** startTestService (test/support/service.ts), with webhook settings the environment cannot give (schedule, resolver). */
export async function startWebhookTestService(
  env: Record<string, string>,
  webhooks: Partial<WebhookSettings> = {},
  clock: TestClock = new TestClock(),
): Promise<TestService> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-test-data-')),
    DATABASE_URL: await freshDatabaseUrl(),
    DIGEST_SIGNING_KEY: testSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const wallClock = new TestClock(new Date());
  const service = await createService(config, {
    clock,
    wallClock,
    log: createLogger('silent'),
    schedulerTickMs: 3_600_000,
    webhooks,
  });
  return Object.assign(service, { clock, wallClock, config });
}

/** A short schedule for tests: four attempts a few tens of milliseconds apart. */
export const shortSchedule: Partial<WebhookSettings> = { retryDelaysMs: [0, 50, 50, 50], pollIntervalMs: 100 };

export type Received = { headers: http.IncomingHttpHeaders; body: string; receivedAt: number; closed: boolean };
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/** A TestClock that follows the wall clock, for tests that compare logged times with when things really happened. */
export class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

/**
 * A webhook receiver on 127.0.0.1: records every request and answers as `answer` says for the n-th one (0-based).
 * 'hang' never answers, `delayMs` answers that much later; `closed` tells when the sender gave up on the request.
 */
export async function startReceiver(answer: (n: number) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const entry: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        closed: false,
      };
      const reply = answer(received.length);
      received.push(entry);
      res.on('close', () => (entry.closed = true));
      if (reply === 'hang') return;
      const send = () => {
        if (!entry.closed) res.writeHead(reply.status, reply.headers).end();
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}
