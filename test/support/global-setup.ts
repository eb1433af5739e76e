import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresServerUrl: string;
  }
}

let server: EmbeddedDatabase | undefined;
let dir: string | undefined;

/** One embedded PostgreSQL for the whole run; every test file makes its own database in it. */
export async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresServerUrl', given);
    return;
  }
  dir = mkdtempSync(path.join(tmpdir(), 'svc-test-pg-'));
  chmodSync(dir, 0o755);
  server = await startEmbeddedPostgres({ dataDir: dir, password: 'test' });
  project.provide('postgresServerUrl', server.url);
}

export async function teardown() {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
