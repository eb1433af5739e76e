import { z } from 'zod';
import { event, type EventOf } from './event.ts';

// stream user-email-<sha256 of the normalised email>: one claim per address keeps emails unique
/** The address claimed by a user at registration: a second registration with it is refused. */
export const UserEmailClaimed = event('UserEmailClaimed', 1, z.object({ userId: z.uuid() }));

export type UserEmailEvent = EventOf<typeof UserEmailClaimed>;
