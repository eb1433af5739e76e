import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream session-<sessionId>: one dashboard login, from sign-in to logout
/** A dashboard sign-in: the session cookie names this session. */
export const SessionStarted = event(
  'SessionStarted',
  1,
  z.object({
    sessionId: z.uuid(),
    userId: z.uuid(),
    userAgent: text.nullable(),
    ip: text.nullable(),
    startedAt: isoDate,
    expiresAt: isoDate,
  }),
);

/** The session was used: recorded at most once every five minutes (what its idle limit counts from). */
export const SessionSeen = event('SessionSeen', 1, z.object({ sessionId: z.uuid(), at: isoDate }));

/** The session ended: logged out, revoked, or idle past its limit. */
export const SessionEnded = event(
  'SessionEnded',
  1,
  z.object({
    sessionId: z.uuid(),
    reason: z.enum(['logout', 'revoked', 'idle']),
    endedAt: isoDate,
  }),
);

export type SessionEvent = EventOf<typeof SessionStarted> | EventOf<typeof SessionSeen> | EventOf<typeof SessionEnded>;
