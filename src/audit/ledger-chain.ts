import { z } from 'zod';
import type { RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { dayReached, recordedOn } from './digest-days.ts';
import { checkpointHash, eventLeafV2, genesisHash, signCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';
import { addToRuns, type LeafRun, type PageLeaves } from './log-leaves.ts';
import { frontierBytes, frontierText, leafHash, pushLeafBytes, rootOf } from './merkle.ts';

/** A checkpoint is cut at the latest this long after the first event it will cover was taken in. */
export const checkpointEveryMs = 60_000;

/**
 * Where the chain stands: the next checkpoint's seq and prev, and the events taken in since the last checkpoint (from
 * index `from`, `events` of them, their Merkle frontier), the WIB day the log has reached (the daily digests' rule),
 * when the first pending event was taken in, and the position of the last one.
 */
export const chainState = z.object({
  seq: z.number().int().min(0),
  prev: z.string(),
  from: z.number().int().min(0),
  events: z.number().int().min(0),
  frontier: z.array(z.object({ size: z.number().int(), hash: z.string() })),
  day: z.string().nullable(),
  since: z.string().nullable(),
  lastPosition: z.string().nullable(),
});
export type ChainState = z.infer<typeof chainState>;

export const emptyChain: ChainState = {
  seq: 0,
  prev: genesisHash,
  from: 0,
  events: 0,
  frontier: [],
  day: null,
  since: null,
  lastPosition: null,
};

/**
 * The key that signs the chain; `next`, when a rotation is pending (src/audit/ledger-key-file.ts), the key that takes
 * over: the next checkpoint cut is then a rotation (signed by both, `nextKey` its public key) and every later one the
 * new key's.
 */
export type ChainSigner = {
  keyId: string;
  sign(text: string): string;
  readonly next?: (ChainSigner & { publicKey: string }) | null;
};

/** The signed checkpoint of the pending events, and the state after it (nothing pending); null when nothing is pending. */
export function cutCheckpoint(
  state: ChainState,
  now: Date,
  signer: ChainSigner,
): { state: ChainState; checkpoint: LedgerCheckpoint } | null {
  if (state.events === 0) return null;
  const next = signer.next ?? undefined;
  const checkpoint = signCheckpoint(
    {
      v: 1,
      seq: state.seq,
      from: state.from,
      to: state.from + state.events,
      events: state.events,
      root: rootOf(state.frontier),
      prev: state.prev,
      at: now.toISOString(),
      lastPosition: state.lastPosition ?? '',
      keyId: signer.keyId,
      ...(next ? { nextKey: next.publicKey } : {}),
    },
    signer,
    next,
  );
  const after = {
    ...state,
    seq: state.seq + 1,
    prev: checkpointHash(checkpoint),
    from: checkpoint.to,
    events: 0,
    frontier: [],
    since: null,
    lastPosition: null,
  };
  return { state: after, checkpoint };
}

/** Who signs after a checkpoint: the new key after a rotation, the same key after any other. */
const signerAfter = (signer: ChainSigner, c: LedgerCheckpoint): ChainSigner =>
  c.nextKey !== undefined && signer.next ? signer.next : signer;

/** Whether the pending events have waited long enough for a checkpoint. */
export const checkpointDue = (state: ChainState, now: Date): boolean =>
  state.events > 0 && state.since !== null && now.getTime() - Date.parse(state.since) >= checkpointEveryMs;

/**
 * Takes a batch of the log in: the first event of a later WIB day first cuts a checkpoint of the day before (so a day's
 * end is a checkpoint's end, as the daily digest closes it), and the batch ends with a cut if the pending events are due.
 */
export function takeEvents(
  state: ChainState,
  events: RecordedEvent[],
  now: Date,
  signer: ChainSigner,
): { state: ChainState; checkpoints: LedgerCheckpoint[] } {
  const runs: LeafRun[] = [];
  const hashes = Buffer.alloc(32 * events.length);
  events.forEach((e, i) => {
    hashes.write(leafHash(eventLeafV2(e)), 32 * i, 'hex');
    addToRuns(runs, recordedOn(e), positionText(e.position));
  });
  return takeLeaves(state, { hashes, runs }, now, signer);
}

/** The same, for events already hashed (src/audit/log-leaves.ts): their leaf hashes, in runs of one WIB date each. */
export function takeLeaves(
  state: ChainState,
  leaves: Pick<PageLeaves, 'hashes' | 'runs'>,
  now: Date,
  signer: ChainSigner,
): { state: ChainState; checkpoints: LedgerCheckpoint[] } {
  const checkpoints: LedgerCheckpoint[] = [];
  let s = state;
  let by = signer;
  let frontier = frontierBytes(s.frontier);
  let offset = 0;
  for (const run of leaves.runs) {
    // every event of a run is recorded on one date: the first decides the day for all of them
    const day = dayReached(s.day, run.recordedOn);
    if (s.day !== null && day !== s.day) {
      const cut = cutCheckpoint({ ...s, frontier: frontierText(frontier) }, now, by);
      if (cut) {
        checkpoints.push(cut.checkpoint);
        by = signerAfter(by, cut.checkpoint);
        s = cut.state;
        frontier = [];
      }
    }
    for (let i = 0; i < run.count; i++, offset += 32) pushLeafBytes(frontier, leaves.hashes, offset);
    s = {
      ...s,
      day,
      events: s.events + run.count,
      since: s.since ?? now.toISOString(),
      lastPosition: run.lastPosition,
    };
  }
  s = { ...s, frontier: frontierText(frontier) };
  if (checkpointDue(s, now)) {
    const cut = cutCheckpoint(s, now, by)!;
    checkpoints.push(cut.checkpoint);
    s = cut.state;
  }
  return { state: s, checkpoints };
}
