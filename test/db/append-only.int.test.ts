import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPool, query } from '../../src/db/pool.ts';
import { prepareServiceRole } from '../../src/db/service-role.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshDatabaseUrl, freshServiceDatabase, withoutAppendOnlyGuard } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

/** The SQLSTATE and message a statement fails with, or null when it succeeds. */
const refusal = (db: pg.Pool, sql: string) =>
  query(db, 'Tamper', sql).then(
    () => null,
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );

const rewrites = [
  `update es_events set data = '{"name":"someone else"}'`,
  'delete from es_events where revision = 0',
  'truncate es_events',
];

let db: Awaited<ReturnType<typeof freshServiceDatabase>>;
let owner: pg.Pool;
let service: pg.Pool;
let store: PostgresEventStore;
const stream = `account-${nextUuid()}`;

beforeAll(async () => {
  db = await freshServiceDatabase();
  owner = createPool(db.ownerUrl, 4);
  service = createPool(db.url, 10);
  store = await PostgresEventStore.create(service);
  await store.append(stream, [newEvent('AccountLinked', { name: 'Budi' }), newEvent('AccountSynced')], 'no_stream');
});
afterAll(async () => {
  await store?.close();
  await service?.end();
  await owner?.end();
});

describe("the service's role", () => {
  it('adds to the event log and reads it, but may not UPDATE, DELETE or TRUNCATE it, nor switch the trigger off', async () => {
    expect(
      (
        await query(
          service,
          'WhoAmI',
          'select current_user as me, (select rolsuper from pg_roles where rolname = current_user) as su',
        )
      ).rows[0],
    ).toEqual({ me: db.role, su: false });
    await store.append(stream, [newEvent('AccountSynced')], 1);
    expect((await store.readStream(stream)).map(e => e.type)).toEqual([
      'AccountLinked',
      'AccountSynced',
      'AccountSynced',
    ]);
    for (const sql of rewrites) expect(await refusal(service, sql), sql).toMatchObject({ code: '42501' });
    expect(await refusal(service, 'alter table es_events disable trigger es_append_only')).toMatchObject({
      code: '42501',
    });
    expect(await refusal(service, 'drop table es_events')).toMatchObject({ code: '42501' });
    expect(
      await refusal(
        service,
        'create or replace function es_refuse_rewrite() returns trigger language plpgsql as $$ begin return null; end $$',
      ),
    ).toMatchObject({ code: '42501' });
    expect((await query(owner, 'CountEvents', 'select count(*)::int as n from es_events')).rows[0]!.n).toBe(3);
  });

  it('keeps full rights on everything else: streams, its own tables and schemas (read models, the job queue)', async () => {
    expect(
      await refusal(service, `update es_streams set revision = revision where stream_id = '${storedStreamId(stream)}'`),
    ).toBeNull();
    expect(await refusal(service, 'create table a_read_model (id int primary key)')).toBeNull();
    expect(
      await refusal(
        service,
        'insert into a_read_model values (1); update a_read_model set id = 2; delete from a_read_model; truncate a_read_model',
      ),
    ).toBeNull();
    expect(await refusal(service, 'drop table a_read_model')).toBeNull();
    expect(
      await refusal(
        service,
        'create schema scratch_replay; create table scratch_replay.t (id int); drop schema scratch_replay cascade',
      ),
    ).toBeNull();
  });

  it('protects a table it creates itself by calling es_protect_append_only, for good', async () => {
    await query(service, 'CreateMarks', 'create table audit_marks (seq bigint primary key, root text not null)');
    await query(service, 'Protect', `select es_protect_append_only('audit_marks')`);
    expect(await refusal(service, `insert into audit_marks values (1, 'a'), (2, 'b')`)).toBeNull();
    expect((await query(service, 'ReadMarks', 'select count(*)::int as n from audit_marks')).rows[0]!.n).toBe(2);
    for (const sql of [`update audit_marks set root = 'x'`, 'delete from audit_marks', 'truncate audit_marks'])
      expect(await refusal(service, sql), sql).toMatchObject({ code: '42501' });
    expect(await refusal(owner, `update audit_marks set root = 'x'`)).toEqual({
      code: 'ES403',
      message: 'audit_marks is append-only',
    });
    // the next start prepares the role again: the table stays protected, and the service may still add to it
    await prepareServiceRole(db.ownerUrl, { role: db.role, password: 'test-service-role' });
    expect(await refusal(service, `insert into audit_marks values (3, 'c')`)).toBeNull();
    expect(await refusal(service, 'delete from audit_marks')).toMatchObject({ code: '42501' });
  });
});

describe('the append-only trigger', () => {
  it('refuses UPDATE, DELETE and TRUNCATE to the superuser too, until the owner switches it off', async () => {
    for (const sql of rewrites)
      expect(await refusal(owner, sql), sql).toEqual({ code: 'ES403', message: 'es_events is append-only' });
    const changed = await withoutAppendOnlyGuard(
      owner,
      async client =>
        (
          await query(
            client,
            'Tamper',
            `update es_events set data = '{"name":"someone else"}' where stream_id = $1 and revision = 0`,
            [storedStreamId(stream)],
          )
        ).rowCount,
    );
    expect(changed).toBe(1);
    expect((await store.readStream(stream))[0]!.data).toEqual({ name: 'someone else' });
    expect(await refusal(owner, 'delete from es_events')).toMatchObject({ code: 'ES403' }); // on again
  });
});

describe('a database made before the role existed', () => {
  it("is handed to the service's role, all but the append-only log, which it may then only add to", async () => {
    const ownerUrl = await freshDatabaseUrl();
    const before = createPool(ownerUrl, 2);
    const old = await PostgresEventStore.create(before, { listen: false });
    await old.append('user-1', [newEvent('UserRegistered')], 'no_stream');
    await query(
      before,
      'OldReadModel',
      `create table users (id int primary key); create schema graphile_worker;
      create type graphile_worker.job_spec as (identifier text); create table graphile_worker.jobs (id bigserial primary key);
      create function graphile_worker.add_job(text) returns void language sql as 'select null'`,
    );
    await old.close();
    const role = `app_${new URL(ownerUrl).pathname.slice(1)}`;
    const url = await prepareServiceRole(ownerUrl, { role, password: 'p' });
    const owners = await query<{ name: string; owner: string }>(
      before,
      'Owners',
      `
      select c.relname as name, c.relowner::regrole::text as owner from pg_class c
       where c.relname in ('es_events', 'es_streams', 'users', 'jobs', 'jobs_id_seq')
      union all select 'es_append_streams', proowner::regrole::text from pg_proc where proname = 'es_append_streams'
      union all select 'add_job', proowner::regrole::text from pg_proc where proname = 'add_job'
      union all select 'es_refuse_rewrite', proowner::regrole::text from pg_proc where proname = 'es_refuse_rewrite'
      union all select 'job_spec', typowner::regrole::text from pg_type where typname = 'job_spec'
      union all select nspname, nspowner::regrole::text from pg_namespace where nspname = 'graphile_worker'`,
    );
    expect(Object.fromEntries(owners.rows.map(r => [r.name, r.owner]))).toEqual({
      es_events: 'postgres',
      es_refuse_rewrite: 'postgres',
      es_streams: role,
      users: role,
      jobs: role,
      jobs_id_seq: role,
      es_append_streams: role,
      add_job: role,
      job_spec: role,
      graphile_worker: role,
    });
    await before.end();
    const after = createPool(url, 2);
    const reopened = await PostgresEventStore.create(after, { listen: false });
    await reopened.append('user-1', [newEvent('UserRenamed')], 0);
    expect(await refusal(after, 'drop table users')).toBeNull();
    expect(await refusal(after, 'delete from es_events')).toMatchObject({ code: '42501' });
    await reopened.close();
    await after.end();
  });
});
