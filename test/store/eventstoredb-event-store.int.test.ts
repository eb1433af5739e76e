import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WrongExpectedRevision, comparePositions, type RecordedEvent } from '../../src/store/event-store.ts';
import { DbClient } from '../../src/store/eventstoredb-client.ts';
import { EventStoreDbEventStore } from '../../src/store/eventstoredb-event-store.ts';
import { eventStoreContract, newEvent, readAllAfter, streamName } from './event-store.contract.ts';
import { eventLogContract } from './event-log.contract.ts';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING ?? '';

// without a server every test below is reported as skipped, under a name that says how to run them
describe.skipIf(!connectionString)('EventStoreDB (skipped unless EVENTSTORE_CONNECTION_STRING is set, e.g. esdb://localhost:2113?tls=false)', () => {
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
      expect(stored.map(e => [e.revision, e.version, e.metadata.eventId])).toEqual(ours.map(e => [e.revision, 1, e.metadata.eventId]));
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
      const sub = store.subscribe(head, async batch => void seen.push(...batch), err => (failure = err));
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
      await store.append(id, [newEvent('Secret', { name: 'Budi' }), newEvent('Secret', { name: 'Sari' })], 'no_stream');
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

    // A difference from the PostgreSQL adapter, kept visible: EventStoreDB dedups event ids per stream only.
    it('accepts an event id that was appended to another stream', async () => {
      const event = newEvent('A');
      await store.append(streamName('esdb-one'), [event], 'no_stream');
      const result = await store.append(streamName('esdb-two'), [event], 'no_stream');
      expect(result.nextRevision).toBe(0);
    });
  });
});
