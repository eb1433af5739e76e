import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { serviceRole } from '../../src/db/service-role.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { openDatabase } from '../../src/service.ts';
import { writeDataFiles } from '../../src/start-files.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-role-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Opens the embedded database as the service does, appends one event through it, and says who it was. */
async function startOnce() {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  writeDataFiles(config.dataFiles); // the passwords are kept before the database is made
  const { url, embedded } = await openDatabase(config, createLogger('silent'));
  const pool = createPool(url, 4);
  try {
    const store = await PostgresEventStore.create(pool, { listen: false });
    await store.append(`user-${Date.now()}`, [newEvent('UserRegistered')], 'no_stream');
    await store.close();
    const me = await query<{ me: string; su: boolean; owns: boolean }>(
      pool,
      'WhoAmI',
      `select current_user as me, r.rolsuper as su,
      pg_has_role(current_user, (select relowner from pg_class where oid = 'es_events'::regclass), 'usage') as owns
      from pg_roles r where r.rolname = current_user`,
    );
    const refused = await query(pool, 'Tamper', 'delete from es_events').then(
      () => null,
      (err: { code?: string }) => err.code,
    );
    return { url, who: me.rows[0], refused };
  } finally {
    await pool.end();
    await embedded?.stop();
  }
}

describe('the embedded database', () => {
  it("is used as a restricted role, its password kept in DATA_DIR's secrets, across restarts", async () => {
    const first = await startOnce();
    expect(new URL(first.url).username).toBe(serviceRole);
    expect(first.who).toEqual({ me: serviceRole, su: false, owns: false });
    expect(first.refused).toBe('42501');
    const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(new URL(first.url).password).toBe(encodeURIComponent(secrets.serviceRolePassword!));
    const second = await startOnce();
    expect(second.who).toEqual({ me: serviceRole, su: false, owns: false });
  });
});
