import type { Decider } from './decider.ts';
import { refuse } from '../errors.ts';
import {
  WebhookEndpointAdded,
  WebhookEndpointDisabled,
  WebhookEndpointRemoved,
  type UserEvent,
} from '../events/user.ts';
import type { Sealed } from '../events/account.ts';
import type { z } from 'zod';
import type { webhookFilters } from '../events/user.ts';
import { adminOnlyWebhookEvents, type WebhookEventType } from './webhook-events.ts';

/** A user's webhook endpoints live in the user stream; this decider is its view of them. */
export type WebhookEndpoints = {
  userId: string | null;
  role?: 'USER' | 'ADMIN';
  endpoints: Record<string, 'active' | 'disabled' | 'removed'>;
};

/** An endpoint's filters on the account kinds, as its event records them. */
export type WebhookFilters = z.output<typeof webhookFilters>;

export type WebhookEndpointCommand =
  | {
      type: 'AddWebhookEndpoint';
      endpointId: string;
      url: string;
      secret: Sealed;
      events: WebhookEventType[] | null;
      filters?: WebhookFilters | null;
      now: Date;
    }
  | { type: 'RemoveWebhookEndpoint'; endpointId: string; now: Date }
  | { type: 'DisableWebhookEndpoint'; endpointId: string; statusCode: number; now: Date };

export const maxEndpointsPerUser = 20;

export const endpointNotFound = () => refuse('WEBHOOK_ENDPOINT_NOT_FOUND');

export const webhookEndpoints: Decider<WebhookEndpoints, WebhookEndpointCommand, UserEvent> = {
  // the user stream grows by a point debit per sync: read it from a snapshot of its own
  snapshot: { name: 'webhook-endpoints', version: 2, every: 100 },
  initialState: () => ({ userId: null, endpoints: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, userId: event.data.userId, role: event.data.role };
      case 'WebhookEndpointAdded':
        return { ...state, endpoints: { ...state.endpoints, [event.data.endpointId]: 'active' } };
      case 'WebhookEndpointDisabled':
        return { ...state, endpoints: { ...state.endpoints, [event.data.endpointId]: 'disabled' } };
      case 'WebhookEndpointRemoved':
        return { ...state, endpoints: { ...state.endpoints, [event.data.endpointId]: 'removed' } };
      default:
        return state; // the stream's other events do not concern endpoints
    }
  },
  decide(state, command) {
    if (!state.userId) throw refuse('NOT_FOUND', { message: 'user not found' });
    const current = state.endpoints[command.endpointId];
    switch (command.type) {
      case 'AddWebhookEndpoint': {
        if (current) return [];
        const forAdmins = command.events?.filter(e => adminOnlyWebhookEvents.includes(e)) ?? [];
        if (forAdmins.length > 0 && state.role !== 'ADMIN')
          throw refuse('FORBIDDEN', {
            message: `Only an admin's endpoint may receive ${forAdmins.join(', ')}`,
            errors: [{ path: 'body.events', message: 'admins only' }],
          });
        const kept = Object.values(state.endpoints).filter(s => s !== 'removed').length;
        if (kept >= maxEndpointsPerUser) {
          throw refuse('WEBHOOK_ENDPOINT_LIMIT', {
            message: `At most ${maxEndpointsPerUser} webhook endpoints; remove one first`,
          });
        }
        return [
          WebhookEndpointAdded({
            userId: state.userId,
            endpointId: command.endpointId,
            url: command.url,
            secret: command.secret,
            addedAt: command.now.toISOString(),
            ...(command.events ? { events: command.events } : {}),
            ...(command.filters ? { filters: command.filters } : {}),
          }),
        ];
      }
      case 'RemoveWebhookEndpoint':
        // another owner's endpoint is not in this stream: as unknown as one that never existed
        if (!current) throw endpointNotFound();
        if (current === 'removed') return [];
        return [
          WebhookEndpointRemoved({
            userId: state.userId,
            endpointId: command.endpointId,
            removedAt: command.now.toISOString(),
          }),
        ];
      case 'DisableWebhookEndpoint':
        if (current !== 'active') return [];
        return [
          WebhookEndpointDisabled({
            userId: state.userId,
            endpointId: command.endpointId,
            reason: 'gone',
            statusCode: command.statusCode,
            disabledAt: command.now.toISOString(),
          }),
        ];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
