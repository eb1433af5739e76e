import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exportEvents } from '../../src/audit/export.ts';
import type { EventStore, Position, RecordedEvent } from '../../src/store/event-store.ts';

// A period export is a contiguous run of the log, so that docs/verify-export.mjs can fail any gap in its indexes.

/** A log whose events were recorded at these minutes, in this log order (concurrent appends commit out of clock order). */
function logRecordedAt(minutes: number[]): EventStore {
  const events: RecordedEvent[] = minutes.map((minute, i) => ({
    type: 'NotDeclared',
    version: 1,
    data: { minute },
    streamId: `s-${i}`,
    revision: 0,
    position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
    metadata: {
      ...{ eventId: randomUUID(), correlationId: randomUUID(), causationId: null, actor: 'system' },
      occurredAt: new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString(),
    },
  }));
  const readLog = async (after: Position, maxCount: number) =>
    events.filter(e => e.position.commit > after.commit).slice(0, maxCount);
  return { readLog } as unknown as EventStore;
}

const minute = (m: number) => new Date(Date.UTC(2026, 2, 1, 0, m));

async function indexesOf(store: EventStore, from: number, to: number, leaves = false) {
  const lines: string[] = [];
  await exportEvents(store, { from: minute(from), to: minute(to) }, line => void lines.push(line), { leaves });
  return lines.map(l => (JSON.parse(l) as { index: number }).index);
}

describe('export of a period', () => {
  it('runs from the first event recorded at or after from to the first one after it recorded at or after to', async () => {
    const store = logRecordedAt([10, 30, 20, 40, 35, 50]);
    expect(await indexesOf(store, 20, 40)).toEqual([1, 2]); // 20 committed after 30: inside; 35 after 40: outside
    expect(await indexesOf(store, 20, 40, true)).toEqual([1, 2]);
    expect(await indexesOf(store, 0, 100)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await indexesOf(store, 45, 60)).toEqual([5]);
    expect(await indexesOf(store, 60, 70)).toEqual([]);
  });
});
