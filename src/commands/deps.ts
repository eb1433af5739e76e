import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Projection } from '../projections/projection.ts';
import type { ProviderConnector } from '../providers/connector.ts';
import type { CredentialVault } from '../security/credentials.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import type { SnapshotStore } from '../store/snapshots.ts';
import type { StateCache } from '../store/commands/state-cache.ts';

/**
 * What command handlers need; passed in, never imported. A command that needs less (a CLI's, with no provider to
 * talk to) takes a `Pick` of it.
 */
export type CommandDeps = {
  store: EventStore;
  snapshots?: SnapshotStore;
  cache?: StateCache;
  clock: Clock;
  /** Read-your-writes: resolves once the read models (all, or those in `only`) have caught up with `position`. */
  readModels: {
    waitFor(position: Position | null, timeoutMs?: number, only?: readonly Projection[]): Promise<boolean>;
  };
  /** The banks and e-wallets, and the key that seals their credentials and sessions in events. */
  connector: ProviderConnector;
  vault: CredentialVault;
  log: Logger;
};

/** What a command that talks to no bank or e-wallet needs (the CLI's have no connector). */
export type StoreDeps = Omit<CommandDeps, 'connector' | 'vault' | 'log'>;
