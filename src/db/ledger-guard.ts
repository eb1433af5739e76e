import type { Logger } from '../logger.ts';
import { ed25519FunctionNames, ed25519Functions } from './ed25519-sql.ts';
import { keyRotationStep } from './ledger-key-rotation.ts';
import type { Migration } from './migrations.ts';
import { query, type Queryable } from './pool.ts';

/**
 * What decides which checkpoints the database takes, kept by the tables' owner (the superuser in embedded mode, never
 * the service's role there): the public keys a checkpoint may be signed with (`ledger_keys`, append-only) and the one
 * way in to `ledger_checkpoints`, `ledger_append_checkpoints`, which takes a checkpoint only as the next one (its seq,
 * its `from` the last one's `to`, its `prev` the hash of the last one's signed text) signed by a registered key. The
 * service's role may read both tables and call the function, and no more: with its credentials alone, no forged,
 * malformed or out-of-order checkpoint gets in, so nothing can jam the chain or be published as the service's.
 */

/** The owner's functions, never handed to the service's role (who could otherwise replace them). */
export const ledgerGuardFunctionNames = [
  'ledger_checkpoint_signed_text',
  'ledger_append_checkpoints',
  ...ed25519FunctionNames,
] as const;

/** SQLSTATE of a checkpoint the database refuses. */
export const checkpointRefused = 'ES422';

// created by the owner here: a table the service's role created would be its own until protected, and the protection
// leaves its creator INSERT. Same definition as src/audit/ledger-checkpoint-rows.ts ledgerSchema (a released step).
const tables = `
create table if not exists ledger_checkpoints (
  seq bigint primary key,
  checkpoint json not null
);
-- a key id is the first 16 hex digits of the SHA-256 of the public key's DER (base64 SPKI of an Ed25519 key)
create table if not exists ledger_keys (
  key_id text primary key,
  public_key text not null check (public_key ~ '^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$'),
  registered_at timestamptz not null default now(),
  check (key_id = left(encode(sha256(decode(public_key, 'base64')), 'hex'), 16))
);
select es_protect_append_only(to_regclass(t)) from unnest(array['ledger_checkpoints', 'ledger_keys']) t
 where to_regproc('es_protect_append_only') is not null
   and not exists (select 1 from pg_trigger where tgrelid = to_regclass(t) and tgname = 'es_append_only');`;

/**
 * The text a checkpoint's signature covers and its hash is taken of, as src/audit/ledger-format.ts checkpointSignedText
 * makes it ("ledger-checkpoint:v1:" and the canonical JSON of every field but the signature, keys sorted); null for a
 * value that is not a checkpoint of the format (its fields, their types, nothing more).
 */
const signedText = `
create or replace function ledger_checkpoint_signed_text(c json) returns text
language plpgsql immutable as $$
declare
  j jsonb;
begin
  j := c::jsonb;
  if jsonb_typeof(j) is distinct from 'object'
     or (select count(*) from jsonb_object_keys(j)) <> 11
     or not j ?& array['v', 'seq', 'from', 'to', 'events', 'root', 'prev', 'at', 'lastPosition', 'keyId', 'signature']
     or j->'v' <> '1'::jsonb
     or exists (select from unnest(array['seq', 'from', 'to', 'events']) k
                 where jsonb_typeof(j->k) <> 'number' or (j->>k)::numeric not between 0 and 9007199254740991
                    or (j->>k)::numeric <> trunc((j->>k)::numeric))
     or exists (select from unnest(array['root', 'prev', 'at', 'lastPosition', 'keyId', 'signature']) k
                 where jsonb_typeof(j->k) <> 'string')
     or j->>'root' !~ '^[0-9a-f]{64}$' or j->>'prev' !~ '^[0-9a-f]{64}$'
  then
    return null;
  end if;
  return 'ledger-checkpoint:v1:{"at":' || to_json(j->>'at')::text
    || ',"events":' || (j->>'events')::numeric::bigint
    || ',"from":' || (j->>'from')::numeric::bigint
    || ',"keyId":' || to_json(j->>'keyId')::text
    || ',"lastPosition":' || to_json(j->>'lastPosition')::text
    || ',"prev":' || to_json(j->>'prev')::text
    || ',"root":' || to_json(j->>'root')::text
    || ',"seq":' || (j->>'seq')::numeric::bigint
    || ',"to":' || (j->>'to')::numeric::bigint
    || ',"v":1}';
exception when others then
  return null; -- not JSON jsonb takes (a \\u0000 in a string)
end $$;`;

/** The only way in to ledger_checkpoints: each line the next checkpoint, signed by a registered key, or all refused. */
const appendCheckpoints = `
create or replace function ledger_append_checkpoints(lines json[]) returns void
language plpgsql security definer as $$
declare
  line json;
  j jsonb;
  signed text;
  last record;
  next_seq bigint := 0;
  prev text := repeat('0', 64);
  next_from numeric := 0;
  key text;
begin
  -- one writer at a time: the last checkpoint is read, then the next one written
  lock table ledger_checkpoints in share row exclusive mode;
  foreach line in array lines loop
    signed := ledger_checkpoint_signed_text(line);
    if signed is null then
      raise exception 'ledger checkpoint refused: not a well-formed checkpoint' using errcode = '${checkpointRefused}';
    end if;
    j := line::jsonb;
    select seq, checkpoint into last from ledger_checkpoints order by seq desc limit 1;
    if found then
      prev := ledger_checkpoint_signed_text(last.checkpoint);
      if prev is null then
        raise exception 'ledger checkpoint refused: checkpoint row % is malformed, nothing is added after it', last.seq
          using errcode = '${checkpointRefused}';
      end if;
      prev := encode(sha256(convert_to(prev, 'UTF8')), 'hex');
      next_seq := last.seq + 1;
      next_from := (last.checkpoint::jsonb->>'to')::numeric;
    end if;
    if (j->>'seq')::numeric <> next_seq or j->>'prev' <> prev or (j->>'from')::numeric <> next_from
       or (j->>'to')::numeric - (j->>'from')::numeric <> (j->>'events')::numeric then
      raise exception 'ledger checkpoint refused: seq % is not the next checkpoint (seq %, from %, prev %)',
        j->>'seq', next_seq, next_from, left(prev, 16) using errcode = '${checkpointRefused}';
    end if;
    select k.public_key into key from ledger_keys k where k.key_id = j->>'keyId';
    if key is null then
      raise exception 'ledger checkpoint refused: key % is not registered', j->>'keyId' using errcode = '${checkpointRefused}';
    end if;
    if j->>'signature' !~ '^[A-Za-z0-9+/]{86}==$'
       or not ledger_ed25519_verify(substring(decode(key, 'base64') from 13), convert_to(signed, 'UTF8'), decode(j->>'signature', 'base64')) then
      raise exception 'ledger checkpoint refused: the signature of seq % does not verify with key %', next_seq, j->>'keyId'
        using errcode = '${checkpointRefused}';
    end if;
    insert into ledger_checkpoints (seq, checkpoint) values (next_seq, line);
  end loop;
end $$;`;

// the functions resolve names in pg_catalog first, then the schema they are made in, nothing else: the service's role
// may create objects in that schema, never one that a call here would take for its own
const pinSearchPath = `
do $$
declare
  f regprocedure;
begin
  for f in select p.oid::regprocedure from pg_proc p
            where p.pronamespace = current_schema()::regnamespace and p.proname = any(array['${ledgerGuardFunctionNames.join("', '")}']) loop
    execute format('alter function %s set search_path = pg_catalog, %I, pg_temp', f, current_schema());
  end loop;
end $$;`;

/** The owner's unit: in embedded mode applied by the superuser before the hand-over, else by the connecting role. */
export const ledgerGuardMigration: Migration = {
  name: 'ledger-guard',
  steps: [
    [tables, ed25519Functions, signedText, appendCheckpoints, pinSearchPath].join('\n'),
    // key rotations (src/db/ledger-key-rotation.ts)
    keyRotationStep(checkpointRefused, pinSearchPath),
  ],
};

/**
 * Registers the ledger's public key (base64 SPKI DER) as one checkpoints may be signed with. Run by the owner at start
 * in embedded mode; with DATABASE_URL by the service itself, which may be refused (an owner apart holds the table):
 * then the key must be registered by that owner, and without it every checkpoint is refused (the service says so).
 */
export async function registerLedgerKey(
  db: Queryable,
  key: { keyId: string; publicKey: string },
  log?: Logger,
): Promise<void> {
  try {
    await query(
      db,
      'RegisterLedgerKey',
      'insert into ledger_keys (key_id, public_key) values ($1, $2) on conflict (key_id) do nothing',
      [key.keyId, key.publicKey],
    );
  } catch (err) {
    if ((err as { code?: string }).code !== '42501') throw err;
    const found = await query(db, 'FindLedgerKey', 'select 1 from ledger_keys where key_id = $1', [key.keyId]);
    if (found.rowCount === 0)
      log?.warn(
        { keyId: key.keyId, publicKey: key.publicKey },
        `the ledger's key ${key.keyId} is not registered and this role may not register it: the database refuses every checkpoint until the owner of ledger_keys inserts it`,
      );
  }
}
