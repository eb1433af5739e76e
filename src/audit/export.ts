import type { EventStore, RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { auditView } from './event-view.ts';
import { committed, eventLeafV2 } from './ledger-format.ts';
import { leafHash } from './merkle.ts';
import { logEvents } from './stream-pages.ts';

/** Which events an export holds: those recorded in [from, to) (their metadata's occurredAt), or the whole log. */
export type ExportRange = { from: Date; to: Date } | 'all';

/**
 * One line of an export (docs/auditing.md): the event as stored, its secrets replaced by their commitments
 * (`committed`, the very bytes its ledger leaf is made of, so an outsider recomputes every checkpoint's root from the
 * export alone), its index in the log, and `view`: the payload as this code reads it, upcast, secrets shown as
 * `[redacted]` or `[sealed]`, for people.
 */
export function exportLine(index: number, recorded: RecordedEvent) {
  const view = auditView(recorded);
  return {
    ...logLine(index, recorded),
    view: view.data,
    ...(view.unreadable ? { unreadable: view.unreadable } : {}),
  };
}

/** An export line without its view: what a witness reads of the log (/api/audit/ledger/events), the leaf's own values. */
export const logLine = (index: number, recorded: RecordedEvent) => ({
  index,
  streamId: recorded.streamId,
  revision: recorded.revision,
  position: positionText(recorded.position),
  type: recorded.type,
  version: recorded.version,
  data: committed(recorded.data),
  metadata: recorded.metadata,
});

/** One line of `export --leaves`: an event's index and its ledger leaf hash, to name the event where a root differs. */
export const leafLine = (index: number, recorded: RecordedEvent) => ({ index, leaf: leafHash(eventLeafV2(recorded)) });

/**
 * The events of `range`, in log order, as JSON lines (exportLine, or leafLine with `leaves`), handed to `write` one at
 * a time: the log is read a page at a time and a line is written before the next is made, so a million events never
 * sit in memory (`write` waits for the output to drain). Answers how many were written.
 *
 * A period is a contiguous run of the log, so that a verifier can tell a missing line from a line outside it: from
 * the first event recorded at or after `from` up to the first one after it recorded at or after `to`. Concurrent
 * appends may commit a millisecond out of their clock order, so an event at an edge may be recorded just outside
 * the period; none inside the run is left out.
 */
export async function exportEvents(
  store: EventStore,
  range: ExportRange,
  write: (line: string) => Promise<void> | void,
  { leaves = false } = {},
): Promise<number> {
  const [from, to] = range === 'all' ? [-Infinity, Infinity] : [range.from.getTime(), range.to.getTime()];
  let written = 0;
  let index = 0;
  for await (const recorded of logEvents(store)) {
    const at = Date.parse(recorded.metadata.occurredAt);
    if (written === 0 && at < from) {
      index++;
      continue;
    }
    if (at >= to) break;
    await write(`${JSON.stringify(leaves ? leafLine(index, recorded) : exportLine(index, recorded))}\n`);
    written++;
    index++;
  }
  return written;
}
