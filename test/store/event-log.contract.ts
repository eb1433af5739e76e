import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutCheckpoint, emptyChain, takeEvents, type ChainSigner } from '../../src/audit/ledger-chain.ts';
import { genesisHash, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import {
  START,
  StreamDeleted,
  comparePositions,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '../../src/store/event-store.ts';
import { newEvent, readAllAfter, streamName } from './event-store.contract.ts';

/** Every event of the log after `after` (readLog, pages of `pageSize`), deleted streams' included. */
export async function readLogAfter(store: EventStore, after: Position, pageSize = 200): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (let position = after; ;) {
    const page = await store.readLog(position, pageSize);
    if (page.length === 0) return out;
    expect(page.length).toBeLessThanOrEqual(pageSize);
    out.push(...page);
    position = page[page.length - 1]!.position;
  }
}

const within = (streams: string[]) => (e: RecordedEvent) => streams.includes(e.streamId);
const ids = (events: RecordedEvent[]) => events.map(e => e.metadata.eventId);

/** An event as the log should answer it: what was written, at its stream and revision (positions are the store's own). */
const asWritten = (streamId: string, revision: number, e: NewEvent): RecordedEvent => ({
  ...e,
  streamId,
  revision,
  position: START,
});

/** The chain's checkpoints of a run of the log, cut at its end; signatures are not what this compares. */
function checkpointsOf(events: RecordedEvent[]): LedgerCheckpoint[] {
  const signer: ChainSigner = { keyId: 'contract', sign: () => 'unsigned' };
  const now = new Date('2026-01-07T00:00:00.000Z');
  const taken = takeEvents(emptyChain, events, now, signer);
  const last = cutCheckpoint(taken.state, now, signer);
  return [...taken.checkpoints, ...(last ? [last.checkpoint] : [])];
}

const onDay = (occurredAt: string, type: string, data: Record<string, unknown>, version = 1): NewEvent => {
  const e = newEvent(type, data);
  return { ...e, version, metadata: { ...e.metadata, occurredAt } };
};

/**
 * The whole log as auditors read it (readLog) and the ledger chain computed over it, the same on every adapter:
 * run against each adapter that can be reached, like eventStoreContract.
 */
export function eventLogContract(name: string, open: () => Promise<{ store: EventStore; close(): Promise<void> }>) {
  describe(`event log contract: ${name}`, () => {
    let store: EventStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => close?.());

    it('reads the whole log in global order, the same events at the same positions as readAll while no stream is deleted', async () => {
      const head = await store.headPosition();
      const a = streamName('log-a');
      const b = streamName('log-b');
      await store.append(a, [newEvent('A1', { n: 1 })], 'no_stream');
      await store.append(b, [newEvent('B1'), newEvent('B2')], 'no_stream');
      await store.append(a, [newEvent('A2', { nested: { z: 1, a: [1, 'two', null] } })], 0);
      const log = (await readLogAfter(store, head)).filter(within([a, b]));
      expect(log.map(e => [e.streamId, e.revision, e.type])).toEqual([
        [a, 0, 'A1'],
        [b, 0, 'B1'],
        [b, 1, 'B2'],
        [a, 1, 'A2'],
      ]);
      for (let i = 1; i < log.length; i++) expect(comparePositions(log[i - 1]!.position, log[i]!.position)).toBe(-1);
      const all = (await readAllAfter(store, head)).filter(within([a, b]));
      const shape = (e: RecordedEvent) => ({ ...e, data: e.data, metadata: e.metadata });
      expect(log.map(shape)).toEqual(all.map(shape));
    });

    it("keeps a deleted stream's events in the log where they were, while readers pass them by", async () => {
      const head = await store.headPosition();
      const kept = streamName('log-kept');
      const gone = streamName('log-gone');
      await store.append(kept, [newEvent('Before')], 'no_stream');
      const secrets = [newEvent('Secret', { name: 'Budi' }), newEvent('Secret', { name: 'Sari' })];
      await store.append(gone, secrets, 'no_stream');
      await store.append(kept, [newEvent('Between')], 0);
      await store.deleteStream(gone);
      await store.append(kept, [newEvent('After')], 1);

      const log = (await readLogAfter(store, head)).filter(within([kept, gone]));
      expect(log.map(e => [e.streamId, e.revision, e.type])).toEqual([
        [kept, 0, 'Before'],
        [gone, 0, 'Secret'],
        [gone, 1, 'Secret'],
        [kept, 1, 'Between'],
        [kept, 2, 'After'],
      ]);
      expect(log.filter(within([gone])).map(e => [e.metadata.eventId, e.data])).toEqual(
        secrets.map(e => [e.metadata.eventId, e.data]),
      );
      // nothing the deletion wrote for itself is an event of the log
      expect(
        (await readLogAfter(store, head)).filter(e => e.type.startsWith('$') || e.streamId.startsWith('$')),
      ).toEqual([]);
      // readers see the stream deleted, as before
      expect(await store.readStream(gone)).toEqual([]);
      expect((await readAllAfter(store, head)).filter(within([kept, gone])).map(e => e.type)).toEqual([
        'Before',
        'Between',
        'After',
      ]);
      await expect(store.append(gone, [newEvent('Again')], 'any')).rejects.toBeInstanceOf(StreamDeleted);
      await expect(store.append(gone, [newEvent('Again')], 1)).rejects.toBeInstanceOf(StreamDeleted);
      await expect(store.append(gone, [newEvent('Again')], 'no_stream')).rejects.toBeInstanceOf(StreamDeleted);
      expect((await readLogAfter(store, head)).filter(within([gone]))).toHaveLength(2);
    });

    it('pages the log by position: a page starts after the position given, holds at most maxCount, and pages join up', async () => {
      const head = await store.headPosition();
      const paged = streamName('log-paged');
      const gone = streamName('log-paged-gone');
      await store.append(paged, [newEvent('P0'), newEvent('P1')], 'no_stream');
      await store.append(gone, [newEvent('G0'), newEvent('G1')], 'no_stream');
      await store.append(paged, [newEvent('P2'), newEvent('P3')], 1);
      await store.deleteStream(gone);
      const whole = (await readLogAfter(store, head)).filter(within([paged, gone]));
      expect(whole.map(e => e.type)).toEqual(['P0', 'P1', 'G0', 'G1', 'P2', 'P3']);
      for (const size of [1, 2, 5])
        expect(ids((await readLogAfter(store, head, size)).filter(within([paged, gone])))).toEqual(ids(whole));
      // nobody else writes to this store meanwhile: a page from an event of ours is the next events of ours
      expect(ids(await store.readLog(whole[1]!.position, 2))).toEqual(ids(whole.slice(2, 4)));
      expect(ids(await store.readLog(whole[3]!.position, 10))).toEqual(ids(whole.slice(4)));
      expect(await store.readLog(whole[5]!.position, 10)).toEqual([]);
      expect(await store.readLog(head, 0)).toEqual([]);
    });

    it("gives the ledger chain the checkpoints of the log as written, whichever adapter serves it (a deleted stream's events in it)", async () => {
      const head = await store.headPosition();
      const ledger = streamName('log-ledger');
      const gone = streamName('log-ledger-gone');
      // two WIB days (the first event of the second cuts a checkpoint); values whose bytes a store could change:
      // keys out of order, nesting, unicode, a sealed secret and a password hash (leaves hold their commitments)
      const day1 = '2026-01-05T16:59:59.000Z';
      const day2 = '2026-01-05T17:00:00.000Z';
      const written: [string, NewEvent[]][] = [
        [
          ledger,
          [
            onDay(day1, 'Opened', {
              z: 'last',
              a: 'first',
              amount: 15_000,
              note: 'Rp 15.000 — kopi ☕ 🙂',
              tags: [],
              extra: {},
            }),
          ],
        ],
        [
          gone,
          [
            onDay(
              day1,
              'Linked',
              { credentials: { iv: 'aXY=', tag: 'dGFn', data: 'c2VjcmV0' }, passwordHash: '$argon2id$v=19$x' },
              2,
            ),
          ],
        ],
        [
          ledger,
          [
            onDay(day1, 'Credited', { amount: 9_007_199_254_740_991, rate: 0.7, flags: [true, false, null] }),
            onDay(day2, 'Settled', { amount: 1, nested: { b: { y: 2, x: 1 } } }),
          ],
        ],
        [gone, [onDay(day2, 'Synced', { mutations: [{ amount: -2_500, at: day2 }] })]],
        [ledger, [onDay(day2, 'Closed', { reason: 'line\u2028break "quoted" \\ slash' })]],
      ];
      const revisions = new Map<string, number>();
      const expected: RecordedEvent[] = [];
      for (const [streamId, events] of written) {
        const before = revisions.get(streamId);
        await store.append(streamId, events, before ?? 'no_stream');
        for (const e of events) {
          const revision = (revisions.get(streamId) ?? -1) + 1;
          revisions.set(streamId, revision);
          expected.push(asWritten(streamId, revision, e));
        }
      }
      await store.deleteStream(gone);

      const served: RecordedEvent[] = [];
      for await (const e of logEvents(store, head)) if (within([ledger, gone])(e)) served.push(e);
      expect(served.map(e => [e.streamId, e.revision])).toEqual(expected.map(e => [e.streamId, e.revision]));
      const chained = checkpointsOf(served);
      const reference = checkpointsOf(expected);
      expect(chained).toHaveLength(2);
      expect(chained[0]!.prev).toBe(genesisHash);
      // the store's own positions (lastPosition, and so the next prev) are informational: the roots and counts are the chain's
      const cover = (c: LedgerCheckpoint) => ({ seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root });
      expect(chained.map(cover)).toEqual(reference.map(cover));
      expect(chained.map(c => c.events)).toEqual([3, 3]);
    });
  });
}
