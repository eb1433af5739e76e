import { randomUUID } from 'node:crypto';
import type { CommandDeps } from './deps.ts';
import { handleCommand, type Decider, type EventSourcing } from './handle.ts';
import { userStream } from '../domain/user.ts';
import type { Clock } from '../clock.ts';
import { refuse } from '../errors.ts';
import { WebhookEndpointAdded, WebhookEndpointDisabled, WebhookEndpointRemoved, type UserEvent } from '../events/user.ts';
import type { CredentialVault, Sealed } from '../security/credentials.ts';
import { parseWebhookUrl, resolveTarget, TargetRefused, type AddressPolicy } from '../security/address-guard.ts';
import { adminOnlyWebhookEvents, defaultWebhookEvents, type WebhookEventType } from '../webhooks/outbox.ts';
import { generateWebhookSecret } from '../webhooks/signature.ts';

/** A user's webhook endpoints live in the user stream (DESIGN.md section 3); this decider is its view of them. */
export type WebhookEndpoints = { userId: string | null; role?: 'USER' | 'ADMIN'; endpoints: Record<string, 'active' | 'disabled' | 'removed'> };

export type WebhookEndpointCommand =
  | { type: 'AddWebhookEndpoint'; endpointId: string; url: string; secret: Sealed; events: WebhookEventType[] | null; now: Date }
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
          throw refuse('FORBIDDEN', { message: `Only an admin's endpoint may receive ${forAdmins.join(', ')}`, errors: [{ path: 'body.events', message: 'admins only' }] });
        const kept = Object.values(state.endpoints).filter(s => s !== 'removed').length;
        if (kept >= maxEndpointsPerUser) {
          throw refuse('WEBHOOK_ENDPOINT_LIMIT', { message: `At most ${maxEndpointsPerUser} webhook endpoints; remove one first` });
        }
        return [
          WebhookEndpointAdded({
            userId: state.userId,
            endpointId: command.endpointId,
            url: command.url,
            secret: command.secret,
            addedAt: command.now.toISOString(),
            ...(command.events ? { events: command.events } : {}),
          }),
        ];
      }
      case 'RemoveWebhookEndpoint':
        // another owner's endpoint is not in this stream: as unknown as one that never existed
        if (!current) throw endpointNotFound();
        if (current === 'removed') return [];
        return [WebhookEndpointRemoved({ userId: state.userId, endpointId: command.endpointId, removedAt: command.now.toISOString() })];
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

/** The URL as it will be stored, after the SSRF guard: 400 with the reason when it may not be called. */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy): Promise<string> {
  try {
    const url = parseWebhookUrl(raw);
    if (!policy.allowPrivate) await resolveTarget(url, policy);
    return url.href;
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    const code = err.reason === 'INVALID_URL' ? 'VALIDATION_ERROR' : 'WEBHOOK_URL_REFUSED';
    throw refuse(code, { message: `Webhook URL refused: ${err.message}`, errors: [{ path: 'body.url', message: err.message }], params: { reason: err.reason } });
  }
}

export type EndpointDeps = CommandDeps & { vault: CredentialVault };

/** Registers an endpoint; its secret is answered here only, and stored sealed. */
export async function addWebhookEndpoint(
  deps: EndpointDeps,
  policy: AddressPolicy,
  userId: string,
  input: { url: string; events?: WebhookEventType[] | undefined },
  actor: string,
) {
  const rawUrl = input.url;
  const events = input.events ? [...new Set(input.events)] : null;
  const url = await checkWebhookUrl(rawUrl, policy);
  const secret = generateWebhookSecret();
  const endpointId = randomUUID();
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    userStream(userId),
    webhookEndpoints,
    { type: 'AddWebhookEndpoint', endpointId, url, secret: deps.vault.seal(secret), events, now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
  return { id: endpointId, url, secret, events: events ?? [...defaultWebhookEvents], createdAt: now.toISOString() };
}

export async function removeWebhookEndpoint(deps: CommandDeps, userId: string, endpointId: string, actor: string): Promise<void> {
  const now = deps.clock.now();
  const result = await handleCommand(deps, userStream(userId), webhookEndpoints, { type: 'RemoveWebhookEndpoint', endpointId, now }, { actor, now });
  await deps.readModels.waitFor(result.position);
}

/** The receiver answered 410 Gone: nothing more is sent to this endpoint. */
export async function disableWebhookEndpoint(deps: EventSourcing & { clock: Clock }, userId: string, endpointId: string, statusCode: number) {
  const now = deps.clock.now();
  await handleCommand(deps, userStream(userId), webhookEndpoints, { type: 'DisableWebhookEndpoint', endpointId, statusCode, now }, {
    actor: 'system:webhooks',
    now,
  });
}
