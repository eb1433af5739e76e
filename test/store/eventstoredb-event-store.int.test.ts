import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WrongExpectedRevision, comparePositions, type RecordedEvent } from '../../src/store/event-store.ts';
import { DbClient } from '../../src/store/eventstoredb-client.ts';
import { AppendTooLarge, EventStoreDbEventStore } from '../../src/store/eventstoredb-event-store.ts';
import { eventStoreContract, newEvent, readAllAfter, streamName } from './event-store.contract.ts';
import { eventLogContract } from './event-log.contract.ts';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING ?? '';

// without a server every test below is reported as skipped, under a name that says how to run them
describe.skipIf(!connectionString)(
  'EventStoreDB (skipped unless EVENTSTORE_CONNECTION_STRING is set, e.g. kurrentdb://localhost:2113?tls=false; KurrentDB 25.1 or later)',
  () => {
    const openEventStoreDb = async () => {
      const store = await EventStoreDbEventStore.create(connectionString);
      return { store, close: () => store.close() };
    };
    eventStoreContract('eventstoredb', openEventStoreDb);
    eventLogContract('eventstoredb', openEventStoreDb);

    describe('eventstoredb event store specifics', () => {
      let store: EventStoreDbEventStore;
      beforeAll(async () => {
        store = await EventStoreDbEventStore.create(connectionString);
      });
      afterAll(async () => store?.close());

      it('answers the $all position of the last event it appended', async () => {
        const head = await store.headPosition();
        const id = streamName('esdb-position');
        const result = await store.append(id, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');
        const ours = (await readAllAfter(store, head)).filter(e => e.streamId === id);
        expect(ours.map(e => e.type)).toEqual(['A', 'B', 'C']);
        expect(comparePositions(result.position, ours[2]!.position)).toBe(0);
        const stored = await store.readStream(id);
        expect(stored.map(e => [e.revision, e.version, e.metadata.eventId])).toEqual(
          ours.map(e => [e.revision, 1, e.metadata.eventId]),
        );
        expect(stored[0]!.metadata).not.toHaveProperty('schemaVersion');
      });

      it('checks the expectation of an append of no events without writing', async () => {
        const id = streamName('esdb-empty');
        expect((await store.append(id, [], 'no_stream')).nextRevision).toBe(-1);
        await expect(store.append(id, [], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevision);
        await store.append(id, [newEvent('A')], 'no_stream');
        expect((await store.append(id, [], 0)).nextRevision).toBe(0);
        await expect(store.append(id, [], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevision);
        expect(await store.readStream(id)).toHaveLength(1);
      });

      it('keeps events of a deleted stream from subscribers, though $all (and readLog) still holds them', async () => {
        const head = await store.headPosition();
        const gone = streamName('esdb-gone');
        const kept = streamName('esdb-kept');
        await store.append(gone, [newEvent('Secret', { name: 'Budi' })], 'no_stream');
        await store.append(kept, [newEvent('Kept')], 'no_stream');
        await store.deleteStream(gone);
        const seen: RecordedEvent[] = [];
        let failure: unknown;
        const sub = store.subscribe(
          head,
          async batch => void seen.push(...batch),
          err => (failure = err),
        );
        const started = Date.now();
        while (!seen.some(e => e.streamId === kept) && failure === undefined && Date.now() - started < 10_000)
          await new Promise(r => setTimeout(r, 20));
        await sub.close();
        expect(failure).toBeUndefined();
        expect(seen.filter(e => e.streamId === kept).map(e => e.type)).toEqual(['Kept']);
        expect(seen.filter(e => e.streamId === gone)).toEqual([]);
      });

      it('deletes a stream without anything a scavenge would remove: no tombstone, no truncate-before, its events still in it', async () => {
        const id = streamName('esdb-kept-for-the-chain');
        await store.append(
          id,
          [newEvent('Secret', { name: 'Budi' }), newEvent('Secret', { name: 'Sari' })],
          'no_stream',
        );
        await store.deleteStream(id);
        await store.deleteStream(id); // again: nothing more to do
        const client = DbClient.connectionString(connectionString);
        try {
          const { metadata } = await client.getStreamMetadata(id);
          expect(metadata).toEqual({ deletedByService: true });
          const raw: string[] = [];
          for await (const { event } of client.readStream(id)) if (event) raw.push(event.type);
          expect(raw).toEqual(['Secret', 'Secret', '$deletedByService']);
        } finally {
          await client.dispose();
        }
        expect(await store.readStream(id)).toEqual([]);
      });

      it('accepts a guard at -1 or no_stream on a missing stream in an append to several streams', async () => {
        const missing = streamName('esdb-guard-missing');
        const written = streamName('esdb-guard-beside');
        const results = await store.appendToStreams([
          { streamId: missing, events: [], expected: -1 },
          { streamId: written, events: [newEvent('W')], expected: 'no_stream' },
        ]);
        expect(results.map(r => r.nextRevision)).toEqual([-1, 0]);
        await store.appendToStreams([{ streamId: missing, events: [], expected: 'no_stream' }]);
        expect(await store.readStream(missing)).toEqual([]);
      });

      it('writes several streams in one atomic append whose events read back as written (metadata, schema version, positions)', async () => {
        const head = await store.headPosition();
        const a = streamName('esdb-atomic-a');
        const b = streamName('esdb-atomic-b');
        const first = { ...newEvent('A', { n: 1 }), version: 2 };
        const second = newEvent('B', { nested: { z: [1, null] } });
        const results = await store.appendToStreams([
          { streamId: a, events: [first], expected: 'no_stream' },
          { streamId: b, events: [second], expected: 'no_stream' },
        ]);
        const [readA] = await store.readStream(a);
        expect(readA).toMatchObject({ type: 'A', version: 2, data: { n: 1 }, metadata: first.metadata });
        expect((await store.readStream(b))[0]!.metadata).toEqual(second.metadata);
        const log = (await readAllAfter(store, head)).filter(e => e.streamId === a || e.streamId === b);
        expect(log.map(e => e.metadata)).toEqual([first.metadata, second.metadata]);
        expect(comparePositions(results[1]!.position, log[1]!.position)).toBe(0);
        // retried with the same events: done already
        expect(
          (
            await store.appendToStreams([
              { streamId: a, events: [first], expected: 'no_stream' },
              { streamId: b, events: [second], expected: 'no_stream' },
            ])
          ).map(r => r.nextRevision),
        ).toEqual([0, 0]);
      });

      it("splits one stream's append under the size limit, and refuses one to several streams over it, writing nothing", async () => {
        const small = await EventStoreDbEventStore.create(connectionString, { maxAppendBytes: 20_000 });
        try {
          const page = 'x'.repeat(6_000);
          const one = streamName('esdb-split');
          const events = Array.from({ length: 10 }, (_, n) => newEvent('Page', { n, page }));
          expect((await small.append(one, events, 'no_stream')).nextRevision).toBe(9);
          expect((await small.readStream(one)).map(e => e.data.n)).toEqual(events.map((_, n) => n));
          const a = streamName('esdb-too-large-a');
          const b = streamName('esdb-too-large-b');
          const refused = small.appendToStreams([
            { streamId: a, events: events.slice(0, 2), expected: 'no_stream' },
            { streamId: b, events: events.slice(2, 6).map(e => newEvent(e.type, e.data)), expected: 'no_stream' },
          ]);
          await expect(refused).rejects.toBeInstanceOf(AppendTooLarge);
          await expect(refused).rejects.toThrow(/20000 bytes/);
          expect(await small.readStream(a)).toEqual([]);
          expect(await small.readStream(b)).toEqual([]);
        } finally {
          await small.close();
        }
      });

      // A difference from the PostgreSQL adapter, kept visible: EventStoreDB dedups event ids per stream only.
      it('accepts an event id that was appended to another stream', async () => {
        const event = newEvent('A');
        await store.append(streamName('esdb-one'), [event], 'no_stream');
        const result = await store.append(streamName('esdb-two'), [event], 'no_stream');
        expect(result.nextRevision).toBe(0);
      });
    });
  },
);
