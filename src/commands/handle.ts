import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../ids.ts';
import { parseRecorded, serialise, type DomainEvent } from '../events/event.ts';
import type { SnapshotStore } from '../store/snapshots.ts';
import {
  WrongExpectedRevision,
  type EventStore,
  type ExpectedRevision,
  type Position,
} from '../store/event-store.ts';

export type Decider<S, C, E extends DomainEvent> = {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  /** Pure: no I/O, no clock, no randomness; throws a DomainError to refuse the command. */
  decide: (state: S, command: C) => E[];
  /**
   * For long streams: keep a snapshot of the state every `every` events. The state must survive a JSON round
   * trip; bump `version` whenever its shape or evolve changes, and old snapshots are ignored.
   */
  snapshot?: { name: string; version: number; every: number };
};

/** Where commands load and append: the event store, and the snapshot cache when there is one. */
export type EventSourcing = { store: EventStore; snapshots?: SnapshotStore };

/** Who asked, and why: copied into the metadata of every event the command appends. */
export type CommandContext = {
  actor: string;
  now: Date;
  correlationId?: string;
  causationId?: string | null;
  /** Deterministic event ids make a re-run of the same command (a saga re-delivery) append nothing new. */
  eventId?: (index: number, event: DomainEvent) => string | undefined;
  /** Attempts on concurrent writes (default 5); a busy stream may ask for more. */
  attempts?: number;
};

export type Loaded<S> = { state: S; revision: number; exists: boolean; snapshotRevision: number };

export async function load<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
): Promise<Loaded<S>> {
  const config = decider.snapshot;
  const snapshot = config && es.snapshots ? await es.snapshots.read(streamId, config.name, config.version) : null;
  let state = snapshot ? (snapshot.state as S) : decider.initialState();
  let revision = snapshot ? snapshot.revision : -1;
  const recorded = await es.store.readStream(streamId, { fromRevision: revision + 1 });
  for (const r of recorded) {
    const event = parseRecorded(r);
    if (event) state = decider.evolve(state, event as unknown as E);
    revision = r.revision;
  }
  return { state, revision, exists: revision >= 0, snapshotRevision: snapshot?.revision ?? -1 };
}

export type Handled<S, E> = { state: S; events: E[]; position: Position | null; revision: number };

const maxAttempts = 5;

/** Load the stream, decide, append at the loaded revision; on a concurrent write, start again (bounded). */
export async function handleCommand<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  context: CommandContext,
): Promise<Handled<S, E>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision, exists, snapshotRevision } = await load(es, streamId, decider);
    const events = decider.decide(state, command);
    if (events.length === 0) return { state, events, position: null, revision };
    const expected: ExpectedRevision = exists ? revision : 'no_stream';
    const correlationId = context.correlationId ?? randomUUID();
    try {
      const result = await es.store.append(
        streamId,
        events.map((e, i) => ({
          ...serialise(e),
          metadata: {
            eventId: context.eventId?.(i, e) ?? uuidv7(),
            correlationId,
            causationId: context.causationId ?? null,
            actor: context.actor,
            occurredAt: context.now.toISOString(),
          },
        })),
        expected,
      );
      const next = events.reduce(decider.evolve, state);
      const config = decider.snapshot;
      if (config && es.snapshots && result.nextRevision - snapshotRevision >= config.every) {
        // a cache: losing a write only costs a longer read next time
        await es.snapshots.write(streamId, config.name, config.version, { revision: result.nextRevision, state: next }).catch(() => undefined);
      }
      return { state: next, events, position: result.position, revision: result.nextRevision };
    } catch (err) {
      if (err instanceof WrongExpectedRevision && attempt < (context.attempts ?? maxAttempts)) {
        // writers racing on one stream: spread the retries so they do not collide again in lock step
        if (attempt > 1) await new Promise(r => setTimeout(r, Math.random() * 4 * attempt));
        continue;
      }
      throw err;
    }
  }
}
