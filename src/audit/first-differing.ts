import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EventStore } from '../store/event-store.ts';
import { eventLeafV2, type LedgerCheckpoint } from './ledger-format.ts';
import type { LogProblem } from './log-verifier.ts';
import { appendLeaf, canonicalJson, leafHash, rootOf, type Frontier } from './merkle.ts';
import { logEvents } from './stream-pages.ts';

/**
 * A root says that a range differs, not where. Leaves kept from before (`export --leaves`, or an earlier export, as
 * docs/verify-export.mjs takes them) name the first event of the range that differs, once they are shown to make the
 * signed root themselves: the log is read again as far as the last differing range, its leaves held against them.
 */

/** A kept line's leaf: an `export --leaves` line's, or an export line's (its data committed already). */
function keptLeaf(line: Record<string, unknown>): string {
  if (typeof line.leaf === 'string') return line.leaf;
  const { streamId, revision, type, version, data, metadata } = line;
  return leafHash(canonicalJson({ streamId, revision, type, version, data, metadata }));
}

async function keptLeaves(file: string, ranges: LedgerCheckpoint[]): Promise<Map<number, string[]>> {
  const kept = new Map(ranges.map(c => [c.seq, [] as string[]]));
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!text.trim()) continue;
    const line = JSON.parse(text) as Record<string, unknown>;
    const index = Number(line.index);
    const c = ranges.find(r => index >= r.from && index < r.to);
    if (c) kept.get(c.seq)![index - c.from] = keptLeaf(line);
  }
  return kept;
}

const makesRoot = (leaves: string[], c: LedgerCheckpoint) => {
  if (leaves.length !== c.events || leaves.some(l => typeof l !== 'string')) return false;
  let frontier: Frontier = [];
  for (const leaf of leaves) frontier = appendLeaf(frontier, leaf);
  return rootOf(frontier) === c.root;
};

/** For each stored checkpoint whose root differs, the first event of its range that is not the kept leaves' one. */
export async function firstDifferingEvents(
  store: EventStore,
  differing: LedgerCheckpoint[],
  leavesFile: string,
): Promise<LogProblem[]> {
  if (differing.length === 0) return [];
  const kept = await keptLeaves(leavesFile, differing);
  const problems: LogProblem[] = [];
  const open = differing.filter(c => {
    if (makesRoot(kept.get(c.seq)!, c)) return true;
    problems.push({
      at: `checkpoint ${c.seq}`,
      index: c.from,
      seq: c.seq,
      problem: `the leaves given (${leavesFile}) do not make its signed root either: they cannot name the event`,
    });
    return false;
  });
  const end = Math.max(...open.map(c => c.to), 0);
  let index = 0;
  for await (const e of end > 0 ? logEvents(store) : []) {
    if (index >= end) break;
    const c = open.find(r => index >= r.from && index < r.to && !problems.some(p => p.seq === r.seq));
    if (c && leafHash(eventLeafV2(e)) !== kept.get(c.seq)![index - c.from])
      problems.push({
        at: `event ${index} (${e.streamId}@${e.revision})`,
        index,
        seq: c.seq,
        streamId: e.streamId,
        revision: e.revision,
        problem: `the first event of checkpoint ${c.seq}'s range that differs from the signed leaves given: it was changed, inserted, or an event before it in the range removed`,
      });
    index++;
  }
  for (const c of open)
    if (!problems.some(p => p.seq === c.seq))
      problems.push({
        at: `checkpoint ${c.seq}`,
        index: Math.min(index, c.to),
        seq: c.seq,
        problem: `the log ends at event ${index} inside checkpoint ${c.seq}'s range: its events from there were removed`,
      });
  return problems;
}
