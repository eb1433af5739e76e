import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { addLeavesToDigest, addToDigest, eventLeaf, recordedOn, type DigestDay } from '../../src/audit/digest-days.ts';
import type { LeafRun } from '../../src/audit/log-leaves.ts';
import { leafBytes } from '../../src/audit/merkle.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';

const t0 = Date.parse('2026-01-05T16:00:00.000Z'); // 23:00 WIB

/** An event recorded `minutes` after t0: later or earlier than the one before it (a command that took its time). */
const event = (minutes: number, i: number): RecordedEvent => ({
  streamId: `account-${i % 3}`,
  revision: i,
  position: { commit: BigInt(i + 1), prepare: 0n },
  type: 'AccountSynced',
  version: 1,
  data: { i },
  metadata: {
    eventId: `e-${i}`,
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: new Date(t0 + minutes * 60_000).toISOString(),
  },
});

/** The events as the hashing thread hands them over: digest leaf hashes, in runs of one WIB date. */
function leavesOf(events: RecordedEvent[]) {
  const digestHashes = Buffer.concat(events.map(e => leafBytes(eventLeaf(e))));
  const runs: LeafRun[] = [];
  for (const e of events) {
    const run = runs.at(-1);
    if (run?.recordedOn === recordedOn(e)) run.count++;
    else runs.push({ recordedOn: recordedOn(e), count: 1, lastPosition: '' });
  }
  return { digestHashes, runs };
}

/** The days closed and the one open after the events, one at a time as verify-digests walks them. */
function oneByOne(current: DigestDay | null, events: RecordedEvent[]) {
  const closed: DigestDay[] = [];
  for (const e of events) {
    const next = addToDigest(current, e);
    if (next.closed) closed.push(next.closed);
    current = next.current;
  }
  return { closed, current };
}

describe('the daily digests fed a hashed page', () => {
  test.prop([
    fc.array(fc.integer({ min: -90, max: 3000 }), { maxLength: 60 }),
    fc.array(fc.integer({ min: -90, max: 3000 }), { maxLength: 60 }),
  ])(
    'close and grow the same days as addToDigest event by event, late events counted in the day the log has reached',
    (before, page) => {
      const earlier = before.map((m, i) => event(m, i));
      const events = page.map((m, i) => event(m, before.length + i));
      const start = oneByOne(null, earlier).current;
      expect(addLeavesToDigest(start, leavesOf(events))).toEqual(oneByOne(start, events));
    },
  );
});
