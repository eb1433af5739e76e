import type { Decider } from '../../domain/decider.ts';
import type { DomainEvent } from '../../events/event.ts';
import { StreamDeleted, WrongExpectedRevision, type Position, type StreamWrite } from '../event-store.ts';
import {
  cachedState,
  defaultAttempts,
  inStreamOrder,
  load,
  nothingLoaded,
  recordAppended,
  toNewEvents,
  type CommandContext,
  type EventSourcing,
  type Loaded,
} from './handle.ts';

/**
 * One stream a command over several streams reads: its id and decider, and how it is loaded the first time: as the
 * caller has it (`loaded`), else from this process's state cache where the decider is cached, else from the store; a
 * stream whose decider says it is `likelyNew` is taken as empty instead of read (the append's no-stream expectation
 * refuses it if it exists after all). How many attempts a write to it gets, and whether its writers from this process
 * run one at a time, are its decider's too.
 */
export type StreamRead<S, E extends DomainEvent> = {
  readonly streamId: string;
  /** The decider's `serialised`: commands of this process that write the stream run one after another. */
  readonly serialised: boolean;
  /** Attempts on a concurrent write to the stream (the decider's, else the default). */
  readonly attempts: number;
  /** The decider's `shortLived`: the store keeps nothing of the stream beside its events. */
  readonly shortLived: boolean;
  first(es: EventSourcing): Promise<Loaded<S>>;
  /** After a refusal: read from the store, never from a cache. */
  again(es: EventSourcing): Promise<Loaded<S>>;
  record(es: EventSourcing, loaded: Loaded<S>, events: E[], nextRevision: number): Promise<S>;
};

export function streamRead<S, C, E extends DomainEvent>(
  streamId: string,
  decider: Decider<S, C, E>,
  options: { loaded?: Loaded<S> } = {},
): StreamRead<S, E> {
  return new DeciderRead(streamId, decider, options.loaded);
}

/** A stream read through its decider; a class, so that each command's reads make no functions of their own. */
class DeciderRead<S, C, E extends DomainEvent> implements StreamRead<S, E> {
  readonly serialised: boolean;
  readonly attempts: number;
  readonly shortLived: boolean;

  constructor(
    readonly streamId: string,
    private readonly decider: Decider<S, C, E>,
    private readonly loaded: Loaded<S> | undefined,
  ) {
    this.serialised = decider.serialised ?? false;
    this.attempts = decider.attempts ?? defaultAttempts;
    this.shortLived = decider.shortLived ?? false;
  }

  async first(es: EventSourcing): Promise<Loaded<S>> {
    const { streamId, decider } = this;
    return (
      this.loaded ??
      cachedState(es, streamId, decider) ??
      (decider.likelyNew ? nothingLoaded(decider) : await load(es, streamId, decider))
    );
  }

  again(es: EventSourcing): Promise<Loaded<S>> {
    return load(es, this.streamId, this.decider);
  }

  record(es: EventSourcing, loaded: Loaded<S>, events: E[], nextRevision: number): Promise<S> {
    return recordAppended(es, this.streamId, this.decider, loaded, events, nextRevision);
  }
}

type Reads = Record<string, StreamRead<unknown, DomainEvent>>;
type StateOf<R> = R extends StreamRead<infer S, DomainEvent> ? S : never;
type EventOfRead<R> = R extends StreamRead<unknown, infer E> ? E : never;

/** Each stream as loaded, by the name the command gave it. */
export type LoadedStreams<T extends Reads> = { [K in keyof T]: Loaded<StateOf<T[K]>> };

/** What a command decided over its streams: the events for each stream it writes, the streams it read and relies on. */
export type StreamsDecision<T extends Reads, R> = {
  append: { [K in keyof T]?: EventOfRead<T[K]>[] };
  /** Streams read but not written that must still be at the revision read when the events are appended. */
  guard?: (keyof T)[];
  /** What the caller takes back (a reserved payable, say). */
  result: R;
};

type Handled<T extends Reads, R> = {
  result: R;
  states: { [K in keyof T]: StateOf<T[K]> };
  position: Position | null;
};

/**
 * The one path for a command over several streams: loads each stream (from the state cache where possible), runs the
 * decision over them, appends every stream's events all or nothing (where the store can) with the guards checked in
 * the same append, and records the new states. On a concurrent write (WrongExpectedRevision, StreamDeleted) it loads
 * again only the stream refused and decides again, as many times as that stream's decider allows. `decide` may read
 * elsewhere (never write) before deciding; it refuses by throwing a DomainError. A command that writes a `serialised`
 * stream runs again in that stream's queue, after the commands of this process that write it (handleCommand on it
 * too), so that they do not race into retries; which streams it writes is known once it has decided, so a command
 * that only reads or guards a busy stream (a unique-code bill guarding its account) is not held up by its writers.
 */
export async function handleStreams<T extends Reads, R>(
  es: EventSourcing,
  reads: T,
  decide: (loaded: LoadedStreams<T>) => StreamsDecision<T, R> | Promise<StreamsDecision<T, R>>,
  context: CommandContext,
): Promise<Handled<T, R>> {
  const unqueued = await decideAndAppend(es, reads, decide, context, false);
  if (!('queueOn' in unqueued)) return unqueued;
  // queued on each stream in one order (sorted): two commands writing the same two streams never wait on each other
  const queued = unqueued.queueOn.reduceRight<() => Promise<Handled<T, R> | { queueOn: string[] }>>(
    (work, streamId) => () => inStreamOrder(es, streamId, work),
    () => decideAndAppend(es, reads, decide, context, true),
  );
  return (await queued()) as Handled<T, R>;
}

async function decideAndAppend<T extends Reads, R>(
  es: EventSourcing,
  reads: T,
  decide: (loaded: LoadedStreams<T>) => StreamsDecision<T, R> | Promise<StreamsDecision<T, R>>,
  context: CommandContext,
  queued: boolean,
): Promise<Handled<T, R> | { queueOn: string[] }> {
  const names = Object.keys(reads) as (keyof T & string)[];
  const loaded = Object.fromEntries(
    await Promise.all(names.map(async n => [n, await reads[n]!.first(es)] as const)),
  ) as Record<string, Loaded<unknown>>;
  for (let attempt = 1; ; attempt++) {
    const decision = await decide(loaded as LoadedStreams<T>);
    const writing = names.filter(n => (decision.append[n]?.length ?? 0) > 0);
    const states = Object.fromEntries(names.map(n => [n, loaded[n]!.state])) as { [K in keyof T]: StateOf<T[K]> };
    if (writing.length === 0) return { result: decision.result, states, position: null };
    const queueOn = queued ? [] : writing.filter(n => reads[n]!.serialised).map(n => reads[n]!.streamId);
    if (queueOn.length > 0) return { queueOn: queueOn.sort() };
    const guards = (decision.guard ?? []).filter(n => !writing.includes(n as keyof T & string)) as string[];
    const writes: StreamWrite[] = [
      ...guards.map(n => ({ streamId: reads[n]!.streamId, events: [], expected: loaded[n]!.revision })),
      ...writing.map(n => ({
        streamId: reads[n]!.streamId,
        events: toNewEvents(decision.append[n]!, context),
        expected: loaded[n]!.exists ? loaded[n]!.revision : ('no_stream' as const),
        shortLived: reads[n]!.shortLived,
      })),
    ];
    try {
      const results = await es.store.appendToStreams(writes);
      await Promise.all(
        writing.map(async (n, i) => {
          (states as Record<string, unknown>)[n] = await reads[n]!.record(
            es,
            loaded[n]!,
            decision.append[n]!,
            results[guards.length + i]!.nextRevision,
          );
        }),
      );
      return { result: decision.result, states, position: results.at(-1)!.position };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevision || err instanceof StreamDeleted)) throw err;
      const refused = names.find(n => reads[n]!.streamId === err.streamId);
      if (refused === undefined || attempt >= reads[refused]!.attempts) throw err;
      loaded[refused] = await reads[refused]!.again(es);
    }
  }
}
