import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream user-<userId>
/** A user registered: name, email, the argon2id hash of the password and the role. */
export const UserRegistered = event(
  'UserRegistered',
  1,
  z.object({
    userId: z.uuid(),
    name: text.min(1),
    email: text.min(3),
    passwordHash: text.min(1),
    role: z.enum(['USER', 'ADMIN']),
    registeredAt: isoDate,
  }),
);

/**
 * The user's password replaced: by the user, signed in and knowing the old one, or by an admin's reset through the CLI
 * (a temporary password handed to the user). Holds the new argon2id hash, as UserRegistered does.
 */
export const PasswordChanged = event(
  'PasswordChanged',
  1,
  z.object({
    userId: z.uuid(),
    passwordHash: text.min(1),
    reason: z.enum(['changed', 'reset']),
    changedAt: isoDate,
  }),
);

/** A plan given to the user (the free plan at registration) until its expiry. */
export const SubscriptionGranted = event(
  'SubscriptionGranted',
  1,
  z.object({
    userId: z.uuid(),
    plan: z.object({ name: text, slug: text }),
    status: z.enum(['ACTIVE']),
    expiresAt: isoDate,
  }),
);

/** Points given to the user (the free plan's at registration); syncs and account creation spend them. */
export const PointsGranted = event(
  'PointsGranted',
  1,
  z.object({
    userId: z.uuid(),
    points: z.int().positive(),
    reason: text,
  }),
);

/** Points spent: a scheduled sync of one of the accounts, or creating one. */
export const PointsDebited = event(
  'PointsDebited',
  1,
  z.object({
    userId: z.uuid(),
    points: z.int().positive(),
    reason: z.enum(['account-sync', 'account-creation']),
    accountId: z.uuid(),
  }),
);

/** Audit trail of a deleted account: no personal data, its stream is gone. */
export const AccountDeleted = event(
  'AccountDeleted',
  1,
  z.object({
    userId: z.uuid(),
    accountId: z.uuid(),
    deletedAt: isoDate,
  }),
);

/** A sealed value (src/security/credentials.ts): AES-256-GCM, never the plain text. */
const sealed = z.object({ iv: text, tag: text, data: text });

/** What an endpoint narrows the account kinds to (src/domain/webhook-events.ts); an absent list lets every value pass. */
export const webhookFilters = z.object({
  accountIds: z.array(z.uuid()).min(1).optional(),
  mutationTypes: z
    .array(z.enum(['CREDIT', 'DEBIT']))
    .min(1)
    .optional(),
});

/** A webhook endpoint of the user; its signing secret is sealed (it must be recovered to sign, so it is not hashed). */
export const WebhookEndpointAdded = event(
  'WebhookEndpointAdded',
  1,
  z.object({
    userId: z.uuid(),
    endpointId: z.uuid(),
    url: text.min(1),
    secret: sealed,
    addedAt: isoDate,
    /** the event kinds it is sent; absent: the payment and transfer kinds (an endpoint made before it could choose) */
    events: z.array(text).optional(),
    /** the account kinds of these accounts only, mutations of these types only; absent: all (made before it could say) */
    filters: webhookFilters.optional(),
  }),
);

/** A webhook endpoint removed by its user: nothing more is sent to it. */
export const WebhookEndpointRemoved = event(
  'WebhookEndpointRemoved',
  1,
  z.object({
    userId: z.uuid(),
    endpointId: z.uuid(),
    removedAt: isoDate,
  }),
);

/** The receiver asked for no more deliveries (410 Gone); nothing is sent to the endpoint from then on. */
export const WebhookEndpointDisabled = event(
  'WebhookEndpointDisabled',
  1,
  z.object({
    userId: z.uuid(),
    endpointId: z.uuid(),
    reason: z.enum(['gone']),
    statusCode: z.int(),
    disabledAt: isoDate,
  }),
);

export type WebhookEndpointEvent =
  | EventOf<typeof WebhookEndpointAdded>
  | EventOf<typeof WebhookEndpointRemoved>
  | EventOf<typeof WebhookEndpointDisabled>;

/** The merchant asked for the payment gateway with their business data: access is PENDING. */
export const GatewayAccessRequested = event(
  'GatewayAccessRequested',
  1,
  z.object({
    userId: z.uuid(),
    businessName: text.min(1),
    businessType: text.min(1),
    phone: text.min(1),
    address: text.min(1),
    website: text.nullable(),
    description: text.nullable(),
    requestedAt: isoDate,
  }),
);

/** An admin approved the merchant's gateway access: APPROVED. */
export const GatewayAccessApproved = event(
  'GatewayAccessApproved',
  1,
  z.object({
    userId: z.uuid(),
    approvedBy: z.uuid(),
    approvedAt: isoDate,
  }),
);

/** An admin rejected the merchant's gateway access request, with a note: REJECTED (the merchant may ask again). */
export const GatewayAccessRejected = event(
  'GatewayAccessRejected',
  1,
  z.object({
    userId: z.uuid(),
    note: text.min(1),
    rejectedBy: z.uuid(),
    rejectedAt: isoDate,
  }),
);

/** An approved merchant taken off the gateway: access becomes REJECTED with the reason in its note. */
export const GatewayAccessDeactivated = event(
  'GatewayAccessDeactivated',
  1,
  z.object({
    userId: z.uuid(),
    note: text.min(1),
    deactivatedBy: z.uuid(),
    deactivatedAt: isoDate,
  }),
);

/** Who pays the gateway fee: the buyer (feeToCustomer) or the merchant (deducted from the credit, the default). */
export const GatewayFeeModeChanged = event(
  'GatewayFeeModeChanged',
  1,
  z.object({
    userId: z.uuid(),
    feeToCustomer: z.boolean(),
    changedAt: isoDate,
  }),
);

export type GatewayAccessEvent =
  | EventOf<typeof GatewayAccessRequested>
  | EventOf<typeof GatewayAccessApproved>
  | EventOf<typeof GatewayAccessRejected>
  | EventOf<typeof GatewayAccessDeactivated>
  | EventOf<typeof GatewayFeeModeChanged>;

export type UserEvent =
  | EventOf<typeof UserRegistered>
  | EventOf<typeof PasswordChanged>
  | EventOf<typeof SubscriptionGranted>
  | EventOf<typeof PointsGranted>
  | EventOf<typeof PointsDebited>
  | EventOf<typeof AccountDeleted>
  | WebhookEndpointEvent
  | GatewayAccessEvent;
