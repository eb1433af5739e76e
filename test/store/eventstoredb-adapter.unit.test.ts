import { describe, expect, it } from 'vitest';
import {
  MaxAppendSizeExceededError,
  StreamNotFoundError,
  StreamTombstonedError,
  TransactionMaxSizeExceededError,
  UnsupportedError,
  WrongExpectedVersionError,
  type AppendStreamRequest,
  type AppendStreamState,
  type DbClient,
  type DbRecordedEvent,
  type EventData,
} from '../../src/store/eventstoredb-client.ts';
import { UnknownError } from '@kurrent/kurrentdb-client';
import {
  AppendTooLarge,
  EventStoreDbEventStore,
  EventStoreUnusable,
  MAX_EVENT_BYTES,
} from '../../src/store/eventstoredb-event-store.ts';
import { StreamDeleted, WrongExpectedRevision, type NewEvent } from '../../src/store/event-store.ts';

/**
 * What the adapter asks of @kurrent/kurrentdb-client, answered in memory the way KurrentDB 25.1 answers it (read from
 * the server's source: StreamsService.AppendSession, EventRecord's metadata made from a record's properties), so that
 * the calls the adapter makes and how it maps the answers can be checked without a server.
 */
class FakeKurrent {
  readonly streams = new Map<string, DbRecordedEvent[]>();
  readonly log: DbRecordedEvent[] = [];
  readonly appends: { streamName: string; events: EventData[]; streamState: AppendStreamState }[] = [];
  readonly multiAppends: AppendStreamRequest[][] = [];
  /** Throws instead of writing, for the next multi-stream append. */
  refuseMultiAppend: Error | null = null;
  /** The server's MaxAppendSize as it counts a single-stream append (data, metadata, type twice). */
  maxAppendSize = 256 * 1024 * 1024;
  hasMultiStreamAppend = true;
  disposed = false;
  readonly capabilities: Promise<{ serverVersion: string }>;

  constructor(serverVersion = '25.1.4') {
    this.capabilities = Promise.resolve({ serverVersion });
  }

  private write(streamName: string, event: EventData, metadata: unknown): void {
    const stream = this.streams.get(streamName) ?? [];
    const position = BigInt(this.log.length + 1) * 100n;
    const recorded: DbRecordedEvent = {
      streamId: streamName,
      id: event.id,
      revision: BigInt(stream.length),
      type: event.type,
      data: event.data,
      metadata,
      isJson: true,
      created: new Date(0),
      position: { commit: position, prepare: position },
    } as DbRecordedEvent;
    stream.push(recorded);
    this.streams.set(streamName, stream);
    this.log.push(recorded);
  }

  private lastRevision(streamName: string): bigint | 'no_stream' {
    const stream = this.streams.get(streamName);
    return stream ? BigInt(stream.length - 1) : 'no_stream';
  }

  private check(streamName: string, state: AppendStreamState): void {
    const actual = this.lastRevision(streamName);
    const met =
      state === 'any' ||
      (state === 'no_stream' && actual === 'no_stream') ||
      (state === 'stream_exists' && actual !== 'no_stream') ||
      state === actual;
    if (!met) throw new WrongExpectedVersionError(undefined, { streamName, expected: state, current: actual });
  }

  async appendToStream(
    streamName: string,
    events: EventData | EventData[],
    options: { streamState: AppendStreamState },
  ) {
    const list = Array.isArray(events) ? events : [events];
    this.appends.push({ streamName, events: list, streamState: options.streamState });
    const size = list.reduce(
      (sum, e) => sum + JSON.stringify(e.data).length + JSON.stringify(e.metadata ?? '').length + e.type.length * 2,
      0,
    );
    if (size > this.maxAppendSize) throw MaxAppendSizeExceededError.fromMaxAppendSize(this.maxAppendSize);
    this.check(streamName, options.streamState);
    for (const event of list) this.write(streamName, event, event.metadata);
    const last = this.log[this.log.length - 1]!;
    return { success: true, nextExpectedRevision: last.revision, position: last.position };
  }

  async multiStreamAppend(requests: AppendStreamRequest[]) {
    if (!this.hasMultiStreamAppend) throw new UnsupportedError('multiStreamAppend', '25.1');
    this.multiAppends.push(requests);
    if (requests.length === 0) throw new UnknownError(); // AppendSessionNoRequests, a status the client does not name
    if (this.refuseMultiAppend) throw this.refuseMultiAppend;
    for (const r of requests) this.check(r.streamName, r.expectedState);
    for (const r of requests)
      for (const event of r.events)
        // the server keeps the properties and adds the schema's name and format (EventRecord.SynthesizeMetadataFromProperties)
        this.write(r.streamName, event, {
          ...(event.metadata as Record<string, string>),
          '$schema.name': event.type,
          '$schema.format': 'Json',
        });
    return {
      position: this.log[this.log.length - 1]!.position!.commit,
      responses: requests.map(r => ({ streamName: r.streamName, revision: this.lastRevision(r.streamName) as bigint })),
    };
  }

  readStream(streamName: string, options: { direction?: string; fromRevision?: bigint | string; maxCount?: number }) {
    const stream = this.streams.get(streamName);
    return (async function* () {
      if (!stream) throw new StreamNotFoundError(undefined, streamName);
      const backwards = options.direction === 'backwards';
      const from = typeof options.fromRevision === 'bigint' ? Number(options.fromRevision) : null;
      let events = backwards ? [...stream].reverse() : stream;
      if (from !== null) events = events.filter(e => (backwards ? e.revision <= from : e.revision >= from));
      for (const event of events.slice(0, options.maxCount ?? events.length)) yield { event };
    })();
  }

  readAll(options: { direction?: string; maxCount?: number; filter?: { prefixes?: string[] } }) {
    const log = this.log;
    return (async function* () {
      let events = options.direction === 'backwards' ? [...log].reverse() : log;
      const prefixes = options.filter?.prefixes;
      if (prefixes) events = events.filter(e => prefixes.some(p => e.type.startsWith(p)));
      for (const event of events.slice(0, options.maxCount ?? events.length)) yield { event };
    })();
  }

  async getStreamMetadata(streamName: string) {
    return { streamName };
  }

  async dispose() {
    this.disposed = true;
  }
}

const open = (fake: FakeKurrent, options: { maxAppendBytes?: number } = {}) =>
  EventStoreDbEventStore.open(fake as unknown as DbClient, options);

let count = 0;
const event = (type: string, data: Record<string, unknown> = {}): NewEvent => {
  count++;
  return {
    type,
    version: 1,
    data,
    metadata: {
      eventId: `00000000-0000-4000-8000-${String(count).padStart(12, '0')}`,
      correlationId: '00000000-0000-4000-8000-999999999999',
      causationId: null,
      actor: 'test',
      occurredAt: '2026-11-27T00:00:00.000Z',
    },
  };
};

const conflict = (stream: string, expectedRevision: string, actualRevision: string) =>
  // how the client reports the multi-stream append's StreamRevisionConflict (its convertToCommandError)
  WrongExpectedVersionError.fromRevisionConflict({ stream, expectedRevision, actualRevision });

describe('the KurrentDB adapter at start', () => {
  it('refuses KurrentDB 25.1.0, whose multi-stream append could answer wrong revisions, and lets the client go', async () => {
    const fake = new FakeKurrent('25.1.0');
    await expect(open(fake)).rejects.toThrow(EventStoreUnusable);
    await expect(open(fake)).rejects.toThrow(/25\.1\.1 or later/);
    expect(fake.disposed).toBe(true);
  });

  it('accepts 25.1.1 and later, and a server whose version is not known', async () => {
    for (const version of ['25.1.1', '25.1.4', '26.1.0', 'unknown', '0.0.0']) {
      const fake = new FakeKurrent(version);
      const store = await open(fake);
      expect(fake.disposed, version).toBe(false);
      await store.close();
    }
  });

  it('refuses a server without the multi-stream append, naming the version needed', async () => {
    const fake = new FakeKurrent('25.0.1');
    fake.hasMultiStreamAppend = false;
    await expect(open(fake)).rejects.toThrow(/KurrentDB 25\.1 or later/);
    expect(fake.disposed).toBe(true);
  });
});

describe('the KurrentDB adapter appending to several streams', () => {
  it("sends one multi-stream append: each stream's expected state, the metadata as one string property; answers the server's revisions", async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    const first = { ...event('A', { n: 1 }), version: 2 };
    await store.append('b', [event('B0'), event('B1')], 'no_stream');
    const results = await store.appendToStreams([
      { streamId: 'a', events: [first], expected: 'no_stream' },
      { streamId: 'b', events: [event('B2'), event('B3')], expected: 1 },
    ]);
    const [requests] = fake.multiAppends.filter(r => r.length > 0);
    expect(requests!.map(r => [r.streamName, r.expectedState])).toEqual([
      ['a', 'no_stream'],
      ['b', 1n],
    ]);
    for (const r of requests!)
      for (const e of r.events)
        expect(Object.values(e.metadata as object).every(v => typeof v === 'string')).toBe(true);
    // the server answers each stream's last revision, which is the port's nextRevision as it is
    expect(results.map(r => r.nextRevision)).toEqual([0, 3]);
    expect(results[1]!.position).toEqual(fake.log[fake.log.length - 1]!.position);
    const [readBack] = await store.readStream('a');
    expect(readBack).toMatchObject({ type: 'A', version: 2, data: { n: 1 }, metadata: first.metadata });
    await store.close();
  });

  it("takes a conflict on a later stream as the port's WrongExpectedRevision, naming that stream and its revision", async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    await store.append('taken', [event('T')], 'no_stream');
    fake.refuseMultiAppend = conflict('taken', '-1', '0');
    const refused = store.appendToStreams([
      { streamId: 'first', events: [event('F')], expected: 'no_stream' },
      { streamId: 'taken', events: [event('T2')], expected: 'no_stream' },
    ]);
    await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevision);
    await expect(refused).rejects.toMatchObject({ streamId: 'taken', expected: 'no_stream', actual: 0 });

    fake.refuseMultiAppend = conflict('later', '4', '-1');
    await expect(
      store.appendToStreams([
        { streamId: 'first', events: [event('F')], expected: 'no_stream' },
        { streamId: 'later', events: [event('L')], expected: 4 },
      ]),
    ).rejects.toMatchObject({ streamId: 'later', expected: 4, actual: 'no_stream' });
    await store.close();
  });

  it('takes a retry refused as a conflict for done when every event is where the append put it', async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    const writes = [
      { streamId: 'x', events: [event('X')], expected: 'no_stream' as const },
      { streamId: 'y', events: [event('Y')], expected: 'no_stream' as const },
    ];
    await store.appendToStreams(writes);
    fake.refuseMultiAppend = conflict('x', '-1', '0');
    expect((await store.appendToStreams(writes)).map(r => r.nextRevision)).toEqual([0, 0]);
    await store.close();
  });

  it("takes a tombstoned stream as StreamDeleted and a transaction over MaxAppendSize as AppendTooLarge with the server's limit", async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    const writes = [
      { streamId: 'p', events: [event('P')], expected: 'no_stream' as const },
      { streamId: 'q', events: [event('Q')], expected: 'no_stream' as const },
    ];
    fake.refuseMultiAppend = new StreamTombstonedError(undefined as never, { stream: 'q' });
    await expect(store.appendToStreams(writes)).rejects.toMatchObject({ streamId: 'q' });
    await expect(store.appendToStreams(writes)).rejects.toBeInstanceOf(StreamDeleted);
    fake.refuseMultiAppend = new TransactionMaxSizeExceededError(undefined as never, {
      size: 2_000_000,
      maxSize: 1_048_576,
    });
    await expect(store.appendToStreams(writes)).rejects.toBeInstanceOf(AppendTooLarge);
    await expect(store.appendToStreams(writes)).rejects.toThrow(/1048576 bytes/);
    await store.close();
  });

  it('refuses two streams whose names differ only in case before sending: the server compares them ignoring case', async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    await expect(
      store.appendToStreams([
        { streamId: 'payment-ABC', events: [event('A')], expected: 'no_stream' },
        { streamId: 'payment-abc', events: [event('B')], expected: 'no_stream' },
      ]),
    ).rejects.toThrow(/appears twice/);
    expect(fake.multiAppends.filter(r => r.length > 0)).toEqual([]);
    await store.close();
  });
});

describe('the KurrentDB adapter and the size of an append', () => {
  const pages = (n: number) => Array.from({ length: n }, (_, i) => event('Page', { i, page: 'x'.repeat(30_000) }));

  it('writes 2 MB to one stream in one append, atomically: KurrentDB 25.1 takes 256 MiB by default', async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    expect((await store.append('sync', pages(70), 'no_stream')).nextRevision).toBe(69);
    expect(fake.appends).toHaveLength(1);
    await store.close();
  });

  it('splits at consecutive revisions when the server names a lower MaxAppendSize', async () => {
    const fake = new FakeKurrent();
    fake.maxAppendSize = 1024 * 1024;
    const store = await open(fake);
    const events = pages(70);
    expect((await store.append('sync', events, 'no_stream')).nextRevision).toBe(69);
    const written = fake.appends.slice(1); // the first was refused whole
    expect(written.map(a => a.streamState)).toEqual([
      'no_stream',
      ...written.slice(1).map((_, i) => BigInt(written.slice(0, i + 1).reduce((n, a) => n + a.events.length, 0) - 1)),
    ]);
    expect(written.flatMap(a => a.events.map(e => e.id))).toEqual(events.map(e => e.metadata.eventId));
    await store.close();
  });

  it('refuses an event larger than KurrentDB stores before sending it', async () => {
    const fake = new FakeKurrent();
    const store = await open(fake);
    const huge = event('Huge', { blob: 'x'.repeat(MAX_EVENT_BYTES) });
    await expect(store.append('big', [huge], 'no_stream')).rejects.toBeInstanceOf(AppendTooLarge);
    expect(fake.appends).toEqual([]);
    await store.close();
  });
});
