import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from '../../src/db/embedded.ts';
import { createPool } from '../../src/db/pool.ts';

/** A new empty database on the run's PostgreSQL, for one test file. */
export async function freshDatabaseUrl(): Promise<string> {
  const serverUrl = inject('postgresServerUrl');
  const name = `test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(serverUrl, name);
}

export async function freshPool(max = 10): Promise<pg.Pool> {
  return createPool(await freshDatabaseUrl(), max);
}
