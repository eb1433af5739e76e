import { expect } from 'vitest';
import type { Decider } from '../../src/domain/decider.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import type { DomainEvent, StoredEvent } from '../../src/events/event.ts';
import type { Action, AnyStep, Reaction, Read, Step } from '../../src/sagas/reaction.ts';

export const t0 = new Date('2026-03-02T03:00:00.000Z');

/** An event as the store hands it to a reaction: at `streamId@revision`, with metadata. */
export function stored<E extends AnyEvent>(event: E, at: { streamId: string; revision: number }): StoredEvent<E> {
  const metadata = {
    eventId: '00000000-0000-4000-8000-000000000001',
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: t0.toISOString(),
  };
  return { ...event, ...at, metadata, position: { commit: 1n, prepare: 1n } };
}

type Given<S> = { events: DomainEvent[] } | { state: S };

/** Actions as tests compare them: a call by what it calls (its function is a new closure each time). */
const comparable = (actions: Action[]) =>
  actions.map(action => (action.type === 'Call' ? { ...action, call: action.call.what } : action));

/**
 * given(what the step reads).when(its input).then(the actions), without a database. What it reads is given as the past
 * events of the stream it reads (folded with that stream's decider) or, for other reads, as the read's answer.
 */
function specificationOf<I, S>(stepFor: (input: I) => AnyStep | undefined) {
  const given = (what: Given<S>) => ({
    when: (input: I, now: Date = t0) => {
      const step = stepFor(input);
      const read = step?.reads?.(input as never) as Read<unknown> | undefined;
      const decider = read?.what.decider as Decider<unknown, unknown, DomainEvent> | undefined;
      const state = () => {
        if ('state' in what) return what.state;
        if (!read) return undefined;
        if (!decider) throw new Error(`the step reads ${read.what.read}: give its answer with givenState`);
        return what.events.reduce(decider.evolve, decider.initialState());
      };
      const run = () => (step ? step.decide(input as never, state() as never, now) : []);
      return {
        then: (expected: Action[]) => expect(comparable(run())).toEqual(comparable(expected)),
        thenThrows: (message: string) => expect(run).toThrow(message),
        /** what the step asks the runner to read before it decides (compared by what it reads: functions are not) */
        reads: (expected: Read<unknown> | undefined) => expect(read?.what).toEqual(expected?.what),
      };
    },
  });
  return { given: (events: DomainEvent[]) => given({ events }), givenState: (state: S) => given({ state }) };
}

/** A reaction's specification: `when` hands it an event, to the step of its type (none: no actions). */
export const reactionSpecification = (reaction: Reaction) =>
  specificationOf<StoredEvent<AnyEvent>, unknown>(event => reaction.on[event.type] as AnyStep | undefined);

/** A follow-up step's specification: `when` hands it what an action's outcome or a `next` gives it. */
export const stepSpecification = <I, S>(step: Step<I, S>) => specificationOf<I, S>(() => step as AnyStep);
