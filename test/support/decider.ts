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
