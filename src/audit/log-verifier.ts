import { comparePositions, type Position, type RecordedEvent } from '../store/event-store.ts';
import {
  checkpointHash,
  checkpointSignatureValid,
  eventLeafV2,
  genesisHash,
  type LedgerCheckpoint,
} from './ledger-format.ts';
import { keyChain, type KeyChain } from './ledger-keys.ts';
import { appendLeaf, leafHash, rootOf, type Frontier } from './merkle.ts';

/** Something found: where (a label and the log index it starts at, for ordering) and what. */
export type LogProblem = {
  at: string;
  index: number;
  problem: string;
  seq?: number;
  streamId?: string;
  revision?: number;
  day?: string;
};

/** A checkpoint kept outside the database, and who kept it (the auditor's file, the service's file). */
export type KeptCheckpoint = { checkpoint: LedgerCheckpoint; source: string };

type Range = { from: number; to: number; frontier: Frontier; root: string | null };

const parsePosition = (text: string): Position | null => {
  const m = /^(-?\d+)\/(-?\d+)$/.exec(text);
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : null;
};

const eventLabel = (index: number, e: Pick<RecordedEvent, 'streamId' | 'revision'>) =>
  `event ${index} (${e.streamId}@${e.revision})`;

/**
 * The chain recomputed from the log, one event at a time (a million events never held): every stored checkpoint's
 * signature (with the auditor's key), link (seq, from, prev) and root over its events [from, to); every kept checkpoint
 * against the stored one of its seq and the log; each stream's revisions without gaps. Pure: `verifyLog` feeds it
 * from the store, tests from memory.
 */
export class LogVerifier {
  private readonly problems: LogProblem[] = [];
  private readonly ranges = new Map<string, Range>();
  /** ranges by their start, each list in the order they were asked for */
  private readonly startingAt = new Map<number, Range[]>();
  private open: Range[] = [];
  private index = 0;
  private readonly revisions = new Map<string, number>();
  /** the stored checkpoints' last positions (informational) and how many log events fall up to each */
  private readonly bounds: { seq: number; position: Position; counted: number; from: number; events: number }[] = [];
  private bound = 0;
  /** the keys followed from the auditor's through the stored rotations */
  private readonly keys: KeyChain;

  constructor(
    private readonly stored: LedgerCheckpoint[],
    private readonly kept: KeptCheckpoint[],
    publicKey: string,
  ) {
    this.keys = keyChain(stored, publicKey);
    for (const f of this.keys.findings)
      this.found({
        at: `checkpoint ${f.seq}`,
        index: stored.find(c => c.seq === f.seq)?.from ?? 0,
        seq: f.seq,
        problem: f.problem,
      });
    this.checkStoredLinks();
    for (const c of stored) this.rangeOf(c);
    for (const k of kept) this.rangeOf(k.checkpoint);
    for (const c of stored) {
      const position = parsePosition(c.lastPosition);
      if (position) this.bounds.push({ seq: c.seq, position, counted: 0, from: c.from, events: c.events });
    }
  }

  private found(p: LogProblem) {
    this.problems.push(p);
  }

  private rangeOf(c: LedgerCheckpoint): Range {
    const key = `${c.from}-${c.to}`;
    let range = this.ranges.get(key);
    if (!range) {
      range = { from: c.from, to: c.to, frontier: [], root: c.from === c.to ? rootOf([]) : null };
      this.ranges.set(key, range);
      this.startingAt.set(c.from, [...(this.startingAt.get(c.from) ?? []), range]);
    }
    return range;
  }

  /** What the stored rows say of themselves: one after another, each signed and linked to the one before. */
  private checkStoredLinks() {
    let before: LedgerCheckpoint | null = null;
    for (const c of this.stored) {
      const at = `checkpoint ${c.seq}`;
      const base = { at, index: c.from, seq: c.seq };
      const expectedSeq = before ? before.seq + 1 : 0;
      if (c.seq !== expectedSeq)
        this.found({
          ...base,
          problem: `checkpoint ${expectedSeq} is missing: the rows go from ${before ? before.seq : 'none'} to ${c.seq}`,
        });
      if (!checkpointSignatureValid(c, this.keys.keyAt(c.seq).publicKey))
        this.found({
          ...base,
          problem:
            'the signature does not verify with the key given: the checkpoint was rewritten or signed by another key',
        });
      if (c.events !== c.to - c.from)
        this.found({ ...base, problem: `events ${c.events} but [${c.from}, ${c.to}) holds ${c.to - c.from}` });
      const expectedFrom = before ? before.to : 0;
      if (c.from !== expectedFrom)
        this.found({ ...base, problem: `starts at event ${c.from}, the checkpoint before ends at ${expectedFrom}` });
      const expectedPrev = before ? checkpointHash(before) : genesisHash;
      if (c.prev !== expectedPrev)
        this.found({
          ...base,
          problem: `prev ${c.prev.slice(0, 16)}… is not the hash of checkpoint ${before ? before.seq : '(none: genesis)'}: the chain is broken`,
        });
      before = c;
    }
  }

  add(e: RecordedEvent): void {
    const i = this.index++;
    const starting = this.startingAt.get(i);
    if (starting) this.open.push(...starting);
    if (this.open.length > 0) {
      const leaf = leafHash(eventLeafV2(e));
      for (const r of this.open) r.frontier = appendLeaf(r.frontier, leaf);
      let done = false;
      for (const r of this.open) {
        if (r.to !== i + 1) continue;
        r.root = rootOf(r.frontier);
        done = true;
      }
      if (done) this.open = this.open.filter(r => r.root === null);
    }
    this.checkRevision(i, e);
    // which stored checkpoint's positions the event falls in: only to say, of a root that differs, how
    while (this.bound < this.bounds.length && comparePositions(e.position, this.bounds[this.bound]!.position) > 0)
      this.bound++;
    if (this.bound < this.bounds.length) this.bounds[this.bound]!.counted++;
  }

  private checkRevision(i: number, e: RecordedEvent) {
    const last = this.revisions.get(e.streamId);
    const expected = last === undefined ? 0 : last + 1;
    if (e.revision !== expected) {
      const what =
        e.revision > expected
          ? `revision ${e.revision} follows ${last ?? 'nothing'}: events were removed from the stream`
          : `revision ${e.revision} again or out of order (after ${last}): an event was inserted or reordered`;
      this.found({ at: eventLabel(i, e), index: i, streamId: e.streamId, revision: e.revision, problem: what });
    }
    this.revisions.set(e.streamId, Math.max(e.revision, last ?? -1));
  }

  /** Everything found, first in the log first; and the counts. */
  finish(): { problems: LogProblem[]; events: number; checkpoints: number; unchecked: number } {
    const events = this.index;
    let firstDiffering = true;
    for (const c of this.stored) {
      const range = this.rangeOf(c);
      const at = `checkpoint ${c.seq}`;
      if (c.to > events) {
        this.found({
          at,
          index: Math.min(c.from, events),
          seq: c.seq,
          problem: `covers events [${c.from}, ${c.to}) but the log has ${events}: events were removed`,
        });
      } else if (range.root !== c.root) {
        this.found({
          at,
          index: c.from,
          seq: c.seq,
          problem: `the root of events [${c.from}, ${c.to}) differs from the signed one: an event in it was changed, inserted, removed or reordered${firstDiffering ? this.countHint(c.seq) : ''}`,
        });
        firstDiffering = false;
      }
    }
    this.checkKept(events);
    const last = this.stored.at(-1);
    const unchecked = Math.max(0, events - (last?.to ?? 0));
    const problems = [...this.problems].sort((a, b) => a.index - b.index);
    return { problems, events, checkpoints: this.stored.length, unchecked };
  }

  private countHint(seq: number): string {
    const b = this.bounds.find(x => x.seq === seq);
    if (!b || b.counted === b.events) return '';
    return ` (the log has ${b.counted} events up to its last position, it signed ${b.events}: ${b.counted < b.events ? 'removed' : 'inserted'})`;
  }

  private checkKept(events: number) {
    const bySeq = new Map(this.stored.map(c => [c.seq, c]));
    for (const { checkpoint: k, source } of this.kept) {
      const at = `kept checkpoint ${k.seq} (${source})`;
      const base = { at, index: k.from, seq: k.seq };
      if (!checkpointSignatureValid(k, this.keys.keyAt(k.seq).publicKey)) {
        this.found({ ...base, problem: 'its signature does not verify with the key given' });
        continue;
      }
      const row = bySeq.get(k.seq);
      if (!row) this.found({ ...base, problem: 'is not in the database: checkpoint rows were deleted' });
      else if (checkpointHash(row) !== checkpointHash(k))
        this.found({
          ...base,
          problem: 'the stored checkpoint of this seq differs from the kept one: it was rewritten',
        });
      const before = bySeq.get(k.seq - 1);
      if (before && k.seq > 0 && checkpointHash(before) !== k.prev)
        this.found({
          ...base,
          problem: `its prev is not the hash of the stored checkpoint ${k.seq - 1}: the chain before it was rewritten`,
        });
      if (k.to > events)
        this.found({
          ...base,
          index: Math.min(k.from, events),
          problem: `the log has ${events} events and no longer reaches this checkpoint's end (${k.to}): events were removed from the end`,
        });
      else if (this.rangeOf(k).root !== k.root)
        this.found({
          ...base,
          problem: `the root of events [${k.from}, ${k.to}) differs from the kept one: an event in it was changed, inserted, removed or reordered`,
        });
    }
  }
}
