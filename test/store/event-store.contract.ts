import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  START,
  StreamDeleted,
  WrongExpectedRevision,
  comparePositions,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '../../src/store/event-store.ts';
import { nextUuid } from '../support/ids.ts';

export function newEvent(type: string, data: Record<string, unknown> = {}, eventId = nextUuid()): NewEvent {
  return {
    type,
    version: 1,
    data,
    metadata: {
      eventId,
      correlationId: eventId,
      causationId: null,
      actor: 'test',
      occurredAt: '2026-01-05T03:00:00.000Z',
    },
  };
}

// an EventStoreDB server outlives the run: its stream names carry the run's one random value, then a count
const run = randomUUID().slice(0, 8);
let streams = 0;
/** A stream name of its own for a test: `<label>-<run>-<n>`. */
export const streamName = (label: string) => `${label}-${run}-${++streams}`;
const stream = (label: string) => streamName(`contract-${label}`);

async function collectUntil(
  store: EventStore,
  after: Position,
  done: (seen: RecordedEvent[]) => boolean,
  timeoutMs = 20_000,
): Promise<RecordedEvent[]> {
  const seen: RecordedEvent[] = [];
  let failure: unknown;
  const sub = store.subscribe(
    after,
    async batch => void seen.push(...batch),
    err => (failure = err),
  );
  const started = Date.now();
  while (!done(seen) && failure === undefined && Date.now() - started < timeoutMs)
    await new Promise(r => setTimeout(r, 20));
  await sub.close();
  if (failure) throw failure;
  return seen;
}

/** The behaviour every event-store adapter must show; run against each adapter that can be reached. */
export function eventStoreContract(
  name: string,
  open: () => Promise<{ store: EventStore; close(): Promise<void> }>,
  options: { listsStreams?: boolean } = {},
) {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => close?.());

    it('appends to a new stream and reads it back in order with revisions from 0', async () => {
      const id = stream('new');
      const result = await store.append(id, [newEvent('A', { n: 1 }), newEvent('B', { n: 2 })], 'no_stream');
      expect(result.nextRevision).toBe(1);
      const events = await store.readStream(id);
      expect(events.map(e => [e.type, e.revision, e.data.n])).toEqual([
        ['A', 0, 1],
        ['B', 1, 2],
      ]);
      expect(events[0]!.metadata.actor).toBe('test');
    });

    it('refuses no_stream when the stream exists', async () => {
      const id = stream('exists');
      await store.append(id, [newEvent('A')], 'no_stream');
      await expect(store.append(id, [newEvent('B')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(id)).toHaveLength(1);
    });

    it('refuses stream_exists when the stream does not exist, accepts it when it does', async () => {
      const id = stream('stream-exists');
      await expect(store.append(id, [newEvent('A')], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(id)).toHaveLength(0);
      await store.append(id, [newEvent('A')], 'any');
      const result = await store.append(id, [newEvent('B')], 'stream_exists');
      expect(result.nextRevision).toBe(1);
    });

    it('appends at the exact expected revision and refuses any other', async () => {
      const id = stream('exact');
      await store.append(id, [newEvent('A'), newEvent('B')], 'no_stream');
      await expect(store.append(id, [newEvent('C')], 0)).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(store.append(id, [newEvent('C')], 2)).rejects.toBeInstanceOf(WrongExpectedRevision);
      const result = await store.append(id, [newEvent('C')], 1);
      expect(result.nextRevision).toBe(2);
      expect((await store.readStream(id)).map(e => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('lets exactly one of many concurrent writers at the same expected revision win', async () => {
      const id = stream('race');
      await store.append(id, [newEvent('A')], 'no_stream');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.append(id, [newEvent('B', { i })], 0)),
      );
      expect(outcomes.filter(o => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes.filter(o => o.status === 'rejected'))
        expect((o as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(id)).toHaveLength(2);
    });

    it('treats a retried append with the same event ids as done, without writing twice', async () => {
      const id = stream('idempotent');
      const events = [newEvent('A'), newEvent('B')];
      const first = await store.append(id, events, 'no_stream');
      const again = await store.append(id, events, 'no_stream');
      expect(again.nextRevision).toBe(first.nextRevision);
      const alsoAny = await store.append(id, events, 'any');
      expect(alsoAny.nextRevision).toBe(first.nextRevision);
      expect(await store.readStream(id)).toHaveLength(2);
    });

    it('appends to several streams at once, with a guard on another, and answers each in order', async () => {
      const guarded = stream('guard');
      const existing = stream('existing');
      await store.append(guarded, [newEvent('G')], 'no_stream');
      await store.append(existing, [newEvent('X')], 'no_stream');
      const fresh = stream('fresh');
      const results = await store.appendToStreams([
        { streamId: guarded, events: [], expected: 0 },
        { streamId: existing, events: [newEvent('X2'), newEvent('X3')], expected: 0 },
        { streamId: fresh, events: [newEvent('F')], expected: 'no_stream' },
      ]);
      expect(results.map(r => r.nextRevision)).toEqual([0, 2, 0]);
      expect(comparePositions(results[1]!.position, START)).toBeGreaterThan(0);
      expect((await store.readStream(existing)).map(e => e.type)).toEqual(['X', 'X2', 'X3']);
      expect((await store.readStream(fresh)).map(e => e.type)).toEqual(['F']);
      expect(await store.readStream(guarded)).toHaveLength(1);
    });

    it('refuses an append to several streams at its first refused write, naming that stream', async () => {
      const guarded = stream('moved');
      await store.append(guarded, [newEvent('G'), newEvent('G2')], 'no_stream');
      const fresh = stream('never');
      const refused = store.appendToStreams([
        { streamId: guarded, events: [], expected: 0 },
        { streamId: fresh, events: [newEvent('F')], expected: 'no_stream' },
      ]);
      await expect(refused).rejects.toMatchObject({ streamId: guarded, actual: 1 });
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(fresh)).toEqual([]);
    });

    it('writes nothing when a later write of an append to several streams is refused', async () => {
      const first = stream('atomic-first');
      const taken = stream('atomic-taken');
      await store.append(taken, [newEvent('T')], 'no_stream');
      const refused = store.appendToStreams([
        { streamId: first, events: [newEvent('F')], expected: 'no_stream' },
        { streamId: taken, events: [newEvent('T2')], expected: 'no_stream' },
      ]);
      await expect(refused).rejects.toMatchObject({ streamId: taken, actual: 0 });
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(first)).toEqual([]);
      expect(await store.readStream(taken)).toHaveLength(1);
    });

    it('takes revision -1 as "no event yet": an empty append at -1 passes on a missing stream, not on one with events', async () => {
      const missing = stream('minus-one');
      expect((await store.append(missing, [], -1)).nextRevision).toBe(-1);
      await store.append(missing, [newEvent('A')], 'no_stream');
      await expect(store.append(missing, [], -1)).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(await store.readStream(missing)).toHaveLength(1);
    });

    it('appends to one stream more than 1 MiB (a KurrentDB set to a lower MaxAppendSize splits it), in order at consecutive revisions, and a retry is done already', async () => {
      const id = stream('large');
      const page = 'x'.repeat(30_000);
      const events = Array.from({ length: 50 }, (_, n) => newEvent('Page', { n, page })); // about 1.5 MB, as a first sync of 50 pages
      expect((await store.append(id, events, 'no_stream')).nextRevision).toBe(49);
      expect((await store.readStream(id)).map(e => [e.revision, e.data.n])).toEqual(events.map((_, n) => [n, n]));
      expect((await store.append(id, events, 'no_stream')).nextRevision).toBe(49);
      expect(await store.readStream(id)).toHaveLength(50);
    });

    it('reads a stream backwards, from a revision, and a limited count', async () => {
      const id = stream('read');
      await store.append(
        id,
        [0, 1, 2, 3, 4].map(n => newEvent('N', { n })),
        'no_stream',
      );
      expect((await store.readStream(id, { direction: 'backwards', maxCount: 2 })).map(e => e.data.n)).toEqual([4, 3]);
      expect((await store.readStream(id, { fromRevision: 3 })).map(e => e.data.n)).toEqual([3, 4]);
      expect((await store.readStream(id, { fromRevision: 1, maxCount: 2 })).map(e => e.data.n)).toEqual([1, 2]);
      expect(await store.readStream(stream('missing'))).toEqual([]);
    });

    it('reads all from a position in global order', async () => {
      const head = await store.headPosition();
      const a = stream('all-a');
      const b = stream('all-b');
      await store.append(a, [newEvent('A1')], 'no_stream');
      await store.append(b, [newEvent('B1'), newEvent('B2')], 'no_stream');
      await store.append(a, [newEvent('A2')], 0);
      const ours = (await readAllAfter(store, head)).filter(e => e.streamId === a || e.streamId === b);
      expect(ours.map(e => e.type)).toEqual(['A1', 'B1', 'B2', 'A2']);
      for (let i = 1; i < ours.length; i++) expect(comparePositions(ours[i - 1]!.position, ours[i]!.position)).toBe(-1);
      const afterSecond = (await readAllAfter(store, ours[1]!.position)).filter(
        e => e.streamId === a || e.streamId === b,
      );
      expect(afterSecond.map(e => e.type)).toEqual(['B2', 'A2']);
    });

    it('delivers to a live subscriber every event of many concurrent writers exactly once, in global order', async () => {
      const head = await store.headPosition();
      const prefix = streamName('contract-concurrent');
      const writers = 16;
      const appendsPerWriter = 25;
      const expected = writers * appendsPerWriter * 2;
      const collecting = collectUntil(
        store,
        head,
        seen => seen.filter(e => e.streamId.startsWith(prefix)).length >= expected,
      );
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < appendsPerWriter; i++) {
            // writers share streams pairwise, so some appends conflict on revisions and some on nothing
            await store.append(
              `${prefix}-${w % 8}`,
              [newEvent('W', { w, i }), newEvent('W', { w, i, second: true })],
              'any',
            );
          }
        }),
      );
      const seen = (await collecting).filter(e => e.streamId.startsWith(prefix));
      expect(seen).toHaveLength(expected);
      expect(new Set(seen.map(e => e.metadata.eventId)).size).toBe(expected);
      for (let i = 1; i < seen.length; i++) expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBe(-1);
      // every stream's events arrive in revision order
      const lastRevision = new Map<string, number>();
      for (const e of seen) {
        expect(e.revision).toBe((lastRevision.get(e.streamId) ?? -1) + 1);
        lastRevision.set(e.streamId, e.revision);
      }
      // what the subscriber saw is what "read all" answers afterwards
      const all = (await readAllAfter(store, head)).filter(e => e.streamId.startsWith(prefix));
      expect(all.map(e => e.metadata.eventId)).toEqual(seen.map(e => e.metadata.eventId));
    });

    it('names as head the last event subscribers receive, not one of a stream deleted since', async () => {
      const before = await store.headPosition();
      const kept = stream('head-kept');
      const gone = stream('head-gone');
      await store.append(kept, [newEvent('K')], 'no_stream');
      await store.append(gone, [newEvent('G')], 'no_stream');
      await store.deleteStream(gone);
      const head = await store.headPosition();
      const seen = await collectUntil(store, before, s => s.some(e => comparePositions(e.position, head) >= 0), 5_000);
      const last = seen.filter(e => e.streamId === kept || e.streamId === gone);
      expect(last.map(e => e.type)).toEqual(['K']);
      expect(comparePositions(last[0]!.position, head)).toBe(0);
    });

    it.skipIf(options.listsStreams === false)(
      "lists a kind's streams by their names' prefix: written alone or with others, not deleted, not another kind's",
      async () => {
        const kind = stream('kind');
        await store.append(`${kind}-a`, [newEvent('A'), newEvent('B')], 'no_stream');
        await store.appendToStreams([
          { streamId: `${kind}-b`, events: [newEvent('A')], expected: 'no_stream' },
          { streamId: `${kind}x-b`, events: [newEvent('A')], expected: 'no_stream' },
        ]);
        await store.append(`${kind}-c`, [newEvent('A')], 'no_stream');
        await store.deleteStream(`${kind}-c`);
        expect((await store.streamIds(`${kind}-`)).sort()).toEqual([`${kind}-a`, `${kind}-b`]);
      },
    );

    it('deletes a stream for good: gone from reads, and later appends are refused', async () => {
      const head = await store.headPosition();
      const id = stream('delete');
      await store.append(id, [newEvent('Secret', { name: 'Budi' })], 'no_stream');
      await store.deleteStream(id);
      expect(await store.readStream(id)).toEqual([]);
      expect((await readAllAfter(store, head)).filter(e => e.streamId === id)).toEqual([]);
      await expect(store.append(id, [newEvent('Again')], 'any')).rejects.toBeInstanceOf(StreamDeleted);
    });
  });
}

export async function readAllAfter(store: EventStore, after: Position): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let position = after;
  for (;;) {
    const batch = await store.readAll(position, 200);
    if (batch.length === 0) return out;
    out.push(...batch);
    position = batch[batch.length - 1]!.position;
  }
}
