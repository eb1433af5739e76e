import { expect } from 'vitest';
import type { Decider } from '../../src/commands/handle.ts';
import type { DomainEvent } from '../../src/events/event.ts';

/** given(past events).when(command).then(new events) — or .thenThrows(error type). */
export function specification<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(history.reduce(decider.evolve, decider.initialState()), command);
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (type: abstract new (...args: never[]) => Error, message?: string) => {
          expect(run).toThrow(type);
          if (message) expect(run).toThrow(message);
        },
      };
    },
  });
}
