import type { DomainEvent } from '../events/event.ts';

/**
 * A stream type's rules: its state folded from its events, and the events a command adds. Beside them, how the
 * command machinery (src/store/commands) keeps the stream fast, declared once for every command on it.
 */
export type Decider<S, C, E extends DomainEvent> = {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  /** Pure: no I/O, no clock, no randomness; throws a DomainError to refuse the command. */
  decide: (state: S, command: C) => E[];
  /**
   * For long streams: keep a snapshot of the state every `every` events. The state must survive a JSON round
   * trip; bump `version` whenever its shape or evolve changes, and old snapshots are ignored. A state that grows
   * (the payables a busy account holds) gives its `size` in items: it is snapshotted every `every` × 2^k events, the
   * first such interval at least its size, so that writing snapshots costs about the same per event at any size.
   */
  snapshot?: {
    name: string;
    version: number;
    every: number;
    size?: (state: S) => number;
    /** The state from its JSON (a state holding more than plain data builds it again here); plain data by default. */
    revive?: (json: unknown) => S;
  };
  /** Keep the latest state in this process's StateCache (streams that are never deleted, and busy). */
  cached?: boolean;
  /**
   * A stream that a command over several streams finds new (an order id seen for the first time): unless cached, it
   * is taken as empty without a read; if it exists after all, the append's no-stream expectation refuses it, and it is
   * read. Only for a stream type whose every such command is ready to create it.
   */
  likelyNew?: boolean;
  /**
   * A busy stream: the commands of this process that write it run one after another instead of racing each other into
   * retries (other processes are still kept apart by the expected revision).
   */
  serialised?: boolean;
  /**
   * A stream written a few times while it is young and then left (a payment, a bill's claim, an order id): the store
   * keeps nothing of it beside its events (on PostgreSQL no es_streams row, which would cost as much as an event).
   */
  shortLived?: boolean;
  /** Attempts on a concurrent write to this stream before the command gives up (default 5): more for a stream that several processes write at once. */
  attempts?: number;
};
