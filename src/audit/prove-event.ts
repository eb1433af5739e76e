import type pg from 'pg';
import { START, type EventStore, type RecordedEvent } from '../store/event-store.ts';
import { exportLine } from './export.ts';
import { listLedgerCheckpoints } from './ledger-checkpoint-rows.ts';
import { eventLeafV2, type LedgerCheckpoint } from './ledger-format.ts';
import { leafHash } from './merkle.ts';
import { auditPath, rootFromPath } from './merkle-proof.ts';
import { logEvents } from './stream-pages.ts';

/**
 * An event's proof of inclusion in the signed log (docs/auditing.md, "Proving one event"): the event as an export line,
 * its index, the signed checkpoint whose range holds it, its leaf hash and its audit path to that checkpoint's root.
 * docs/verify-proof.mjs checks it with the public key alone.
 */
export type EventProof = {
  event: ReturnType<typeof exportLine>;
  index: number;
  checkpoint: LedgerCheckpoint;
  leafHash: string;
  path: string[];
};

/** Why no proof is given: no such event, not signed yet, or a range that no longer makes its signed root. */
export class NoProof extends Error {}

/** The event and its index in the log, read in order (its index is its count of events before it). */
async function findInLog(store: EventStore, eventId: string): Promise<{ index: number; recorded: RecordedEvent }> {
  let index = 0;
  for await (const recorded of logEvents(store)) {
    if (recorded.metadata.eventId === eventId) return { index, recorded };
    index++;
  }
  throw new NoProof(`no event ${eventId} in the log`);
}

/** The leaf hashes of a checkpoint's range, read from the last position of the checkpoint before it. */
async function rangeLeaves(store: EventStore, chain: LedgerCheckpoint[], c: LedgerCheckpoint): Promise<string[]> {
  const before = chain.find(x => x.seq === c.seq - 1);
  const m = before && /^(-?\d+)\/(-?\d+)$/.exec(before.lastPosition);
  const after = m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : START;
  const leaves: string[] = [];
  for await (const e of logEvents(store, after)) {
    if (leaves.length === c.events) break;
    leaves.push(leafHash(eventLeafV2(e)));
  }
  return leaves;
}

export async function proveEvent(deps: { store: EventStore; pool: pg.Pool }, eventId: string): Promise<EventProof> {
  const chain = await listLedgerCheckpoints(deps.pool);
  const { index, recorded } = await findInLog(deps.store, eventId);
  const checkpoint = chain.find(c => c.from <= index && index < c.to);
  if (!checkpoint) throw new NoProof(`event ${eventId} (index ${index}) is in no signed checkpoint yet`);
  const leaves = await rangeLeaves(deps.store, chain, checkpoint);
  const leaf = leafHash(eventLeafV2(recorded));
  const m = index - checkpoint.from;
  // a proof is only worth giving against the root as signed: a range the log no longer makes is verify-log's finding
  if (leaves[m] !== leaf || leaves.length !== checkpoint.events)
    throw new NoProof(`the log no longer holds event ${eventId} where checkpoint ${checkpoint.seq} signed it`);
  const path = auditPath(leaves, m);
  if (rootFromPath(leaf, m, leaves.length, path) !== checkpoint.root)
    throw new NoProof(`the events of checkpoint ${checkpoint.seq} no longer make its signed root (verify-log)`);
  return { event: exportLine(index, recorded), index, checkpoint, leafHash: leaf, path };
}
