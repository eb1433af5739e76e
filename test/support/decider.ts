import { expect } from 'vitest';
import type { Decider } from '../../src/domain/decider.ts';
import type { ErrorCode } from '../../src/errors.ts';
import type { DomainEvent } from '../../src/events/event.ts';

/** given(past events).when(command).then(new events) — or .thenThrows(the refusal's error code). */
export function specification<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(history.reduce(decider.evolve, decider.initialState()), command);
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (code: ErrorCode, message?: string) => {
          expect(run).toThrow(expect.objectContaining({ code }));
          if (message) expect(run).toThrow(message);
        },
      };
    },
  });
}

/** A stream's decider as a decision over several streams uses it: its state and its events. */
type StreamDecider = { initialState: () => unknown; evolve: (state: never, event: never) => unknown };
type StateOf<D extends StreamDecider> = ReturnType<D['initialState']>;
type EventsOf<D extends StreamDecider> = Parameters<D['evolve']>[1][];
type PerStream<D extends Record<string, StreamDecider>, T extends 'state' | 'events'> = {
  [K in keyof D]: T extends 'state' ? StateOf<D[K]> : EventsOf<D[K]>;
};

/**
 * For a decision over several streams: given(each stream's past events).when(command).then(each stream's new events),
 * each stream folded by its own decider; a stream left out of `given` has no past.
 */
export function streamsSpecification<D extends Record<string, StreamDecider>, C>(
  deciders: D,
  decide: (state: PerStream<D, 'state'>, command: C) => PerStream<D, 'events'>,
) {
  const fold = (history: Partial<PerStream<D, 'events'>>) =>
    Object.fromEntries(
      Object.entries(deciders).map(([name, d]) => {
        const decider = d as unknown as Decider<unknown, never, DomainEvent>;
        const past = (history as Record<string, DomainEvent[] | undefined>)[name] ?? [];
        return [name, past.reduce(decider.evolve, decider.initialState())];
      }),
    ) as PerStream<D, 'state'>;
  return (history: Partial<PerStream<D, 'events'>>) => ({
    when: (command: C) => {
      const run = () => decide(fold(history), command);
      return {
        then: (expected: PerStream<D, 'events'>) => expect(run()).toEqual(expected),
        thenThrows: (code: ErrorCode) => expect(run).toThrow(expect.objectContaining({ code })),
      };
    },
  });
}
