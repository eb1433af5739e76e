import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../ids.ts';
import { parseRecorded, serialise, type DomainEvent } from '../../events/event.ts';
import type { Decider } from '../../domain/decider.ts';
import type { SnapshotStore } from '../snapshots.ts';
import { keyedQueue } from './keyed-queue.ts';
import type { StateCache } from './state-cache.ts';
import {
  WrongExpectedRevision,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '../event-store.ts';

/** Where commands load and append: the event store, and the snapshot and state caches when there are. */
export type EventSourcing = { store: EventStore; snapshots?: SnapshotStore; cache?: StateCache };

/** Who asked, and why: copied into the metadata of every event the command appends. */
export type CommandContext = {
  actor: string;
  now: Date;
  correlationId?: string;
  causationId?: string | null;
  /** Deterministic event ids make a re-run of the same command (a saga re-delivery) append nothing new. */
  eventId?: (index: number, event: DomainEvent) => string | undefined;
  /** The stream as the caller just loaded it (or knows it: a new random id has no stream): the first attempt skips its load. */
  loaded?: Loaded<unknown>;
};

export type Loaded<S> = { state: S; revision: number; exists: boolean; snapshotRevision: number };

/** The state this process last saw of a cached decider's stream, without reading it (null when not cached). */
export function cachedState<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
): Loaded<S> | null {
  const entry = decider.cached && es.cache ? es.cache.get(decider, streamId) : undefined;
  return entry
    ? {
        state: entry.state as S,
        revision: entry.revision,
        exists: entry.revision >= 0,
        snapshotRevision: entry.revision,
      }
    : null;
}

/**
 * The stream's state for a check before a decision: as this process last saw it, without reading, when the decider is
 * cached (the decision's append catches a write made meanwhile elsewhere); else read from the store.
 */
export async function checkedState<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
): Promise<S> {
  return (cachedState(es, streamId, decider) ?? (await load(es, streamId, decider))).state;
}

/** What a stream that does not exist yet loads as. */
export const nothingLoaded = <S>(decider: { initialState: () => S }): Loaded<S> => ({
  state: decider.initialState(),
  revision: -1,
  exists: false,
  snapshotRevision: -1,
});

export async function load<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
): Promise<Loaded<S>> {
  const cached = decider.cached && es.cache ? es.cache.get(decider, streamId) : undefined;
  if (cached && cached.revision < 0) {
    // a stream seen empty: whatever was written since (usually nothing)
    return fold(
      es,
      streamId,
      decider,
      cached.state as S,
      await es.store.readStream(streamId, { fromRevision: 0 }),
      -1,
      -1,
    );
  }
  if (cached) {
    // from the cached revision itself: its event missing means the stream was deleted (elsewhere, perhaps)
    const recorded = await es.store.readStream(streamId, { fromRevision: cached.revision });
    if (recorded[0]?.revision === cached.revision)
      return fold(es, streamId, decider, cached.state as S, recorded.slice(1), cached.revision, cached.revision);
    es.cache!.delete(decider, streamId);
  }
  const config = decider.snapshot;
  const snapshot = config && es.snapshots ? await es.snapshots.read(streamId, config.name, config.version) : null;
  const state = snapshot ? (config!.revive?.(snapshot.state) ?? (snapshot.state as S)) : decider.initialState();
  const revision = snapshot ? snapshot.revision : -1;
  const recorded = await es.store.readStream(streamId, { fromRevision: revision + 1 });
  return fold(es, streamId, decider, state, recorded, revision, snapshot?.revision ?? -1);
}

/** The state after `recorded`, kept in the state cache when the decider is cached. */
function fold<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  from: S,
  recorded: RecordedEvent[],
  fromRevision: number,
  snapshotRevision: number,
): Loaded<S> {
  let state = from;
  let revision = fromRevision;
  for (const r of recorded) {
    const event = parseRecorded(r);
    if (event) state = decider.evolve(state, event as unknown as E);
    revision = r.revision;
  }
  // an empty stream too (revision -1): a busy account's receiving stream that no bill uses is not read for each bill
  if (decider.cached && es.cache) es.cache.set(decider, streamId, revision, state);
  // with a cached state the snapshot's revision is unknown: count from the cached one (a snapshot is a cache too)
  return { state, revision, exists: revision >= 0, snapshotRevision };
}

/** Events as the store takes them: validated, with the command's metadata (who, when, why). */
export function toNewEvents(events: DomainEvent[], context: CommandContext): NewEvent[] {
  const correlationId = context.correlationId ?? randomUUID();
  const causationId = context.causationId ?? null;
  const occurredAt = context.now.toISOString();
  return events.map((e, i) => {
    const { type, version, data } = serialise(e);
    const eventId = context.eventId?.(i, e) ?? uuidv7();
    return { type, version, data, metadata: { eventId, correlationId, causationId, actor: context.actor, occurredAt } };
  });
}

/** Events between two snapshots of `state`: `every`, doubled until it is at least the state's size. */
export function snapshotInterval<S>(config: { every: number; size?: (state: S) => number }, state: S): number {
  const size = config.size?.(state) ?? 0;
  let interval = config.every;
  while (interval < size) interval *= 2;
  return interval;
}

/** The state after appended events: kept in the state cache, and snapshotted when one is due. */
export async function recordAppended<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  loaded: Loaded<S>,
  events: E[],
  nextRevision: number,
): Promise<S> {
  const next = events.reduce(decider.evolve, loaded.state);
  if (decider.cached && es.cache) es.cache.set(decider, streamId, nextRevision, next);
  const config = decider.snapshot;
  const every = config && snapshotInterval(config, next);
  // every `every` events since the last snapshot, and at every multiple of `every` (a cached state hides the snapshot's revision)
  const snapshotDue =
    every &&
    (nextRevision - loaded.snapshotRevision >= every ||
      Math.floor(nextRevision / every) > Math.floor(loaded.revision / every));
  if (config && es.snapshots && snapshotDue) {
    // a cache: losing a write only costs a longer read next time
    await es.snapshots
      .write(streamId, config.name, config.version, { revision: nextRevision, state: next })
      .catch(() => undefined);
  }
  return next;
}

export type Handled<S, E> = { state: S; events: E[]; position: Position | null; revision: number };

/** Attempts on a concurrent write, for a decider that does not say (`attempts`). */
export const defaultAttempts = 5;

// per event store, so that two services in one process (tests) do not wait on each other
const queues = new WeakMap<EventStore, ReturnType<typeof keyedQueue>>();

/** Runs `work` after the commands of this process that named `streamId` before it, one at a time. */
export function inStreamOrder<T>(es: EventSourcing, streamId: string, work: () => Promise<T>): Promise<T> {
  let queue = queues.get(es.store);
  if (!queue) queues.set(es.store, (queue = keyedQueue()));
  return queue(streamId, work);
}

/**
 * Load the stream, decide, append at the loaded revision; on a concurrent write, start again (bounded). Commands on
 * one stream from this process run one after another (a busy stream, such as a user's points debited by the syncs
 * of all their accounts, would otherwise send them racing into each other's retries); other processes are still kept
 * apart by the expected revision.
 */
export function handleCommand<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  context: CommandContext,
): Promise<Handled<S, E>> {
  return inStreamOrder(es, streamId, () => decideAndAppend(es, streamId, decider, command, context));
}

async function decideAndAppend<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  context: CommandContext,
): Promise<Handled<S, E>> {
  for (let attempt = 1; ; attempt++) {
    // first attempt: what the caller loaded, else this process's cached state (the append's expected revision
    // tells if someone wrote since; then the next attempt reads the stream)
    const first =
      attempt === 1 ? ((context.loaded as Loaded<S> | undefined) ?? cachedState(es, streamId, decider)) : null;
    const { state, revision, exists, snapshotRevision } = first ?? (await load(es, streamId, decider));
    const events = decider.decide(state, command);
    if (events.length === 0) return { state, events, position: null, revision };
    const expected: ExpectedRevision = exists ? revision : 'no_stream';
    try {
      const result = await es.store.append(streamId, toNewEvents(events, context), expected);
      const next = await recordAppended(
        es,
        streamId,
        decider,
        { state, revision, exists, snapshotRevision },
        events,
        result.nextRevision,
      );
      return { state: next, events, position: result.position, revision: result.nextRevision };
    } catch (err) {
      if (err instanceof WrongExpectedRevision && attempt < (decider.attempts ?? defaultAttempts)) {
        // writers racing on one stream: spread the retries so they do not collide again in lock step
        if (attempt > 1) await new Promise(r => setTimeout(r, Math.random() * 4 * attempt));
        continue;
      }
      throw err;
    }
  }
}
