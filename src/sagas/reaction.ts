import type { Decider } from '../domain/decider.ts';
import type { Handled } from '../store/commands/handle.ts';
import type { AnyEvent } from '../events/all.ts';
import type { DomainEvent, StoredEvent } from '../events/event.ts';
import type { WebhookEventType } from '../domain/webhook-events.ts';
import type { WebhookSubject } from '../webhooks/outbox.ts';
import type { ReactionDeps } from './runner.ts';

/**
 * A reaction to events (a saga, a process manager), as Emmett's workflows are: each event type it handles has a step
 * that names what it needs to know (`reads`) and a pure `decide(input, state, now)` answering actions as data. The I/O
 * (reading, commands, the webhook outbox, logs) is the runner's (src/sagas/runner.ts). An action's outcome, when the
 * reaction needs it, goes on to a follow-up step of its own, so a decision that depends on what a command did is pure
 * too. Delivery is at least once: commands carry event ids derived from the causing event (`eventIds`), the outbox is
 * idempotent on the webhook event id, and deciders ignore what already happened.
 */
export type Reaction = {
  /** The subscriber's name is `saga:<name>`, its checkpoint's too: renaming a reaction replays the log into it. */
  name: string;
  /** The event types it handles (the keys of `on`); the others pass by. */
  handles: readonly EventType[];
  on: Steps;
};

export type EventType = AnyEvent['type'];

/** A declared event of one type, as the store hands it over. */
export type Stored<T extends EventType> = StoredEvent<Extract<AnyEvent, { type: T }>>;

/** One step per event type; the compiler checks that each step takes the event of its key. */
export type Steps = { [T in EventType]?: StepOn<Stored<T>> };

/** A reaction from its steps; `handles` is derived from them. */
export function reaction(name: string, on: Steps): Reaction {
  return { name, on, handles: Object.keys(on) as EventType[] };
}

/**
 * What a step needs to know besides its input, read by the runner before it decides (absent: nothing, and `state` is
 * undefined). `decide` is pure: no I/O, no clock (`now` is read by the runner), no randomness; it may throw when the
 * decision cannot be made yet (the runner then stops at the event and tries it again).
 */
export type Step<I, S = undefined> = {
  reads?: (input: I) => Read<S>;
  decide: (input: I, state: S, now: Date) => Action[];
};

/** A step on input `I`, whatever it reads (the runner hands what it read back to its own `decide`). */
export type StepOn<I> = {
  reads?: (input: I) => Read<unknown>;
  decide: (input: I, state: never, now: Date) => Action[];
};

/** Any step, as actions carry them (the builders below check the input). */
export type AnyStep = StepOn<never>;

/**
 * What a step reads: `what` describes it as data (tests compare it; a stream's read names its decider, which folds
 * given events), `run` reads it with the runner's dependencies. The builders are in src/sagas/reads.ts.
 */
export type Read<S> = {
  readonly what: { readonly read: string; readonly [parameter: string]: unknown };
  readonly run: (deps: ReactionDeps) => Promise<S>;
};

/**
 * A workflow function a step calls: `what` describes the call as data (tests compare it), `run` calls it with the
 * runner's dependencies. The builders are in src/sagas/calls.ts.
 */
export type Call<O> = {
  readonly what: { readonly call: string; readonly [parameter: string]: unknown };
  readonly run: (deps: ReactionDeps) => Promise<O>;
};

/** Who acts and why, copied into the metadata of what a command appends; `eventIds` derives its event ids (sagaEventId). */
export type ReactionContext = {
  actor: string;
  now: Date;
  correlationId: string;
  causationId: string;
  eventIds?: { saga: string; cause: string };
};

/** Where an action's outcome goes: `step`, given `with` and `outcome`. */
export type Then<O> = { step: AnyStep; with: object; readonly answers?: (outcome: O) => void };
export const followUp = <I extends { outcome: unknown }, S>(
  step: Step<I, S>,
  given: Omit<I, 'outcome'>,
): Then<I['outcome']> => ({ step: step as AnyStep, with: given });

/** An event for the owner's webhook endpoints, through the outbox (src/webhooks/outbox.ts). */
export type WebhookEvent = {
  ownerId: string;
  eventId: string;
  type: WebhookEventType;
  createdAt: string;
  data: unknown;
  /** the account an account kind is about, and a mutation's type: the endpoints' filters choose by them */
  subject?: WebhookSubject;
};

/** What a step asks the runner to do, in order. */
export type Action =
  /** a command on one stream, through its decider (handleCommand: loaded, decided, appended with retries) */
  | {
      type: 'Command';
      streamId: string;
      decider: object;
      command: object;
      context: ReactionContext;
      then?: Then<never>;
    }
  /** a workflow function's call (src/sagas/calls.ts), its outcome handed to `then` */
  | { type: 'Call'; call: Call<unknown>; then?: Then<never> }
  | { type: 'PublishWebhook'; event: WebhookEvent }
  | { type: 'Log'; fields: Record<string, unknown>; message: string }
  /** goes on to another step of the reaction with `input` (it reads what that step reads) */
  | { type: 'Next'; step: AnyStep; input: unknown };

export function command<S, C extends object, E extends DomainEvent>(
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  context: ReactionContext,
  after?: Then<Handled<S, E>>,
): Action {
  return { type: 'Command', streamId, decider, command, context, ...(after ? { then: after as Then<never> } : {}) };
}

export const call = <O>(call: Call<O>, after?: Then<O>): Action => ({
  type: 'Call',
  call: call as Call<unknown>,
  ...(after ? { then: after as Then<never> } : {}),
});

export const publishWebhook = (event: WebhookEvent): Action => ({ type: 'PublishWebhook', event });

export const log = (fields: Record<string, unknown>, message: string): Action => ({ type: 'Log', fields, message });

export const next = <I, S>(step: Step<I, S>, input: NoInfer<I>): Action => ({
  type: 'Next',
  step: step as AnyStep,
  input,
});

/** The causing event, as sagas name it in causationId and derive event ids from: `<stream>@<revision>`. */
export const causeOf = (event: { streamId: string; revision: number }) => `${event.streamId}@${event.revision}`;
