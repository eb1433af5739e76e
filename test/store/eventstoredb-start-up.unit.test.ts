import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { openEventStore } from '../../src/store/open.ts';
import type pg from 'pg';

/** Log lines as pino writes them, one JSON object each. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
  return { lines, log: createLogger('info', destination as unknown as NodeJS.WritableStream) };
}

const noPool = {} as pg.Pool; // the KurrentDB store never touches PostgreSQL's pool

describe('opening KurrentDB at start-up', () => {
  // a port that accepts nothing: connecting fails at once, as with a KurrentDB still starting
  let closedPort: number;
  let server: Server;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    closedPort = (server.address() as { port: number }).port;
    await new Promise<void>(resolve => server.close(() => resolve()));
  });
  afterAll(() => server.close());

  it('tries again with a growing, bounded pause and a log line each time, then gives up', async () => {
    const { lines, log } = capturedLog();
    const waits: number[] = [];
    const config = {
      eventStore: 'eventstoredb' as const,
      eventStoreConnectionString: `kurrentdb://127.0.0.1:${closedPort}?tls=false`,
      logLevel: 'info' as const,
    };
    await expect(openEventStore(config, noPool, { log, wait: async ms => void waits.push(ms) })).rejects.toThrow();
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000]);
    expect(lines.map(l => l.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(String(lines[0]!.msg)).toContain('try 1 of 10');
  }, 60_000);

  it('fails at once on a connection string that is not KurrentDB', async () => {
    const { lines, log } = capturedLog();
    const config = {
      eventStore: 'eventstoredb' as const,
      eventStoreConnectionString: 'postgres://localhost/events',
      logLevel: 'info' as const,
    };
    await expect(openEventStore(config, noPool, { log, wait: async () => undefined })).rejects.toThrow(
      /not a KurrentDB connection string/,
    );
    expect(lines).toEqual([]);
  });
});
