import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import { chainState, emptyChain, type ChainState } from './ledger-chain.ts';
import { ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';

/**
 * The signed checkpoints (seq, the checkpoint as its JSON line) and where the chain stands (one row). The service only
 * ever inserts checkpoints; the state row is its working memory, rebuilt by nobody but checked by `verify-log`.
 */
export const ledgerSchema = `
  create table if not exists ledger_checkpoints (
    seq bigint primary key,
    checkpoint json not null
  );
  create table if not exists ledger_chain_state (
    id boolean primary key default true check (id),
    state jsonb not null
  );`;

/** The audit's signed checkpoints as a unit of start-up DDL, append-only like the log once the event store defined the guard. */
export const ledgerCheckpointsMigration: Migration = {
  name: 'ledger-checkpoints',
  steps: [
    `${ledgerSchema}
    select es_protect_append_only('ledger_checkpoints'::regclass)
     where to_regproc('es_protect_append_only') is not null
       and not exists (select 1 from pg_trigger where tgrelid = 'ledger_checkpoints'::regclass and tgname = 'es_append_only');`,
  ],
};

/** A checkpoint as its JSON line: the keys in the format's order. */
export const checkpointLine = (c: LedgerCheckpoint): string =>
  JSON.stringify({
    v: c.v,
    seq: c.seq,
    from: c.from,
    to: c.to,
    events: c.events,
    root: c.root,
    prev: c.prev,
    at: c.at,
    lastPosition: c.lastPosition,
    keyId: c.keyId,
    signature: c.signature,
  });

/** Every stored checkpoint, in seq order (an older database without the table has none). */
export async function listLedgerCheckpoints(db: Queryable): Promise<LedgerCheckpoint[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ checkpoint: unknown }>(
    db,
    'ListLedgerCheckpoints',
    'select checkpoint from ledger_checkpoints order by seq',
  );
  return r.rows.map(row => ledgerCheckpoint.parse(row.checkpoint));
}

/** The newest `n` stored checkpoints, oldest first. */
export async function newestLedgerCheckpoints(db: Queryable, n: number): Promise<LedgerCheckpoint[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ checkpoint: unknown }>(
    db,
    'NewestLedgerCheckpoints',
    'select checkpoint from ledger_checkpoints order by seq desc limit $1',
    [n],
  );
  return r.rows.map(row => ledgerCheckpoint.parse(row.checkpoint)).reverse();
}

/** The newest stored checkpoint, or null before the first. */
export async function latestLedgerCheckpoint(db: Queryable): Promise<LedgerCheckpoint | null> {
  return (await newestLedgerCheckpoints(db, 1))[0] ?? null;
}

async function ledgerTableExists(db: Queryable): Promise<boolean> {
  const r = await query<{ exists: boolean }>(
    db,
    'LedgerTableExists',
    `select to_regclass('ledger_checkpoints') is not null as exists`,
  );
  return r.rows[0]!.exists;
}

/** The chain's state, locked for this transaction (the empty chain before the first event). */
export async function lockedState(tx: pg.PoolClient): Promise<ChainState> {
  const r = await query<{ state: unknown }>(
    tx,
    'LockLedgerChainState',
    'select state from ledger_chain_state where id for update',
  );
  return r.rows[0] ? chainState.parse(r.rows[0].state) : emptyChain;
}

/** Inserts the new checkpoints and saves the chain's state. */
export async function saveChain(tx: pg.PoolClient, state: ChainState, checkpoints: LedgerCheckpoint[]): Promise<void> {
  if (checkpoints.length > 0)
    await query(
      tx,
      'InsertLedgerCheckpoints',
      'insert into ledger_checkpoints (seq, checkpoint) select seq, line::json from unnest($1::bigint[], $2::text[]) as c(seq, line)',
      [checkpoints.map(c => c.seq), checkpoints.map(checkpointLine)],
    );
  await query(tx, 'SaveLedgerChainState', 'update ledger_chain_state set state = $1 where id', [JSON.stringify(state)]);
}
