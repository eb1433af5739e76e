import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream api-key-<keyId>: a key's life; only the SHA-256 of the secret is ever stored
/** An API key made by its user; the secret is shown once and only its SHA-256 kept. */
export const ApiKeyCreated = event(
  'ApiKeyCreated',
  1,
  z.object({
    keyId: z.uuid(),
    userId: z.uuid(),
    name: text.min(1).max(100),
    prefix: text,
    keyHash: text.regex(/^[0-9a-f]{64}$/),
    createdAt: isoDate,
  }),
);

/** The key was used: recorded at most once every five minutes (its last-used time). */
export const ApiKeyUsed = event('ApiKeyUsed', 1, z.object({ keyId: z.uuid(), at: isoDate }));

/** The key revoked by its user: refused from then on. */
export const ApiKeyRevoked = event('ApiKeyRevoked', 1, z.object({ keyId: z.uuid(), revokedAt: isoDate }));

export type ApiKeyEvent = EventOf<typeof ApiKeyCreated> | EventOf<typeof ApiKeyUsed> | EventOf<typeof ApiKeyRevoked>;
