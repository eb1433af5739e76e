import pg from 'pg';
import type { Logger } from '../logger.ts';
import { appendedEventColumns, eventLogMigration } from '../store/postgres-schema.ts';
import { ledgerGuardFunctionNames, ledgerGuardMigration, registerLedgerKey } from './ledger-guard.ts';
import { applyPending, inSessionTransaction, withMigrationLock } from './migrations.ts';
import { createPool, query, type Queryable } from './pool.ts';

/** The login role the service's queries run as in embedded mode: it may add to the event log, never rewrite it. */
export const serviceRole = 'service_app';

/** Functions the hand-over leaves with the superuser: whoever owns one may replace what it checks. */
const ownerFunctions = ['es_refuse_rewrite', 'es_protect_append_only', ...ledgerGuardFunctionNames];

/**
 * Everything of ours that the connecting role (the superuser) owns, handed to the service's role: read models,
 * es_streams, snapshots, checkpoints, the job queue's schema (an older database has them all owned by
 * the superuser, and the service drops and recreates read models). The append-only tables, the functions that protect
 * them and the ledger's guard (src/db/ledger-guard.ts) stay with the superuser; so does anything of an extension.
 */
const handOverSql = (role: string) => `
do $$
declare
  app constant text := ${pg.escapeLiteral(role)};
  mine constant regrole := current_user::regrole;
  r record;
begin
  for r in
    select n.nspname from pg_namespace n
     where n.nspowner = mine and n.nspname not in ('public', 'information_schema') and n.nspname not like 'pg\\_%'
  loop
    execute format('alter schema %I owner to %I', r.nspname, app);
  end loop;
  for r in
    select c.oid::regclass as name,
           case c.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'S' then 'sequence' when 'f' then 'foreign table' else 'table' end as kind
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relowner = mine and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
       and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
       and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'es_append_only')
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid
                        and (d.deptype = 'e' or (c.relkind = 'S' and d.deptype in ('a', 'i'))))
  loop
    execute format('alter %s %s owner to %I', r.kind, r.name, app);
  end loop;
  for r in
    select p.oid::regprocedure as name, case p.prokind when 'a' then 'aggregate' else 'routine' end as kind
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where p.proowner = mine and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
       and p.proname not in (${ownerFunctions.map(f => pg.escapeLiteral(f)).join(', ')})
       and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  loop
    execute format('alter %s %s owner to %I', r.kind, r.name, app);
  end loop;
  for r in
    select t.oid::regtype as name, case t.typtype when 'd' then 'domain' else 'type' end as kind
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where t.typowner = mine and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
       and (t.typtype in ('e', 'd', 'r') or (t.typtype = 'c' and exists (select 1 from pg_class c where c.oid = t.typrelid and c.relkind = 'c')))
       and not exists (select 1 from pg_depend d where d.classid = 'pg_type'::regclass and d.objid = t.oid and d.deptype = 'e')
  loop
    execute format('alter %s %s owner to %I', r.kind, r.name, app);
  end loop;
end $$`;

/**
 * What the service's role may do to the tables it must not rewrite: read them; add events naming none of the columns
 * the database fills (position, transaction id); add checkpoints only through ledger_append_checkpoints (executable by
 * everyone: it checks what it is given). Revoked first, so a grant of an older start (INSERT on all) goes.
 */
const appendOnlyGrantsSql = (role: string) => `
revoke insert on es_events, ledger_checkpoints, ledger_keys from ${role};
grant select on es_events, ledger_checkpoints, ledger_keys to ${role};
grant insert (${appendedEventColumns.join(', ')}) on es_events to ${role};`;

/**
 * Run as the superuser on the service's database at every start: the service's role exists with this password, may
 * create what it needs (read models, the job queue's schema), owns everything but the append-only tables and the
 * ledger's guard, and may only read those and add to them as appendOnlyGrantsSql says; the ledger's key, when given,
 * is registered (src/db/ledger-guard.ts). Answers the URL the service connects with. All of it under the lock every
 * instance's DDL takes (src/db/migrations.ts): the service's role creating its tables meanwhile would race the hand-over.
 */
export async function prepareServiceRole(
  ownerUrl: string,
  opts: { role: string; password: string; ledgerKey?: { keyId: string; publicKey: string } },
): Promise<string> {
  const owner = createPool(ownerUrl, 1);
  const role = pg.escapeIdentifier(opts.role);
  try {
    await withMigrationLock(owner, async client => {
      await inSessionTransaction(client, async () => {
        const exists = await query(client, 'FindServiceRole', 'select 1 from pg_roles where rolname = $1', [opts.role]);
        const password = pg.escapeLiteral(opts.password);
        await query(
          client,
          'SetServiceRole',
          `${exists.rowCount ? 'alter' : 'create'} role ${role} login nosuperuser nocreaterole nocreatedb noreplication nobypassrls password ${password}`,
        );
        const database = (await query<{ name: string }>(client, 'CurrentDatabase', 'select current_database() as name'))
          .rows[0]!.name;
        await query(
          client,
          'GrantServiceDatabase',
          `grant connect, create, temporary on database ${pg.escapeIdentifier(database)} to ${role}`,
        );
        await query(client, 'GrantServiceSchema', `grant usage, create on schema public to ${role}`);
      });
      // schema_migrations is made here on a new database, and handed over with the rest
      await applyPending(owner, client, [eventLogMigration, ledgerGuardMigration]);
      await inSessionTransaction(client, async () => {
        await query(client, 'HandOverToServiceRole', handOverSql(opts.role));
        await query(client, 'GrantAppendOnly', appendOnlyGrantsSql(role));
        if (opts.ledgerKey) await registerLedgerKey(client, opts.ledgerKey);
      });
    });
  } finally {
    await owner.end();
  }
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(opts.role);
  url.password = encodeURIComponent(opts.password);
  return url.toString();
}

/**
 * With DATABASE_URL the service connects as it is told; a role that is a superuser or owns the log could switch the
 * trigger off and rewrite history, so the log says so once, with what to do (docs/operating.md, "The event log and the database roles").
 */
export async function warnIfLogRewritable(db: Queryable, log: Logger): Promise<void> {
  const result = await query<{ role: string; superuser: boolean; owns: boolean }>(
    db,
    'FindServiceRolePowers',
    `select current_user as role, r.rolsuper as superuser,
            coalesce((select pg_has_role(current_user, c.relowner, 'usage') from pg_class c where c.oid = to_regclass('es_events')), false) as owns
       from pg_roles r where r.rolname = current_user`,
  );
  const powers = result.rows[0];
  if (!powers || (!powers.superuser && !powers.owns)) return;
  log.warn(
    { role: powers.role, superuser: powers.superuser, ownsEventLog: powers.owns },
    `the service's database role ${powers.role} ${powers.superuser ? 'is a superuser' : 'owns es_events'}: it could disable the append-only trigger and rewrite the event log; ` +
      'connect as a role with only the grants given in docs/operating.md ("The event log and the database roles"), with an owner role running the migrations',
  );
}
