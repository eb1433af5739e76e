import { randomUUID } from 'node:crypto';
import type { CommandDeps } from './deps.ts';
import { handleCommand, type EventSourcing } from '../store/commands/handle.ts';
import { userStream } from '../domain/user.ts';
import type { Clock } from '../clock.ts';
import { refuse } from '../errors.ts';
import type { CredentialVault } from '../security/credentials.ts';
import { parseWebhookUrl, resolveTarget, TargetRefused, type AddressPolicy } from '../security/address-guard.ts';
import { defaultWebhookEvents, type WebhookEventType } from '../domain/webhook-events.ts';
import { generateWebhookSecret } from '../security/webhook-signature.ts';
import { webhookEndpoints, type WebhookFilters } from '../domain/webhook-endpoints.ts';

/** The URL as it will be stored, after the SSRF guard: 400 with the reason when it may not be called. */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy): Promise<string> {
  try {
    const url = parseWebhookUrl(raw);
    if (!policy.allowPrivate) await resolveTarget(url, policy);
    return url.href;
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    const code = err.reason === 'INVALID_URL' ? 'VALIDATION_ERROR' : 'WEBHOOK_URL_REFUSED';
    throw refuse(code, {
      message: `Webhook URL refused: ${err.message}`,
      errors: [{ path: 'body.url', message: err.message }],
      params: { reason: err.reason },
    });
  }
}

export type EndpointDeps = CommandDeps & { vault: CredentialVault };

/** Registers an endpoint; its secret is answered here only, and stored sealed. */
export async function addWebhookEndpoint(
  deps: EndpointDeps,
  policy: AddressPolicy,
  userId: string,
  input: { url: string; events?: WebhookEventType[] | undefined; filters?: WebhookFilters | undefined },
  actor: string,
) {
  const rawUrl = input.url;
  const events = input.events ? [...new Set(input.events)] : null;
  const filters = filtersOf(input.filters);
  const url = await checkWebhookUrl(rawUrl, policy);
  const secret = generateWebhookSecret();
  const endpointId = randomUUID();
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    userStream(userId),
    webhookEndpoints,
    { type: 'AddWebhookEndpoint', endpointId, url, secret: deps.vault.seal(secret), events, filters, now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
  return {
    id: endpointId,
    url,
    secret,
    events: events ?? [...defaultWebhookEvents],
    filters,
    createdAt: now.toISOString(),
  };
}

/** The filters as kept: each list without repeats, an empty object as none. */
function filtersOf(filters: WebhookFilters | undefined): WebhookFilters | null {
  const accountIds = filters?.accountIds ? [...new Set(filters.accountIds)] : undefined;
  const mutationTypes = filters?.mutationTypes ? [...new Set(filters.mutationTypes)] : undefined;
  if (!accountIds && !mutationTypes) return null;
  return { ...(accountIds ? { accountIds } : {}), ...(mutationTypes ? { mutationTypes } : {}) };
}

export async function removeWebhookEndpoint(
  deps: CommandDeps,
  userId: string,
  endpointId: string,
  actor: string,
): Promise<void> {
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    userStream(userId),
    webhookEndpoints,
    { type: 'RemoveWebhookEndpoint', endpointId, now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
}

/** The receiver answered 410 Gone: nothing more is sent to this endpoint. */
export async function disableWebhookEndpoint(
  deps: EventSourcing & { clock: Clock },
  userId: string,
  endpointId: string,
  statusCode: number,
) {
  const now = deps.clock.now();
  await handleCommand(
    deps,
    userStream(userId),
    webhookEndpoints,
    { type: 'DisableWebhookEndpoint', endpointId, statusCode, now },
    {
      actor: 'system:webhooks',
      now,
    },
  );
}
