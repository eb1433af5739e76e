import { randomUUID } from 'node:crypto';
import { parseRecorded, serialise, type DomainEvent } from '../events/event.ts';
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
};

/** Who asked, and why: copied into the metadata of every event the command appends. */
export type CommandContext = {
  actor: string;
  now: Date;
  correlationId?: string;
  causationId?: string | null;
  /** Deterministic event ids make a re-run of the same command (a saga re-delivery) append nothing new. */
  eventId?: (index: number) => string;
};

export type Loaded<S> = { state: S; revision: number; exists: boolean };

export async function load<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
): Promise<Loaded<S>> {
  const recorded = await store.readStream(streamId);
  let state = decider.initialState();
  for (const r of recorded) {
    const event = parseRecorded(r);
    if (event) state = decider.evolve(state, event as unknown as E);
  }
  const last = recorded[recorded.length - 1];
  return { state, revision: last ? last.revision : -1, exists: last !== undefined };
}

export type Handled<S, E> = { state: S; events: E[]; position: Position | null; revision: number };

const maxAttempts = 5;

/** Load the stream, decide, append at the loaded revision; on a concurrent write, start again (bounded). */
export async function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  context: CommandContext,
): Promise<Handled<S, E>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision, exists } = await load(store, streamId, decider);
    const events = decider.decide(state, command);
    if (events.length === 0) return { state, events, position: null, revision };
    const expected: ExpectedRevision = exists ? revision : 'no_stream';
    const correlationId = context.correlationId ?? randomUUID();
    try {
      const result = await store.append(
        streamId,
        events.map((e, i) => ({
          ...serialise(e),
          metadata: {
            eventId: context.eventId?.(i) ?? randomUUID(),
            correlationId,
            causationId: context.causationId ?? null,
            actor: context.actor,
            occurredAt: context.now.toISOString(),
          },
        })),
        expected,
      );
      return { state: events.reduce(decider.evolve, state), events, position: result.position, revision: result.nextRevision };
    } catch (err) {
      if (err instanceof WrongExpectedRevision && attempt < maxAttempts) continue;
      throw err;
    }
  }
}
