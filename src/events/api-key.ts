import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream api-key-<keyId>: a key's life; only the SHA-256 of the secret is ever stored
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

export const ApiKeyUsed = event('ApiKeyUsed', 1, z.object({ keyId: z.uuid(), at: isoDate }));

export const ApiKeyRevoked = event('ApiKeyRevoked', 1, z.object({ keyId: z.uuid(), revokedAt: isoDate }));

export type ApiKeyEvent = EventOf<typeof ApiKeyCreated> | EventOf<typeof ApiKeyUsed> | EventOf<typeof ApiKeyRevoked>;
