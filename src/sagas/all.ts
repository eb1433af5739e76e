import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { Saga } from './runner.ts';

export type SagaDeps = { store: EventStore; clock: Clock; log: Logger };

/** Every process manager the service runs. Payment matching, expiry, OTP login and webhooks join here. */
export function sagas(_deps: SagaDeps): Saga[] {
  return [];
}
