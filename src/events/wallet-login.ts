import { z } from 'zod';
import { sealed } from './account.ts';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

/** What the login is for: a new account (its settings) or a relogin of an existing one. */
const purpose = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('new'), providerCode: text, accountName: text, intervalMinutes: z.int().positive() }),
  z.object({ kind: z.literal('relogin'), accountId: z.uuid() }),
]);

// stream wallet-login-<sessionId>: one OTP session, from the code sent to the provider's answer
/** An OTP login begun: the provider sent a code to the phone, for a new account or a relogin. */
export const OtpRequested = event(
  'OtpRequested',
  1,
  z.object({
    sessionId: z.uuid(),
    ownerId: z.uuid(),
    providerCode: text,
    phoneNumber: text,
    purpose,
    /** the PIN given at step 1 (wallet A), sealed as the account's credentials ({pin}) */
    pin: sealed.nullable(),
    challengeId: text,
    channel: z.enum(['MESSENGER', 'SMS']),
    /** the session that asked for this second OTP (wallet C), or null at step 1 */
    previousSessionId: z.uuid().nullable(),
    requestedAt: isoDate,
    expiresAt: isoDate,
  }),
);

/** A wrong code given: the attempts so far. */
export const OtpRejected = event(
  'OtpRejected',
  1,
  z.object({ sessionId: z.uuid(), attempts: z.int().positive(), at: isoDate }),
);

/** The provider asked for a second code (wallet C): the login goes on in the next session. */
export const SecondOtpRequired = event(
  'SecondOtpRequired',
  1,
  z.object({
    sessionId: z.uuid(),
    nextSessionId: z.uuid(),
    at: isoDate,
  }),
);

/**
 * The provider accepted the code: the account is linked or reactivated from what this event holds (the saga that does
 * it reads nothing else).
 */
export const WalletLoginCompleted = event(
  'WalletLoginCompleted',
  1,
  z.object({
    sessionId: z.uuid(),
    ownerId: z.uuid(),
    providerCode: text,
    phoneNumber: text,
    purpose,
    /** the account created (purpose new) or reactivated (relogin) */
    accountId: z.uuid(),
    /** the PIN given at step 1 (wallet A), sealed as the account's credentials */
    pin: sealed.nullable(),
    /** the provider session, sealed: the account stream takes it from here */
    providerSession: sealed,
    holderName: text.nullable(),
    completedAt: isoDate,
  }),
);

/** The login ended without an account: too many wrong codes, the provider refused, or the code expired. */
export const WalletLoginFailed = event(
  'WalletLoginFailed',
  1,
  z.object({
    sessionId: z.uuid(),
    reason: z.enum(['too-many-attempts', 'provider-refused', 'expired']),
    at: isoDate,
  }),
);

export type WalletLoginEvent =
  | EventOf<typeof OtpRequested>
  | EventOf<typeof OtpRejected>
  | EventOf<typeof SecondOtpRequired>
  | EventOf<typeof WalletLoginCompleted>
  | EventOf<typeof WalletLoginFailed>;
