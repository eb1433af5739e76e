import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { databaseUrl } from '../../src/db/embedded.ts';
import { createPool, inTransaction, query } from '../../src/db/pool.ts';
import { prepareServiceRole } from '../../src/db/service-role.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { appendOnlyTrigger } from '../../src/store/postgres-schema.ts';
import { testSigningKey } from './signing-key.ts';

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

/** A fresh database with the PostgreSQL event store on it; both are closed by what the test runs from `closing`. */
export async function freshEventLog(
  closing: (() => Promise<void>)[],
): Promise<{ pool: pg.Pool; store: PostgresEventStore }> {
  const pool = await freshPool();
  const store = await PostgresEventStore.create(pool);
  closing.push(
    () => pool.end(),
    () => store.close(),
  );
  return { pool, store };
}

/**
 * A fresh database prepared as the embedded service prepares its own (src/db/service-role.ts): the superuser's URL, and
 * the URL of the restricted role the service connects as. A role per database: roles belong to the whole server.
 */
export async function freshServiceDatabase(): Promise<{ ownerUrl: string; url: string; role: string }> {
  const ownerUrl = await freshDatabaseUrl();
  const role = `app_${new URL(ownerUrl).pathname.slice(1)}`;
  // the owner registers the tests' ledger key, as the embedded service's start registers its own
  const url = await prepareServiceRole(ownerUrl, {
    role,
    password: 'test-service-role',
    ledgerKey: digestSigner(testSigningKey()),
  });
  return { ownerUrl, url, role };
}

/**
 * Runs `work` with the append-only trigger of `table` switched off, as an insider with the superuser's connection has to
 * before tampering with the log (the pool must be the table owner's or a superuser's); on again afterwards.
 */
export async function withoutAppendOnlyGuard<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  table = 'es_events',
): Promise<T> {
  return inTransaction(pool, async client => {
    await query(
      client,
      'DisableAppendOnly',
      `alter table ${pg.escapeIdentifier(table)} disable trigger ${appendOnlyTrigger}`,
    );
    const result = await work(client);
    await query(
      client,
      'EnableAppendOnly',
      `alter table ${pg.escapeIdentifier(table)} enable trigger ${appendOnlyTrigger}`,
    );
    return result;
  });
}
