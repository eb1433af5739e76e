import { z } from 'zod';
import { event, type EventOf } from './event.ts';

// stream user-email-<sha256 of the normalised email>: one claim per address keeps emails unique
export const UserEmailClaimed = event('UserEmailClaimed', 1, z.object({ userId: z.uuid() }));

export type UserEmailEvent = EventOf<typeof UserEmailClaimed>;
