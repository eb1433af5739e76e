import type { EventStore, RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { auditView } from './event-view.ts';
import { committed } from './ledger-format.ts';
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
    index,
    streamId: recorded.streamId,
    revision: recorded.revision,
    position: positionText(recorded.position),
    type: recorded.type,
    version: recorded.version,
    data: committed(recorded.data),
    metadata: recorded.metadata,
    view: view.data,
    ...(view.unreadable ? { unreadable: view.unreadable } : {}),
  };
}

/**
 * The events of `range`, in log order, as JSON lines (exportLine), handed to `write` one at a time: the log is read a
 * page at a time and a line is written before the next is made, so a million events never sit in memory (`write`
 * waits for the output to drain). Answers how many were written.
 */
export async function exportEvents(
  store: EventStore,
  range: ExportRange,
  write: (line: string) => Promise<void> | void,
): Promise<number> {
  const [from, to] = range === 'all' ? [-Infinity, Infinity] : [range.from.getTime(), range.to.getTime()];
  let written = 0;
  let index = 0;
  for await (const recorded of logEvents(store)) {
    const at = Date.parse(recorded.metadata.occurredAt);
    if (at >= from && at < to) {
      await write(`${JSON.stringify(exportLine(index, recorded))}\n`);
      written++;
    }
    index++;
  }
  return written;
}
