import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresServerUrl: string;
  }
}

type Server = { url: string; stop: () => Promise<void> };

// the int and e2e projects each run this setup (in one vitest process): they share one server, stopped by the last
const shared = globalThis as typeof globalThis & { testPostgres?: { server: Promise<Server>; users: number } };

async function start(): Promise<Server> {
  // imported here, once per run: src/db/embedded.ts unhooks async-exit-hook's events as it loads, and a second
  // project's setup loading it again in this process would throw
  const { startEmbeddedPostgres } = await import('../../src/db/embedded.ts');
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-pg-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: dir, password: 'test' });
  // as root with a TMPDIR the postgres user cannot enter, the data lives outside dir (src/db/embedded-root.ts)
  const movedOut = path.relative(dir, server.databaseDir).startsWith('..') ? path.dirname(server.databaseDir) : null;
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
      if (movedOut) rmSync(movedOut, { recursive: true, force: true });
    },
  };
}

/** One embedded PostgreSQL for the whole run; every test file makes its own database in it. */
export async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresServerUrl', given);
    return;
  }
  shared.testPostgres ??= { server: start(), users: 0 };
  shared.testPostgres.users++;
  project.provide('postgresServerUrl', (await shared.testPostgres.server).url);
}

export async function teardown() {
  const running = shared.testPostgres;
  if (!running || --running.users > 0) return;
  shared.testPostgres = undefined;
  await (await running.server).stop();
}
