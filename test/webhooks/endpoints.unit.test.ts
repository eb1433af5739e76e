import { describe, it } from 'vitest';
import {
  UserRegistered,
  WebhookEndpointAdded,
  WebhookEndpointDisabled,
  WebhookEndpointRemoved,
} from '../../src/events/user.ts';
import { maxEndpointsPerUser, webhookEndpoints } from '../../src/domain/webhook-endpoints.ts';
import { specification } from '../support/decider.ts';

const given = specification(webhookEndpoints);
const userId = '0195f0a0-0000-7000-8000-000000000001';
const endpointId = '0195f0a0-0000-7000-8000-0000000000e1';
const now = new Date('2026-01-05T03:00:00.000Z');
const at = now.toISOString();
const secret = { iv: 'aXY=', tag: 'dGFn', data: 'ZGF0YQ==' };
const registered = UserRegistered({
  userId,
  name: 'Budi',
  email: 'budi@example.com',
  passwordHash: 'h',
  role: 'USER',
  registeredAt: at,
});
const added = (id = endpointId) =>
  WebhookEndpointAdded({ userId, endpointId: id, url: 'https://shop.example/hooks', secret, addedAt: at });
const endpointN = (n: number) => `0195f0a0-0000-7000-8000-${n.toString().padStart(12, '0')}`;

describe('webhook endpoints of a user', () => {
  it('adds an endpoint with its sealed secret', () =>
    given([registered])
      .when({ type: 'AddWebhookEndpoint', endpointId, url: 'https://shop.example/hooks', secret, events: null, now })
      .then([added()]));

  it('adds the same endpoint once', () =>
    given([registered, added()])
      .when({ type: 'AddWebhookEndpoint', endpointId, url: 'https://shop.example/hooks', secret, events: null, now })
      .then([]));

  it(`keeps at most ${maxEndpointsPerUser} endpoints; removed ones do not count`, () => {
    const full = Array.from({ length: maxEndpointsPerUser }, (_, n) => added(endpointN(n)));
    const add = {
      type: 'AddWebhookEndpoint' as const,
      endpointId,
      url: 'https://shop.example/hooks',
      secret,
      events: null,
      now,
    };
    given([registered, ...full])
      .when(add)
      .thenThrows('WEBHOOK_ENDPOINT_LIMIT');
    given([registered, ...full, WebhookEndpointRemoved({ userId, endpointId: endpointN(0), removedAt: at })])
      .when(add)
      .then([added()]);
  });

  it("lets only an admin's endpoint ask for ledger.checkpoint", () => {
    const admin = UserRegistered({
      userId,
      name: 'Ani',
      email: 'ani@example.com',
      passwordHash: 'h',
      role: 'ADMIN',
      registeredAt: at,
    });
    const ask = {
      type: 'AddWebhookEndpoint' as const,
      endpointId,
      url: 'https://shop.example/hooks',
      secret,
      events: ['ledger.checkpoint' as const],
      now,
    };
    given([registered]).when(ask).thenThrows('FORBIDDEN');
    given([admin])
      .when(ask)
      .then([
        WebhookEndpointAdded({
          userId,
          endpointId,
          url: 'https://shop.example/hooks',
          secret,
          addedAt: at,
          events: ['ledger.checkpoint'],
        }),
      ]);
  });

  it('removes an endpoint', () =>
    given([registered, added()])
      .when({ type: 'RemoveWebhookEndpoint', endpointId, now })
      .then([WebhookEndpointRemoved({ userId, endpointId, removedAt: at })]));

  it('removes an endpoint once: removing it again changes nothing', () =>
    given([registered, added(), WebhookEndpointRemoved({ userId, endpointId, removedAt: at })])
      .when({ type: 'RemoveWebhookEndpoint', endpointId, now })
      .then([]));

  it("does not know another user's endpoint, nor one that never existed", () =>
    given([registered])
      .when({ type: 'RemoveWebhookEndpoint', endpointId, now })
      .thenThrows('WEBHOOK_ENDPOINT_NOT_FOUND', 'Webhook endpoint not found'));

  describe('disabling', () => {
    const disabled = WebhookEndpointDisabled({ userId, endpointId, reason: 'gone', statusCode: 410, disabledAt: at });

    it('disables an active endpoint', () =>
      given([registered, added()])
        .when({ type: 'DisableWebhookEndpoint', endpointId, statusCode: 410, now })
        .then([disabled]));

    it('disables an endpoint once: disabling it again changes nothing', () =>
      given([registered, added(), disabled])
        .when({ type: 'DisableWebhookEndpoint', endpointId, statusCode: 410, now })
        .then([]));

    it('never disables a removed endpoint', () =>
      given([registered, added(), WebhookEndpointRemoved({ userId, endpointId, removedAt: at })])
        .when({ type: 'DisableWebhookEndpoint', endpointId, statusCode: 410, now })
        .then([]));
  });

  it('a disabled endpoint can still be removed', () =>
    given([
      registered,
      added(),
      WebhookEndpointDisabled({ userId, endpointId, reason: 'gone', statusCode: 410, disabledAt: at }),
    ])
      .when({ type: 'RemoveWebhookEndpoint', endpointId, now })
      .then([WebhookEndpointRemoved({ userId, endpointId, removedAt: at })]));
});
