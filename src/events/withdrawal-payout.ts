import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream gateway-payout-account: which of the platform's WALLET-A accounts pays withdrawals out
/** An admin chose which of their linked WALLET-A accounts pays withdrawals out. */
export const PayoutAccountChosen = event(
  'PayoutAccountChosen',
  1,
  z.object({
    accountId: z.uuid(),
    /** the admin whose linked account it is: its provider session pays, whoever presses pay */
    ownerId: z.uuid(),
    chosenBy: z.uuid(),
    chosenAt: isoDate,
  }),
);

// stream withdrawal-payout-<withdrawalId>: the payouts through WALLET-A begun, and those that did not pay it (it stays REQUESTED)

/** A payout through WALLET-A is about to move money (appended while the withdrawal is still requested): no rejection now. */
export const WithdrawalPayoutStarted = event(
  'WithdrawalPayoutStarted',
  1,
  z.object({
    withdrawalId: z.uuid(),
    merchantId: z.uuid(),
    transferId: z.uuid(),
    /** the platform account it is paid from */
    accountId: z.uuid(),
    startedBy: z.uuid(),
    startedAt: isoDate,
    /** the admin paid although the bank may name someone other than the requested holder: why, and who */
    holderOverride: z.object({ reason: text, by: z.uuid() }).optional(),
  }),
);

/** A payout through WALLET-A that did not pay the withdrawal: it stays REQUESTED. */
export const WithdrawalPayoutFailed = event(
  'WithdrawalPayoutFailed',
  1,
  z.object({
    withdrawalId: z.uuid(),
    merchantId: z.uuid(),
    transferId: z.uuid(),
    /** FAILED: nothing moved, the next payout is a new transfer; UNCONFIRMED: the next payout asks this transfer again */
    outcome: z.enum(['FAILED', 'UNCONFIRMED']),
    reason: text,
    attemptedBy: z.uuid(),
    failedAt: isoDate,
  }),
);

export type PayoutAccountEvent = EventOf<typeof PayoutAccountChosen>;
/** The withdrawal was rejected, or recorded as paid elsewhere: no payout through WALLET-A may begin (appended with it). */
export const WithdrawalPayoutBarred = event(
  'WithdrawalPayoutBarred',
  1,
  z.object({
    withdrawalId: z.uuid(),
    merchantId: z.uuid(),
    barredBy: z.uuid(),
    barredAt: isoDate,
  }),
);

export type WithdrawalPayoutEvent =
  | EventOf<typeof WithdrawalPayoutStarted>
  | EventOf<typeof WithdrawalPayoutFailed>
  | EventOf<typeof WithdrawalPayoutBarred>;
