import { createHash } from 'node:crypto';
import { refuse } from '../errors.ts';
import { PayoutReferenceClaimed, type PayoutReferenceEvent } from '../events/payout-reference.ts';
import type { Decider } from './decider.ts';

/** References compare case-insensitively, surrounding spaces aside: `bca-trf-1 ` is `BCA-TRF-1`. */
export const normalisedReference = (reference: string) => reference.trim().toUpperCase();

/** One stream per payout reference (any merchant's): the reference is free text, so the stream is named by its hash. */
export const payoutReferenceStream = (reference: string) =>
  `payout-reference-${createHash('sha256').update(normalisedReference(reference)).digest('hex').slice(0, 32)}`;

export const referenceUsed = (reference: string) =>
  refuse('WITHDRAWAL_REFERENCE_USED', { message: `The reference ${reference.trim()} paid another withdrawal already` });

export type PayoutReference = { withdrawalId: string | null };

export type PayoutReferenceCommand = {
  type: 'ClaimPayoutReference';
  reference: string;
  merchantId: string;
  withdrawalId: string;
  now: Date;
};

/** A reference pays one withdrawal: claimed once, refused to any other withdrawal after. */
function decide(state: PayoutReference, command: PayoutReferenceCommand): PayoutReferenceEvent[] {
  if (state.withdrawalId === command.withdrawalId) return [];
  if (state.withdrawalId !== null) throw referenceUsed(command.reference);
  const { reference, merchantId, withdrawalId } = command;
  return [
    PayoutReferenceClaimed({
      reference: reference.trim(),
      merchantId,
      withdrawalId,
      claimedAt: command.now.toISOString(),
    }),
  ];
}

export const payoutReference: Decider<PayoutReference, PayoutReferenceCommand, PayoutReferenceEvent> = {
  cached: true,
  // a payout's reference is claimed once, when the payout is recorded: usually a stream still to create
  likelyNew: true,
  initialState: () => ({ withdrawalId: null }),
  evolve: (_state, event) => ({ withdrawalId: event.data.withdrawalId }),
  decide,
};
