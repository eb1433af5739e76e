import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream auditor-<auditorId>: an auditor's token, which reads the ledger and posts cosignatures (/api/audit) and
// nothing else; only the SHA-256 of the token is ever stored (as keyHash: committed in exports, redacted in views)
/** An auditor's token made by an admin; only its SHA-256 kept. */
export const AuditorCreated = event(
  'AuditorCreated',
  1,
  z.object({
    auditorId: z.uuid(),
    name: text.min(1).max(100),
    prefix: text,
    keyHash: text.regex(/^[0-9a-f]{64}$/),
    createdAt: isoDate,
  }),
);

/** The auditor's token revoked: refused from then on. */
export const AuditorRevoked = event('AuditorRevoked', 1, z.object({ auditorId: z.uuid(), revokedAt: isoDate }));

export type AuditorEvent = EventOf<typeof AuditorCreated> | EventOf<typeof AuditorRevoked>;
