import { Writable } from 'node:stream';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';
import {
  call,
  followUp,
  log,
  next,
  reaction,
  type Call,
  type Read,
  type Step,
  type Stored,
} from '../../src/sagas/reaction.ts';
import { sagaOf } from '../../src/sagas/runner.ts';
import type { EventStore } from '../../src/store/event-store.ts';
import { PaymentExpired } from '../../src/events/payments.ts';
import { stored, t0 } from './reaction-specification.ts';

const completed: Step<Stored<'PaymentCompleted'>> = {
  decide: event => [log({ paymentId: event.data.paymentId }, 'completed')],
};

const paymentId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const expiredEvent = stored(
  PaymentExpired({ paymentId, ownerId, receivingAccountId: null, expiredAt: t0.toISOString() }),
  { streamId: `payment-${paymentId}`, revision: 1 },
);

/** A runner's dependencies that only log, and the lines they logged: the store and the pool are never asked. */
function loggingDeps() {
  const lines: { msg: string; [field: string]: unknown }[] = [];
  const sink = new Writable({
    write: (chunk: Buffer, _, done) => (lines.push(JSON.parse(chunk.toString())), done()),
  });
  const deps = {
    store: {} as EventStore,
    pool: {} as pg.Pool,
    clock: new TestClock(t0),
    log: createLogger('info', sink),
  };
  return { lines, deps };
}

describe('a reaction', () => {
  it('handles the event types it has a step for, and no other', () => {
    const expired: Step<Stored<'PaymentExpired'>> = { decide: () => [] };
    expect(reaction('test', { PaymentCompleted: completed, PaymentExpired: expired }).handles).toEqual([
      'PaymentCompleted',
      'PaymentExpired',
    ]);
    expect(reaction('test', { PaymentExpired: expired }).handles).toEqual(['PaymentExpired']);
  });

  it("refuses at compile time a step under another event type's key", () => {
    // @ts-expect-error PaymentCompleted's step reads data PaymentExpired does not have
    const mismatched = reaction('test', { PaymentExpired: completed });
    expect(mismatched.handles).toEqual(['PaymentExpired']);
  });

  it('is run by its runner: the actions in order, a follow-up step with its input, now from the clock', async () => {
    const { lines, deps } = loggingDeps();
    const then: Step<{ step: number }> = {
      decide: ({ step }, _, now) => [log({ step, at: now.toISOString() }, 'follow-up')],
    };
    const expired: Step<Stored<'PaymentExpired'>> = {
      decide: (event, _, now) => [
        log({ paymentId: event.data.paymentId, at: now.toISOString() }, 'first'),
        next(then, { step: 2 }),
        log({}, 'last'),
      ],
    };
    await sagaOf(reaction('test', { PaymentExpired: expired }), deps).handle(expiredEvent);
    expect(lines.map(({ msg, paymentId, step, at }) => ({ msg, paymentId, step, at }))).toEqual([
      { msg: 'first', paymentId, step: undefined, at: t0.toISOString() },
      { msg: 'follow-up', paymentId: undefined, step: 2, at: t0.toISOString() },
      { msg: 'last', paymentId: undefined, step: undefined, at: undefined },
    ]);
  });

  it("reads through the read's own function, with the runner's dependencies, and decides on what it answers", async () => {
    const { lines, deps } = loggingDeps();
    // a kind of read the runner has never heard of: it only calls `run`
    const answer: Read<{ answer: number; same: boolean }> = {
      what: { read: 'answer', paymentId },
      run: async given => ({ answer: 42, same: given === deps }),
    };
    const expired: Step<Stored<'PaymentExpired'>, { answer: number; same: boolean }> = {
      reads: () => answer,
      decide: (_, state) => [log(state, 'answered')],
    };
    await sagaOf(reaction('test', { PaymentExpired: expired }), deps).handle(expiredEvent);
    expect(lines.map(({ msg, answer, same }) => ({ msg, answer, same }))).toEqual([
      { msg: 'answered', answer: 42, same: true },
    ]);
  });

  it("performs a call through the call's own function, with the runner's dependencies, and hands on its outcome", async () => {
    const { lines, deps } = loggingDeps();
    // a call the runner has never heard of: it only calls `run`
    let given: unknown;
    const answer: Call<number> = {
      what: { call: 'answer', paymentId },
      run: async runWith => ((given = runWith), 42),
    };
    const answered: Step<{ paymentId: string; outcome: number }> = {
      decide: ({ outcome }) => [log({ outcome, same: given === deps }, 'called')],
    };
    const expired: Step<Stored<'PaymentExpired'>> = {
      decide: event => [call(answer, followUp(answered, { paymentId: event.data.paymentId })), log({}, 'after')],
    };
    await sagaOf(reaction('test', { PaymentExpired: expired }), deps).handle(expiredEvent);
    expect(lines.map(({ msg, outcome, same }) => ({ msg, outcome, same }))).toEqual([
      { msg: 'called', outcome: 42, same: true },
      { msg: 'after', outcome: undefined, same: undefined },
    ]);
  });
});
