import type { Clock } from '../clock.ts';
import type { Projection } from '../projections/projection.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import type { SnapshotStore } from '../store/snapshots.ts';
import type { StateCache } from '../store/commands/state-cache.ts';

/** What command handlers need; passed in, never imported. */
export type CommandDeps = {
  store: EventStore;
  snapshots?: SnapshotStore;
  cache?: StateCache;
  clock: Clock;
  /** Read-your-writes: resolves once the read models (all, or those in `only`) have caught up with `position`. */
  readModels: {
    waitFor(position: Position | null, timeoutMs?: number, only?: readonly Projection[]): Promise<boolean>;
  };
};
