import type { EventStore } from '../store/event-store.ts';
import { auditView } from './event-view.ts';
import { logEvents } from './stream-pages.ts';

/**
 * Every event recorded in [from, to) (its metadata's occurredAt), in log order, as JSON lines (auditView), handed to
 * `write` one at a time: the log is read a page at a time and a line is written before the next is made, so a million
 * events never sit in memory (`write` waits for the output to drain). Answers how many were written.
 */
export async function exportEvents(store: EventStore, range: { from: Date; to: Date }, write: (line: string) => Promise<void> | void): Promise<number> {
  const [from, to] = [range.from.getTime(), range.to.getTime()];
  let written = 0;
  for await (const recorded of logEvents(store)) {
    const at = Date.parse(recorded.metadata.occurredAt);
    if (at < from || at >= to) continue;
    await write(`${JSON.stringify(auditView(recorded))}\n`);
    written++;
  }
  return written;
}
