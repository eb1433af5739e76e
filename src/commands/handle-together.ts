import type { DomainEvent } from '../events/event.ts';
import type { AppendResult, Position, StreamWrite } from '../store/event-store.ts';
import { recordAppended, toNewEvents, type CommandContext, type Decider, type EventSourcing, type Loaded } from './handle.ts';

/** One stream's part of a decision over several streams: the stream as loaded and the events its decider decided. */
export type StreamCommand<S = unknown> = {
  streamId: string;
  loaded: Loaded<S>;
  events: DomainEvent[];
  record(nextRevision: number): Promise<S>;
};

/** The part of `streamId`: `decider.decide(loaded.state, command)`, decided by the caller (it may need the events). */
export function streamCommand<S, C, E extends DomainEvent>(
  es: EventSourcing,
  streamId: string,
  decider: Decider<S, C, E>,
  loaded: Loaded<S>,
  events: E[],
): StreamCommand<S> {
  return { streamId, loaded, events, record: nextRevision => recordAppended(es, streamId, decider, loaded, events, nextRevision) };
}

/** A stream the decision read but does not write: it must still be at the revision read when the events are appended. */
type Guard = { streamId: string; revision: number };

/**
 * Appends the events every part decided on its stream as loaded, all at once (all or nothing where the store can),
 * with the guards checked in the same append. One attempt: a refusal (WrongExpectedRevision, StreamDeleted) names the
 * stream to load again, and the caller decides whether to try again.
 */
export async function handleCommandsTogether(
  es: EventSourcing,
  parts: StreamCommand[],
  guards: Guard[],
  context: CommandContext,
): Promise<{ states: unknown[]; position: Position | null }> {
  const writing = parts.filter(p => p.events.length > 0);
  const writes: StreamWrite[] = [
    ...guards.map(g => ({ streamId: g.streamId, events: [], expected: g.revision })),
    ...writing.map(part => ({
      streamId: part.streamId,
      events: toNewEvents(part.events, context),
      expected: part.loaded.exists ? part.loaded.revision : ('no_stream' as const),
    })),
  ];
  const results: AppendResult[] = writing.length > 0 ? await es.store.appendToStreams(writes) : [];
  const byStream = new Map(writing.map((part, i) => [part.streamId, results[guards.length + i]!]));
  const states = await Promise.all(
    parts.map(part => {
      const result = byStream.get(part.streamId);
      return result ? part.record(result.nextRevision) : Promise.resolve(part.loaded.state);
    }),
  );
  return { states, position: results.at(-1)?.position ?? null };
}
