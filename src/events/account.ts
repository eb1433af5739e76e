import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

/** An AES-256-GCM sealed value (credentials, provider sessions): events never hold them in the clear. */
export const sealed = z.object({ iv: text, tag: text, data: text });
export type Sealed = z.infer<typeof sealed>;

// stream account-<accountId>
/** A bank or e-wallet account linked by its owner: its provider, settings and sealed credentials and session. */
export const AccountLinked = event(
  'AccountLinked',
  1,
  z.object({
    accountId: z.uuid(),
    ownerId: z.uuid(),
    type: z.enum(['bank', 'ewallet']),
    providerCode: text,
    accountName: text,
    accountNumber: text.nullable(),
    phoneNumber: text.nullable(),
    holderName: text.nullable(),
    intervalMinutes: z.int().positive(),
    credentials: sealed.nullable(),
    session: sealed.nullable(),
    isActive: z.boolean(),
    linkedAt: isoDate,
    /** scheduled syncs before this instant were paid for when the account was created (absent: none were) */
    syncsPaidUntil: isoDate.optional(),
  }),
);

/** The account's name or sync interval changed by its owner. */
export const AccountSettingsChanged = event(
  'AccountSettingsChanged',
  1,
  z.object({
    accountId: z.uuid(),
    accountName: text.optional(),
    intervalMinutes: z.int().positive().optional(),
    changedAt: isoDate,
  }),
);

/** A bank account's username or password replaced, after the bank accepted the new ones. */
export const CredentialsChanged = event(
  'CredentialsChanged',
  1,
  z.object({
    accountId: z.uuid(),
    credentials: sealed,
    session: sealed.nullable(),
    changedAt: isoDate,
  }),
);

/**
 * A transaction a sync found on the account (or an outbound transfer recorded at once), recorded once per provider
 * transaction: the credits complete payments.
 */
export const MutationRecorded = event(
  'MutationRecorded',
  1,
  z.object({
    accountId: z.uuid(),
    mutationId: z.uuid(),
    providerTransactionId: text,
    type: z.enum(['CREDIT', 'DEBIT']),
    amount: rupiah,
    description: text,
    senderName: text,
    reference: text.nullable(),
    occurredAt: isoDate,
    recordedAt: isoDate,
  }),
);

export const syncTrigger = z.enum(['schedule', 'refresh', 'payment-check']);

/** A sync read the account's balance and recorded its new mutations (in the same append). */
export const AccountSynced = event(
  'AccountSynced',
  2,
  z.object({
    accountId: z.uuid(),
    balance: z.int(),
    syncedAt: isoDate,
    /** the scheduled time this sync answers; null for a manual refresh or a payment check */
    slot: isoDate.nullable(),
    cursor: text.nullable(),
    /** what asked for it: the schedule, the user (refresh), or pending payments (a check, which moves no schedule) */
    trigger: syncTrigger,
  }),
  // v1 knew the schedule's syncs and refreshes
  { 1: d => ({ ...d, trigger: d.slot ? 'schedule' : 'refresh' }) },
);

/** A sync the provider failed; the next try waits longer with each failure in a row. */
export const AccountSyncFailed = event(
  'AccountSyncFailed',
  1,
  z.object({
    accountId: z.uuid(),
    reason: text,
    failedAt: isoDate,
    consecutiveFailures: z.int().positive(),
    retryAt: isoDate,
  }),
);

/** Scheduled syncs stopped: the owner's points do not pay for the next one. */
export const AccountSyncPaused = event(
  'AccountSyncPaused',
  1,
  z.object({
    accountId: z.uuid(),
    reason: z.enum(['not-enough-points']),
    pausedAt: isoDate,
  }),
);

/** The provider's session ended and could not be renewed: the account is inactive until its owner logs in again. */
export const ProviderSessionExpired = event(
  'ProviderSessionExpired',
  1,
  z.object({ accountId: z.uuid(), expiredAt: isoDate }),
);

/** A new provider session (a relogin, or one the sync renewed): the account is active again. */
export const ProviderSessionRestored = event(
  'ProviderSessionRestored',
  1,
  z.object({
    accountId: z.uuid(),
    session: sealed,
    /** the OTP login (wallet-login-<id>) that restored it: one login restores once */
    loginSessionId: z.uuid().nullable().default(null),
    /** a PIN given again at the relogin (wallet A), sealed; null keeps the stored one */
    credentials: sealed.nullable().default(null),
    restoredAt: isoDate,
  }),
);

/** The merchant's static QRIS, read once from the provider: dynamic QRIS payments are built from it. */
export const StaticQrisCaptured = event(
  'StaticQrisCaptured',
  1,
  z.object({ accountId: z.uuid(), payload: text, capturedAt: isoDate }),
);

/**
 * An outbound transfer about to be sent holds its amount: the wallet's balance does not show it, but no other transfer
 * can spend it. Released when the provider refuses; turned into a debit when it accepts (or does not answer).
 */
export const BalanceHeld = event(
  'BalanceHeld',
  1,
  z.object({ accountId: z.uuid(), transferId: z.uuid(), amount: rupiah, heldAt: isoDate }),
);

/** A transfer's held amount given back: the provider refused the transfer. */
export const BalanceReleased = event(
  'BalanceReleased',
  1,
  z.object({ accountId: z.uuid(), transferId: z.uuid(), releasedAt: isoDate }),
);

/** An outbound transfer debited the wallet at once (its DEBIT mutation is recorded beside it). */
export const BalanceDebited = event(
  'BalanceDebited',
  1,
  z.object({
    accountId: z.uuid(),
    transferId: z.uuid(),
    amount: rupiah,
    debitedAt: isoDate,
  }),
);

/** A transfer that failed after its debit gave the amount back (its CREDIT mutation is recorded beside it). */
export const BalanceCredited = event(
  'BalanceCredited',
  1,
  z.object({
    accountId: z.uuid(),
    transferId: z.uuid(),
    amount: rupiah,
    reason: z.enum(['transfer-failed']),
    creditedAt: isoDate,
  }),
);

export type SyncTrigger = z.infer<typeof syncTrigger>;

export type AccountEvent =
  | EventOf<typeof AccountLinked>
  | EventOf<typeof AccountSettingsChanged>
  | EventOf<typeof CredentialsChanged>
  | EventOf<typeof MutationRecorded>
  | EventOf<typeof BalanceHeld>
  | EventOf<typeof BalanceReleased>
  | EventOf<typeof BalanceDebited>
  | EventOf<typeof BalanceCredited>
  | EventOf<typeof AccountSynced>
  | EventOf<typeof AccountSyncFailed>
  | EventOf<typeof AccountSyncPaused>
  | EventOf<typeof ProviderSessionExpired>
  | EventOf<typeof ProviderSessionRestored>
  | EventOf<typeof StaticQrisCaptured>;
