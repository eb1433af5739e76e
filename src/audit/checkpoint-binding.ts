import type pg from 'pg';
import { query } from '../db/pool.ts';
import { comparePositions, START, type EventStore, type Position } from '../store/event-store.ts';
import { readCheckpointRows } from './ledger-checkpoint-rows.ts';
import {
  checkpointHash,
  checkpointSignatureValid,
  eventLeafV2,
  genesisHash,
  keyIdOf,
  type LedgerCheckpoint,
} from './ledger-format.ts';
import { keyChain } from './ledger-keys.ts';
import { appendLeaf, leafHash, rootOf, type Frontier } from './merkle.ts';
import { logEvents } from './stream-pages.ts';

/**
 * What a figure folded from the log is bound to: the newest signed checkpoint, checked before the figure is given. The
 * check is narrower than `verify-log` (which recomputes every range and the daily digests) and covers what the figure
 * relies on: every checkpoint row well-formed, linked to the one before (seq, from, prev) and signed with the key in
 * force at it, the keys followed through the chain's rotations to the service's own; the root of every range that holds an event the figure folded, and of the newest range, recomputed from the
 * log; and, on PostgreSQL, the log holding exactly the newest checkpoint's `to` events up to its last position (an
 * event removed or added anywhere before it shows there). An event changed in a range the figure does not rely on is
 * `verify-log`'s to find.
 */
export type CheckpointBinding = {
  seq: number;
  hash: string;
  /** the log's events [0, to) are signed by it and the chain before it */
  to: number;
  at: string;
  /** the checkpoints whose ranges were recomputed */
  rangesChecked: number[];
  /** events folded that lie after it: not signed yet */
  unsignedEvents: number;
};

/** The log does not verify up to the checkpoint a figure would be bound to: the figure is not given. */
export class LedgerNotVerified extends Error {}

const parsePosition = (text: string): Position | null => {
  const m = /^(-?\d+)\/(-?\d+)$/.exec(text);
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : null;
};

/**
 * Whether each checkpoint is signed by the key in force at it, the keys followed through the chain's rotations
 * (ledger-keys.ts) from `firstKey`, the key of the chain's first checkpoint, to one of `serviceKeys`: a first key
 * nobody rotated to the service's key proves nothing, since a rotation is signed by the key it hands over to. Null
 * when they are, else what is wrong.
 */
export function chainKeysProblem(
  chain: readonly LedgerCheckpoint[],
  firstKey: string | null,
  serviceKeys: readonly string[],
): string | null {
  if (chain.length === 0) return null;
  if (!firstKey) return `checkpoint 0 is signed by key ${chain[0]!.keyId}, which the database does not hold`;
  const keys = keyChain(chain, firstKey);
  if (keys.findings.length > 0) return keys.findings[0]!.problem;
  if (!serviceKeys.includes(keys.current.publicKey))
    return `the chain's keys lead to key ${keys.current.keyId}, not the service's`;
  const bad = chain.find(c => !checkpointSignatureValid(c, keys.keyAt(c.seq).publicKey));
  return bad ? `checkpoint ${bad.seq}: its signature does not verify with the service's key` : null;
}

/** The public key of the chain's first checkpoint: the service's when it signed it, else as the owner registered it. */
async function firstKeyOf(pool: pg.Pool, chain: LedgerCheckpoint[], serviceKeys: string[]): Promise<string | null> {
  const keyId = chain[0]?.keyId;
  if (keyId === undefined) return null;
  const own = serviceKeys.find(k => keyIdOf(k) === keyId);
  if (own) return own;
  const registered = await query<{ public_key: string }>(
    pool,
    'LedgerKeyOfFirstCheckpoint',
    'select public_key from ledger_keys where key_id = $1',
    [keyId],
  ).catch(() => ({ rows: [] as { public_key: string }[] }));
  return registered.rows[0]?.public_key ?? null;
}

/** The stored chain, every checkpoint well-formed, linked to the one before and signed as chainKeysProblem says. */
async function checkedChain(pool: pg.Pool, publicKeys: string[]): Promise<LedgerCheckpoint[]> {
  const chain: LedgerCheckpoint[] = [];
  for (const row of await readCheckpointRows(pool)) {
    if (!('checkpoint' in row)) throw new LedgerNotVerified(`checkpoint row ${row.seq} is malformed: ${row.malformed}`);
    const c = row.checkpoint;
    const before = chain.at(-1);
    const expected = before
      ? { seq: before.seq + 1, from: before.to, prev: checkpointHash(before) }
      : { seq: 0, from: 0, prev: genesisHash };
    if (c.seq !== expected.seq || c.from !== expected.from || c.prev !== expected.prev || c.events !== c.to - c.from)
      throw new LedgerNotVerified(
        `checkpoint ${c.seq} does not follow checkpoint ${before?.seq ?? '(none)'}: the chain is broken`,
      );
    if (!parsePosition(c.lastPosition))
      throw new LedgerNotVerified(`checkpoint ${c.seq}: its last position ${c.lastPosition} is no position`);
    chain.push(c);
  }
  const problem = chainKeysProblem(chain, await firstKeyOf(pool, chain, publicKeys), publicKeys);
  if (problem) throw new LedgerNotVerified(problem);
  return chain;
}

/** The root of checkpoint `i`'s range recomputed from the log (its events read from the last position before it). */
async function checkRange(store: EventStore, chain: LedgerCheckpoint[], i: number): Promise<void> {
  const c = chain[i]!;
  const after = i === 0 ? START : parsePosition(chain[i - 1]!.lastPosition)!;
  let frontier: Frontier = [];
  let count = 0;
  let last: Position | null = null;
  for await (const e of logEvents(store, after)) {
    if (count === c.events) break;
    frontier = appendLeaf(frontier, leafHash(eventLeafV2(e)));
    last = e.position;
    count++;
  }
  const lastPosition = parsePosition(c.lastPosition)!;
  if (count !== c.events || rootOf(frontier) !== c.root || (last && comparePositions(last, lastPosition) !== 0))
    throw new LedgerNotVerified(
      `the events [${c.from}, ${c.to}) of the log no longer make checkpoint ${c.seq}'s signed root: an event in them was changed, added or removed (verify-log names it)`,
    );
}

/** On PostgreSQL: the log holds exactly `to` events up to the newest checkpoint's last position. */
async function checkCount(pool: pg.Pool, newest: LedgerCheckpoint): Promise<void> {
  const p = parsePosition(newest.lastPosition)!;
  const r = await query<{ n: string }>(
    pool,
    'CountLogUpToCheckpoint',
    'select count(*)::text as n from es_events where (transaction_id, position) <= ($1::text::xid8, $2::bigint)',
    [String(p.commit), String(p.prepare)],
  );
  if (Number(r.rows[0]!.n) !== newest.to)
    throw new LedgerNotVerified(
      `the log holds ${r.rows[0]!.n} events up to checkpoint ${newest.seq}'s last position, it signed ${newest.to}: events were removed or added`,
    );
}

/** The first checkpoint whose last position is at or after `p` (ends ascending), or ends.length: by halves. */
function firstEndingAtOrAfter(ends: Position[], p: Position): number {
  let [low, high] = [0, ends.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (comparePositions(ends[mid]!, p) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The checkpoint figures folded from the events at `folded` (their log positions) are bound to, once the log verifies
 * up to it as CheckpointBinding says; null before the first checkpoint. Throws LedgerNotVerified.
 */
export async function bindToCheckpoint(
  deps: { store: EventStore; pool: pg.Pool },
  publicKeys: string[],
  folded: Position[],
): Promise<CheckpointBinding | null> {
  const chain = await checkedChain(deps.pool, publicKeys);
  const newest = chain.at(-1);
  if (!newest) return null;
  const ends = chain.map(c => parsePosition(c.lastPosition)!);
  const ranges = new Set<number>([chain.length - 1]);
  let unsignedEvents = 0;
  for (const p of folded) {
    const i = firstEndingAtOrAfter(ends, p);
    if (i === ends.length) unsignedEvents++;
    else ranges.add(i);
  }
  if (deps.store.kind === 'postgres') await checkCount(deps.pool, newest);
  const rangesChecked = [...ranges].sort((a, b) => a - b);
  for (const i of rangesChecked) await checkRange(deps.store, chain, i);
  return {
    seq: newest.seq,
    hash: checkpointHash(newest),
    to: newest.to,
    at: newest.at,
    rangesChecked: rangesChecked.map(i => chain[i]!.seq),
    unsignedEvents,
  };
}
