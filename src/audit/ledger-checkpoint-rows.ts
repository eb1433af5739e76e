import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import { chainState, emptyChain, type ChainState } from './ledger-chain.ts';
import { checkpointHash, genesisHash, ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';
import { canonicalJson } from './merkle.ts';

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

/** A checkpoint as its JSON line: the keys in the format's order, a rotation's two last (absent ones left out). */
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
    nextKey: c.nextKey,
    nextKeySignature: c.nextKeySignature,
  });

/** A checkpoint row as read: its checkpoint, or what makes it none (a finding for verify-log and the leader, never a crash). */
export type CheckpointRow = { seq: number; checkpoint: LedgerCheckpoint } | { seq: number; malformed: string };

function rowOf(seq: string, value: unknown): CheckpointRow {
  const parsed = ledgerCheckpoint.safeParse(value);
  if (!parsed.success)
    return {
      seq: Number(seq),
      malformed: parsed.error.issues.map(i => `${i.path.join('.') || 'the row'}: ${i.message}`).join('; '),
    };
  if (String(parsed.data.seq) !== seq) return { seq: Number(seq), malformed: `it says seq ${parsed.data.seq}` };
  return { seq: Number(seq), checkpoint: parsed.data };
}

/**
 * Every checkpoint row in seq order, or the newest `newest` of them (still in seq order); none without the table. The
 * order names the table's column: a bare `seq` would be the text output column, and '10' sorts before '2'.
 */
export async function readCheckpointRows(db: Queryable, newest?: number): Promise<CheckpointRow[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ seq: string; checkpoint: unknown }>(
    db,
    newest === undefined ? 'ListLedgerCheckpoints' : 'NewestLedgerCheckpoints',
    newest === undefined
      ? 'select c.seq::text, c.checkpoint from ledger_checkpoints c order by c.seq'
      : 'select c.seq::text, c.checkpoint from ledger_checkpoints c order by c.seq desc limit $1',
    newest === undefined ? [] : [newest],
  );
  const rows = r.rows.map(row => rowOf(row.seq, row.checkpoint));
  return newest === undefined ? rows : rows.reverse();
}

const wellFormed = (rows: CheckpointRow[]): LedgerCheckpoint[] =>
  rows.flatMap(r => ('checkpoint' in r ? [r.checkpoint] : []));

/** Every stored checkpoint, in seq order (an older database without the table has none); a malformed row is left out. */
export async function listLedgerCheckpoints(db: Queryable): Promise<LedgerCheckpoint[]> {
  return wellFormed(await readCheckpointRows(db));
}

/** The newest `n` stored checkpoints, oldest first, malformed rows among them left out. */
export async function newestLedgerCheckpoints(db: Queryable, n: number): Promise<LedgerCheckpoint[]> {
  return wellFormed(await readCheckpointRows(db, n));
}

/** The well-formed checkpoints from seq `fromSeq` on, at most `limit`, in seq order (a malformed row leaves a gap). */
export async function checkpointsFrom(db: Queryable, fromSeq: number, limit: number): Promise<LedgerCheckpoint[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ seq: string; checkpoint: unknown }>(
    db,
    'LedgerCheckpointsFrom',
    'select c.seq::text, c.checkpoint from ledger_checkpoints c where c.seq >= $1 order by c.seq limit $2',
    [fromSeq, limit],
  );
  return wellFormed(r.rows.map(row => rowOf(row.seq, row.checkpoint)));
}

/** The newest stored checkpoint that is one (a malformed row after it is the leader's and verify-log's finding), or null. */
export async function latestLedgerCheckpoint(db: Queryable): Promise<LedgerCheckpoint | null> {
  const rows = await readCheckpointRows(db, 1);
  if (rows.length === 0 || 'checkpoint' in rows[0]!) return wellFormed(rows)[0] ?? null;
  return (await listLedgerCheckpoints(db)).at(-1) ?? null;
}

async function ledgerTableExists(db: Queryable): Promise<boolean> {
  const r = await query<{ exists: boolean }>(
    db,
    'LedgerTableExists',
    `select to_regclass('ledger_checkpoints') is not null as exists`,
  );
  return r.rows[0]!.exists;
}

/** The chain's state as stored (the empty chain before the first event); `forUpdate` locks it for the transaction. */
export async function readChainState(db: Queryable, forUpdate = false): Promise<ChainState> {
  const r = await query<{ state: unknown }>(
    db,
    forUpdate ? 'LockLedgerChainState' : 'ReadLedgerChainState',
    `select state from ledger_chain_state where id${forUpdate ? ' for update' : ''}`,
  );
  if (!r.rows[0]) return emptyChain;
  const parsed = chainState.safeParse(r.rows[0].state);
  if (!parsed.success)
    throw new Error(
      `ledger checkpoints: the chain's state is malformed: ${parsed.error.issues.map(i => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The state row differs from what the chain's leader last wrote: someone else changed it (a finding, never a crash). */
export class ChainStateChanged extends Error {
  constructor(readonly finding: string) {
    super(`ledger checkpoints: ${finding}; nothing is signed until an operator accepts it`);
  }
}

/** The fields in which two chain states differ, in the state's order. */
export const stateDifferences = (a: ChainState, b: ChainState): string[] =>
  (Object.keys(chainState.shape) as (keyof ChainState)[]).filter(k => canonicalJson(a[k]) !== canonicalJson(b[k]));

/**
 * The chain's state, locked for this transaction, once it is known to be the one the leader last wrote (`written`) and
 * to continue the newest checkpoint row. The row is the service role's, so the leader keeps its own copy and never
 * signs from one that differs: a difference is a finding, unless another leader made it (this one lost its lock
 * unnoticed): then the chain's position moved (`positionMoved`, read under the state's lock), or a checkpoint past the
 * state written is signed, which takes the signing key. Either is an error that stands this one down.
 */
export async function lockedState(
  tx: pg.PoolClient,
  written: ChainState,
  positionMoved: () => Promise<boolean>,
): Promise<ChainState> {
  const state = await readChainState(tx, true);
  if (await positionMoved()) throw new Error('ledger checkpoints: another instance chained this range');
  const changed = stateDifferences(written, state);
  if (changed.length > 0) {
    const [newest] = await readCheckpointRows(tx, 1);
    if (newest && newest.seq >= written.seq) throw new Error('ledger checkpoints: another instance signed on');
    throw new ChainStateChanged(
      `the chain's state (ledger_chain_state) was changed outside the leader: its ${changed.join(', ')} ${changed.length === 1 ? 'is' : 'are'} not what the leader wrote before checkpoint ${written.seq}`,
    );
  }
  const refusal = await chainRefusal(tx, state);
  if (refusal) throw new Error(`ledger checkpoints: ${refusal}; nothing is signed past it`);
  return state;
}

/**
 * Why the leader may not sign on from this state, or null: the newest row must be a checkpoint and the state must
 * continue it (its seq, prev and first event). The database takes nothing else (src/db/ledger-guard.ts), so signing
 * on would only be refused; and the state is the service role's own table, which anyone with its credentials can edit.
 */
export async function chainRefusal(tx: Queryable, state: ChainState): Promise<string | null> {
  const [last] = await readCheckpointRows(tx, 1);
  if (last && 'malformed' in last) return `checkpoint row ${last.seq} is malformed: ${last.malformed}`;
  const expected = last
    ? { seq: last.checkpoint.seq + 1, prev: checkpointHash(last.checkpoint), from: last.checkpoint.to }
    : { seq: 0, prev: genesisHash, from: 0 };
  if (state.seq === expected.seq && state.prev === expected.prev && state.from === expected.from) return null;
  return `the chain's state (seq ${state.seq}, from event ${state.from}) does not continue ${last ? `checkpoint ${last.seq}` : 'the empty chain'} (seq ${expected.seq}, from event ${expected.from}): it was changed outside the leader`;
}

/** Inserts the new checkpoints (through the owner's function, which checks each) and saves the chain's state. */
export async function saveChain(tx: pg.PoolClient, state: ChainState, checkpoints: LedgerCheckpoint[]): Promise<void> {
  if (checkpoints.length > 0)
    await query(tx, 'AppendLedgerCheckpoints', 'select ledger_append_checkpoints($1::json[])', [
      checkpoints.map(checkpointLine),
    ]);
  await query(tx, 'SaveLedgerChainState', 'update ledger_chain_state set state = $1 where id', [JSON.stringify(state)]);
}
