import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { prepareServiceRole } from '../../src/db/service-role.ts';
import { createLogger } from '../../src/logger.ts';
import { projections } from '../../src/projections/all.ts';
import { paymentsProjection } from '../../src/projections/payments.ts';
import { createService, type Service } from '../../src/service.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { testSigningKey } from '../support/signing-key.ts';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * One instance as the embedded mode starts it (src/service.ts openDatabase): the owner prepares the service's role and
 * runs the event log's DDL, then the service connects as that role; or, with `asOwner`, as one role (DATABASE_URL).
 */
async function startInstance(ownerUrl: string, role: string | null): Promise<Service> {
  const url = role ? await prepareServiceRole(ownerUrl, { role, password: 'test-service-role' }) : ownerUrl;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-together-'));
  dataDirs.push(dataDir);
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    DIGEST_SIGNING_KEY: testSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
  });
  return createService(config, { clock: new TestClock(), log: createLogger('silent'), schedulerTickMs: 3_600_000 });
}

/** Two instances started at the same moment on an empty database; both must start. */
async function startTwoTogether(withServiceRole: boolean) {
  const ownerUrl = await freshDatabaseUrl();
  const role = withServiceRole ? `app_${new URL(ownerUrl).pathname.slice(1)}` : null;
  const started = await Promise.allSettled([startInstance(ownerUrl, role), startInstance(ownerUrl, role)]);
  const services = started.flatMap(s => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = started.flatMap(s => (s.status === 'rejected' ? [String(s.reason)] : []));
  return { ownerUrl, services, failures };
}

async function appliedUnits(url: string): Promise<string[]> {
  const pool = createPool(url, 1);
  try {
    const r = await query<{ name: string }>(pool, 'ListMigrations', 'select name from schema_migrations order by name');
    return r.rows.map(row => row.name);
  } finally {
    await pool.end();
  }
}

/** The payments read model's steps, numbered from 1. */
const paymentSteps = paymentsProjection.schema.map((_, i) => i + 1);

describe('several instances starting together on an empty database', () => {
  for (const [round, withServiceRole] of [
    [1, true],
    [2, false],
    [3, true],
  ] as const) {
    it(`both start, and the version table lists what start-up ran (round ${round}, ${withServiceRole ? "the service's role" : 'one role'})`, async () => {
      const { ownerUrl, services, failures } = await startTwoTogether(withServiceRole);
      try {
        expect(failures).toEqual([]);
        expect(services).toHaveLength(2);
        for (const service of services)
          expect((await service.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
        const units = await appliedUnits(ownerUrl);
        expect(units).toEqual(
          expect.arrayContaining([
            'event-log',
            'event-streams',
            'subscriber-checkpoints',
            'stream-snapshots',
            'webhook-delivery-log',
            'queue-runners',
            'daily-digests',
            'ledger-checkpoints',
            'graphile-worker',
            ...projections.map(p => `read-model:${p.name}`),
          ]),
        );
      } finally {
        for (const service of services) await service.close();
      }
    }, 120_000);
  }

  it('a later start skips what is unchanged and applies again what changed', async () => {
    const ownerUrl = await freshDatabaseUrl();
    const first = await startInstance(ownerUrl, null);
    await first.close();
    const pool = createPool(ownerUrl, 1);
    try {
      const before = await query<{ name: string; step: number; applied_at: Date }>(
        pool,
        'ListMigrations',
        'select name, step, applied_at from schema_migrations',
      );
      await query(
        pool,
        'ForgetChecksum',
        `update schema_migrations set checksum = 'changed' where name = 'read-model:payments' and step = 3`,
      );
      const second = await startInstance(ownerUrl, null);
      await second.close();
      const after = await query<{ name: string; step: number; applied_at: Date; checksum: string }>(
        pool,
        'ListMigrations',
        'select name, step, applied_at, checksum from schema_migrations',
      );
      const was = new Map(before.rows.map(r => [`${r.name} ${r.step}`, r.applied_at.getTime()]));
      const reapplied = after.rows
        .filter(r => r.applied_at.getTime() !== was.get(`${r.name} ${r.step}`))
        .map(r => `${r.name} ${r.step}`);
      expect(reapplied).toEqual(['read-model:payments 3']);
      expect(
        after.rows
          .filter(r => r.name === 'read-model:payments')
          .map(r => r.step)
          .sort((a, b) => a - b),
      ).toEqual(paymentSteps);
      expect(after.rows.find(r => r.name === 'read-model:payments' && r.step === 3)!.checksum).toMatch(
        /^[0-9a-f]{64}$/,
      );
    } finally {
      await pool.end();
    }
  }, 120_000);

  it('a database migrated before the steps were numbered (a row per unit) starts, and its units are recorded by step', async () => {
    const ownerUrl = await freshDatabaseUrl();
    const pool = createPool(ownerUrl, 1);
    try {
      await query(
        pool,
        'OldVersionTable',
        `create table schema_migrations (name text primary key, checksum text not null, applied_at timestamptz not null default now());
        insert into schema_migrations (name, checksum) values ('read-model:payments', 'an old checksum of the whole text')`,
      );
      const service = await startInstance(ownerUrl, null);
      await service.close();
      const rows = await query<{ name: string; step: number }>(
        pool,
        'ListMigrations',
        `select name, step from schema_migrations where name = 'read-model:payments' order by step`,
      );
      expect(rows.rows.map(r => r.step)).toEqual(paymentSteps);
    } finally {
      await pool.end();
    }
  }, 120_000);
});
