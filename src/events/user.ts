import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream user-<userId>
export const UserRegistered = event('UserRegistered', 1, z.object({
  userId: z.uuid(),
  name: text.min(1),
  email: text.min(3),
  passwordHash: text.min(1),
  role: z.enum(['USER', 'ADMIN']),
  registeredAt: isoDate,
}));

export const SubscriptionGranted = event('SubscriptionGranted', 1, z.object({
  userId: z.uuid(),
  plan: z.object({ name: text, slug: text }),
  status: z.enum(['ACTIVE']),
  expiresAt: isoDate,
}));

export const PointsGranted = event('PointsGranted', 1, z.object({
  userId: z.uuid(),
  points: z.int().positive(),
  reason: text,
}));

export const PointsDebited = event('PointsDebited', 1, z.object({
  userId: z.uuid(),
  points: z.int().positive(),
  reason: z.enum(['account-sync']),
  accountId: z.uuid(),
}));

/** Audit trail of a deleted account: no personal data, its stream is gone. */
export const AccountDeleted = event('AccountDeleted', 1, z.object({
  userId: z.uuid(),
  accountId: z.uuid(),
  deletedAt: isoDate,
}));

/** A sealed value (src/security/credentials.ts): AES-256-GCM, never the plain text. */
const sealed = z.object({ iv: text, tag: text, data: text });

/** A webhook endpoint of the user; its signing secret is sealed (it must be recovered to sign, so it is not hashed). */
export const WebhookEndpointAdded = event('WebhookEndpointAdded', 1, z.object({
  userId: z.uuid(),
  endpointId: z.uuid(),
  url: text.min(1),
  secret: sealed,
  addedAt: isoDate,
}));

export const WebhookEndpointRemoved = event('WebhookEndpointRemoved', 1, z.object({
  userId: z.uuid(),
  endpointId: z.uuid(),
  removedAt: isoDate,
}));

/** The receiver asked for no more deliveries (410 Gone); nothing is sent to the endpoint from then on. */
export const WebhookEndpointDisabled = event('WebhookEndpointDisabled', 1, z.object({
  userId: z.uuid(),
  endpointId: z.uuid(),
  reason: z.enum(['gone']),
  statusCode: z.int(),
  disabledAt: isoDate,
}));

export type WebhookEndpointEvent =
  | EventOf<typeof WebhookEndpointAdded>
  | EventOf<typeof WebhookEndpointRemoved>
  | EventOf<typeof WebhookEndpointDisabled>;

export type UserEvent =
  | EventOf<typeof UserRegistered>
  | EventOf<typeof SubscriptionGranted>
  | EventOf<typeof PointsGranted>
  | EventOf<typeof PointsDebited>
  | EventOf<typeof AccountDeleted>
  | WebhookEndpointEvent;
