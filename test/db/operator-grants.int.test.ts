import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { databaseUrl } from '../../src/db/embedded.ts';
import { ledgerGuardMigration } from '../../src/db/ledger-guard.ts';
import { migrate } from '../../src/db/migrations.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { warnIfLogRewritable } from '../../src/db/service-role.ts';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';

const as = (url: string, user: string, password: string) => {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
};

const warningsOf = async (url: string) => {
  const told: string[] = [];
  const pool = createPool(url, 1);
  await warnIfLogRewritable(
    pool,
    createLogger('warn', new Writable({ write: (c, _e, done) => void (told.push(String(c)), done()) })),
  );
  await pool.end();
  return told;
};

describe('the grants docs/operating.md gives for DATABASE_URL (an owner role for migrations, a role for the service)', () => {
  it('leave the service a role that adds to the log and cannot rewrite it, and stop the warning', async () => {
    const n = randomUUID().replaceAll('-', '').slice(0, 12);
    const [ownerRole, appRole, database] = [`owner_${n}`, `app_${n}`, `payments_${n}`];
    const superuser = createPool(inject('postgresServerUrl'), 1);
    // docs/operating.md's first block, as a superuser
    await query(
      superuser,
      'Roles',
      `create role ${ownerRole} login password 'o'; create role ${appRole} login password 'a'; grant ${appRole} to ${ownerRole}`,
    );
    await query(superuser, 'Database', `create database ${database} owner ${ownerRole}`);
    await superuser.end();
    const ownerUrl = as(databaseUrl(inject('postgresServerUrl'), database), ownerRole, 'o');
    const appUrl = as(ownerUrl, appRole, 'a');
    const owner = createPool(ownerUrl, 1);
    await query(
      owner,
      'Grants',
      `grant connect, create, temporary on database ${database} to ${appRole}; grant usage, create on schema public to ${appRole}`,
    );

    // the service's first start, as its role: it creates everything and is told it owns the log
    const app = createPool(appUrl, 4);
    const first = await PostgresEventStore.create(app, { listen: false });
    await first.append('user-1', [newEvent('UserRegistered')], 'no_stream');
    await first.close();
    expect((await warningsOf(appUrl)).join()).toContain(`${appRole} owns es_events`);
    await migrate(app, [ledgerGuardMigration]); // the ledger's guard, as the service's start applies it

    // docs/operating.md's second block, as the owner role
    await query(
      owner,
      'TakeOver',
      `alter function es_refuse_rewrite() owner to ${ownerRole};
      alter function es_protect_append_only(regclass) owner to ${ownerRole};
      select es_protect_append_only('es_events');
      select es_protect_append_only(to_regclass('ledger_checkpoints'));`,
    );
    // and its third: the ledger's guard, the service's grants narrowed, its key registered
    await query(
      owner,
      'TakeOverGuard',
      `alter table ledger_keys owner to ${ownerRole};
      alter function ledger_checkpoint_signed_text(json) owner to ${ownerRole};
      alter function ledger_append_checkpoints(json[]) owner to ${ownerRole};
      alter function ledger_ed25519_int(bytea) owner to ${ownerRole};
      alter function ledger_ed25519_pow(numeric, numeric) owner to ${ownerRole};
      alter function ledger_ed25519_add(numeric[], numeric[]) owner to ${ownerRole};
      alter function ledger_ed25519_point(bytea) owner to ${ownerRole};
      alter function ledger_ed25519_verify(bytea, bytea, bytea) owner to ${ownerRole};
      select es_protect_append_only('ledger_keys');
      revoke insert on es_events, ledger_checkpoints, ledger_keys from ${appRole};
      grant insert (stream_id, revision, event_id, type, version, data, metadata, correlation_id, causation_id, actor, occurred_at)
        on es_events to ${appRole};`,
    );

    // the next start: no warning; it appends and reads, and may not rewrite
    expect(await warningsOf(appUrl)).toEqual([]);
    const again = await PostgresEventStore.create(app, { listen: false });
    await again.append('user-1', [newEvent('UserRenamed')], 0);
    expect((await again.readStream('user-1')).map(e => e.type)).toEqual(['UserRegistered', 'UserRenamed']);
    await again.close();
    for (const sql of [
      'update es_events set version = 2',
      'delete from es_events',
      'truncate es_events',
      'alter table es_events disable trigger es_append_only',
      'delete from ledger_checkpoints',
      `insert into ledger_checkpoints (seq, checkpoint) values (0, '{}')`,
      `insert into ledger_keys (key_id, public_key) values ('0123456789abcdef', 'x')`,
      `insert into es_events (position, stream_id, revision, event_id, type, version, data, metadata)
       overriding system value values (1, 'user-1', 9, gen_random_uuid(), 'X', 1, '{}', '{}')`,
    ])
      expect(
        await query(app, 'Tamper', sql).then(
          () => null,
          (err: { code?: string }) => err.code,
        ),
        sql,
      ).toBe('42501');
    // checkpoints go in through the owner's function alone, which refuses what it cannot verify
    expect(
      await query(app, 'Forge', `select ledger_append_checkpoints(array['{"v":1,"seq":0}'::json])`).then(
        () => null,
        (err: { code?: string }) => err.code,
      ),
    ).toBe('ES422');
    expect(
      await query(owner, 'Tamper', 'delete from es_events').then(
        () => null,
        (err: { code?: string }) => err.code,
      ),
    ).toBe('ES403');
    await app.end();
    await owner.end();
  });
});
