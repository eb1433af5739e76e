import { createHash } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import { comparePositions, START, type EventStore, type Position } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { checkpointFileTail } from './checkpoint-file.ts';
import { dayReached } from './digest-days.ts';
import { emptyChain, type ChainState } from './ledger-chain.ts';
import {
  chainRefusal,
  checkpointsFrom,
  readChainState,
  readCheckpointRows,
  saveChain,
  stateDifferences,
} from './ledger-checkpoint-rows.ts';
import { checkpointHash, genesisHash, type LedgerCheckpoint } from './ledger-format.ts';
import { ledgerIntegrity } from './ledger-integrity.ts';
import { pageLeaves, readLogPage, type LogPage, type PageLeaves } from './log-leaves.ts';
import { frontierText, pushLeafBytes, rootOf, type ByteFrontier } from './merkle.ts';

/** The chain's position among the subscribers' (the leader's subscriber name). */
export const chainPositionName = 'ledger:checkpoints';

/** What the leader found before signing: nothing when the log still extends every checkpoint it can find. */
export type SelfCheck = {
  findings: string[];
  /** findings held from before that stop signing until a reset (src/audit/ledger-integrity.ts `stopping`) */
  held: string[];
  /** the rows' newest checkpoint: what the chain goes on from */
  newest: LedgerCheckpoint | null;
  /** whether the chain's state and position hold exactly what the log has after `newest` */
  stateSound: boolean;
  /** the chain's state and position, when sound: what the leader signs on from */
  proven: ProvenState | null;
  /** the WIB day the log had reached at `newest`'s last event */
  day: string | null;
};

export type SelfCheckDeps = {
  pool: pg.Pool;
  store: EventStore;
  /** hashes a page of the log (the leader's hashing thread); on this thread when not given */
  leaves?: (page: LogPage) => Promise<PageLeaves>;
};

const short = (hash: string) => `${hash.slice(0, 16)}…`;
const pageSize = 5000;

function parsePosition(text: string): Position | null {
  const m = /^(-?\d+)\/(-?\d+)$/.exec(text);
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : null;
}

/** A public key's id, as src/audit/digest-signer.ts names a key: the first 16 hex digits of SHA-256 of its DER. */
const keyIdOf = (publicKey: string) =>
  createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16);

type Range = { count: number; root: string; frontier: ByteFrontier; last: string | null; day: string | null };

/**
 * The log's events after `after` up to `upTo` (included), hashed as the chain hashes them: count, root, last, and the
 * day the log reaches from `day`.
 */
async function recompute(deps: SelfCheckDeps, after: Position, upTo: Position, from: string | null): Promise<Range> {
  const frontier: ByteFrontier = [];
  let count = 0;
  let last: string | null = null;
  let day = from;
  // each page read while the one before is hashed, as the leader reads the log
  let reading: Promise<LogPage> | null = readLogPage(deps, after, pageSize, upTo);
  while (reading) {
    const page: LogPage = await reading;
    if (!page.last) break;
    reading = page.count === pageSize ? readLogPage(deps, page.last, pageSize, upTo) : null;
    reading?.catch(() => undefined); // awaited next, or given up with this page's failure
    const leaves = deps.leaves ? await deps.leaves(page) : pageLeaves(page.text, { chain: true, digests: false });
    for (let offset = 0; offset < 32 * page.count; offset += 32) pushLeafBytes(frontier, leaves.hashes, offset);
    for (const run of leaves.runs) day = dayReached(day, run.recordedOn);
    count += page.count;
    last = positionText(page.last);
  }
  return { count, root: rootOf(frontierText(frontier)), frontier, last, day };
}

/** Same events in the newest checkpoint's range: those after the one before's last position, `events` of them. */
async function rangeFindings(
  deps: SelfCheckDeps,
  before: LedgerCheckpoint | null,
  newest: LedgerCheckpoint,
): Promise<{ findings: string[]; day: string | null }> {
  const after = before ? parsePosition(before.lastPosition) : START;
  const upTo = parsePosition(newest.lastPosition);
  if (!after || !upTo)
    return { findings: [`checkpoint ${newest.seq}'s range has no position in the log to be read by`], day: null };
  const range = await recompute(deps, after, upTo, null);
  const at = `checkpoint ${newest.seq} (events [${newest.from}, ${newest.to}) up to position ${newest.lastPosition})`;
  if (range.count !== newest.events)
    return {
      findings: [
        `${at}: the log holds ${range.count} events there, ${newest.events} were signed: events were ${range.count < newest.events ? 'removed' : 'inserted'}`,
      ],
      day: range.day,
    };
  if (range.last !== newest.lastPosition)
    return { findings: [`${at}: the log has no event at its last position: it was removed`], day: range.day };
  if (range.root !== newest.root)
    return {
      findings: [`${at}: the root recomputed from the log differs from the signed one: an event in it was changed`],
      day: range.day,
    };
  return { findings: [], day: range.day };
}

/** The chain's state and position as proved from the rows and the log: what a new leader signs on from. */
export type ProvenState = { chain: ChainState; position: Position };

type Pending = { findings: string[]; proven: ProvenState | null };

/**
 * Nothing missing at the end, nothing added: the pending events the chain's state counts are in the log up to the
 * chain's position and recompute to its frontier, and the day is the one the log reaches (`day` at `newest`'s last
 * event; undefined when not known). The row is the service role's, so all of it is proved, none of it trusted.
 */
async function pendingFindings(
  deps: SelfCheckDeps,
  newest: LedgerCheckpoint | null,
  day: string | null | undefined,
): Promise<Pending> {
  let state: ChainState;
  try {
    state = await readChainState(deps.pool);
  } catch (err) {
    return { findings: [(err as Error).message], proven: null };
  }
  const refusal = await chainRefusal(deps.pool, state);
  if (refusal) return { findings: [`the chain's state: ${refusal}`], proven: null };
  const position = await readCheckpoint(deps.pool, chainPositionName);
  const from = newest ? parsePosition(newest.lastPosition)! : START;
  const after = newest ? `checkpoint ${newest.seq}` : 'the start of the log';
  const refused = (finding: string): Pending => ({ findings: [finding], proven: null });
  if (comparePositions(position, from) < 0)
    return refused(
      `the chain's position ${positionText(position)} is before the last event of ${after}: it was moved back`,
    );
  const pending = await recompute(deps, from, position, day ?? null);
  if (pending.count !== state.events || (state.events > 0 && pending.last !== state.lastPosition))
    return refused(
      `the chain's state counts ${state.events} events after ${after} (the last at ${state.lastPosition ?? 'none'}), the log holds ${pending.count} up to the chain's position (the last at ${pending.last ?? 'none'}): events were removed or inserted`,
    );
  if (pending.count > 0 && rootOf(frontierText(pending.frontier)) !== rootOf(state.frontier))
    return refused(
      `the ${state.events} events after ${after} do not recompute to the chain state's frontier: one was changed`,
    );
  const made = { ...state, frontier: frontierText(pending.frontier), lastPosition: pending.last };
  if (day !== undefined) made.day = pending.day;
  // when the pending events began is the leader's clock, not the log's: a time exactly while events are pending
  const since =
    state.since === null ? pending.count === 0 : pending.count > 0 && !Number.isNaN(Date.parse(state.since));
  const differ = [...stateDifferences(made, state), ...(since ? [] : ['since'])];
  if (differ.length > 0)
    return refused(
      `the chain's state after ${after} is not what the log makes of it (its ${differ.join(', ')}): it was changed outside the leader`,
    );
  return { findings: [], proven: { chain: state, position } };
}

/**
 * The newest checkpoint that left the server (the file's newest line not in the rows, the last one this process
 * published) that is not the rows' checkpoint of its seq: the rows were deleted, rolled back or signed anew. Worded
 * the same whoever holds it, so that a reset made from the command line (which reads the file) accepts it.
 */
async function publishedFindings(db: Queryable, fileDir: string, published: LedgerCheckpoint | null) {
  const left = checkpointFileTail(fileDir).lines.map(l => l.checkpoint);
  if (published) left.push(published);
  if (left.length === 0) return [];
  const seqs = left.map(c => c.seq);
  const low = Math.min(...seqs);
  const rows = await checkpointsFrom(db, low, Math.max(...seqs) - low + 1);
  const inRows = new Set(rows.map(c => `${c.seq}:${checkpointHash(c)}`));
  const missing = left.filter(c => !inRows.has(`${c.seq}:${checkpointHash(c)}`));
  const newest = missing.reduce<LedgerCheckpoint | null>((n, c) => (!n || c.seq >= n.seq ? c : n), null);
  if (!newest) return [];
  return [
    `checkpoint ${newest.seq} (${short(checkpointHash(newest))}) left the server and is not in the chain of checkpoint rows: rows were deleted, or the database was rolled back or signed anew`,
  ];
}

/** The same key: the signer's is the newest checkpoint's, or the one that checkpoint names as its next. */
function keyFindings(newest: LedgerCheckpoint | null, keyId: string): string[] {
  if (!newest || newest.keyId === keyId) return [];
  const nextKey = (newest as { nextKey?: unknown }).nextKey;
  if (typeof nextKey === 'string' && keyIdOf(nextKey) === keyId) return [];
  return [
    `the signing key ${keyId} is not the key of checkpoint ${newest.seq} (${newest.keyId}), which names no next key: the key was replaced without a rotation`,
  ];
}

/**
 * The service's check of its own history, before the chain's leader signs anything: that the log still extends the
 * newest checkpoint it can find (its rows, its file, the last it published): the same events in the newest range (its
 * root recomputed from the log), nothing missing at the end (the chain's state, which the service's role can write, is
 * recomputed rather than trusted), the same key. Each finding worded without time, so the same history finds the
 * same words (a reset accepts them by their words).
 */
export async function checkOwnHistory(
  deps: SelfCheckDeps,
  input: { fileDir: string; keyId: string; published: LedgerCheckpoint | null },
): Promise<SelfCheck> {
  const [before, newestRow] = await readCheckpointRows(deps.pool, 2).then(rows =>
    rows.length === 2 ? rows : [null, ...rows],
  );
  const held = await ledgerIntegrity(deps.pool).stopping();
  if (newestRow && 'malformed' in newestRow)
    return {
      findings: [`checkpoint row ${newestRow.seq} is malformed: ${newestRow.malformed}`],
      held,
      newest: null,
      stateSound: false,
      proven: null,
      day: null,
    };
  const newest = newestRow?.checkpoint ?? null;
  const findings = await publishedFindings(deps.pool, input.fileDir, input.published);
  let day: string | null = null;
  // the day the log reached at the newest checkpoint, as far as its range proves it
  let proved: string | null | undefined = null;
  if (newest) {
    const previous = before && 'checkpoint' in before && before.seq === newest.seq - 1 ? before.checkpoint : null;
    proved = undefined;
    if (newest.seq > 0 && !previous) findings.push(`checkpoint row ${newest.seq - 1} is missing or malformed`);
    else {
      const range = await rangeFindings(deps, previous, newest);
      findings.push(...range.findings);
      day = range.day;
      if (range.findings.length === 0) proved = range.day;
    }
  }
  const pending = await pendingFindings(deps, newest, proved);
  findings.push(...pending.findings, ...keyFindings(newest, input.keyId));
  return { findings, held, newest, stateSound: pending.proven !== null, proven: pending.proven, day };
}

/**
 * After a reset: the chain's state and position start again from the rows' newest checkpoint (nothing pending), so the
 * leader takes the log in again from its last event; answers the chain's new state and position.
 */
export async function continueFrom(
  pool: pg.Pool,
  newest: LedgerCheckpoint | null,
  day: string | null,
): Promise<ProvenState> {
  const position = newest ? parsePosition(newest.lastPosition)! : START;
  const state: ChainState = newest
    ? { ...emptyChain, seq: newest.seq + 1, prev: checkpointHash(newest), from: newest.to, day }
    : { ...emptyChain, prev: genesisHash };
  await inTransaction(pool, async tx => {
    await saveChain(tx, state, []);
    await saveCheckpoint(tx, chainPositionName, position);
  });
  return { chain: state, position };
}
