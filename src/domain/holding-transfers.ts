import { refuse } from '../errors.ts';
import {
  HoldingTransferCreditReleased,
  HoldingTransferMutationMatched,
  HoldingTransferRecorded,
  type HoldingTransferEvent,
} from '../events/holding-transfers.ts';
import type { Decider } from './decider.ts';
import { ledgerAccount } from './gateway-ledger.ts';

/** The platform's transfers between its holding accounts, made by hand (docs/decisions.md, "Hand transfers"). */
export const holdingTransfersStream = 'gateway-holding-transfers';

export type Side = 'DEBIT' | 'CREDIT';
export type HoldingTransfer = {
  fromAccountId: string;
  toAccountId: string;
  amount: number;
  recordedAt: string;
  /** the synchronised mutation of each side once seen (null: not yet) */
  debitMutationId: string | null;
  creditMutationId: string | null;
  /** the suspense credit taken as its destination side when recorded, until an admin gives it back (null: none) */
  suspenseId: string | null;
};
/** `matched`: every mutation taken by a transfer's side, so none is taken twice */
export type HoldingTransfers = { transfers: Record<string, HoldingTransfer>; matched: Record<string, string> };

/** A synchronised mutation of a holding account that may be a transfer's side. */
export type SeenMutation = { mutationId: string; accountId: string; side: Side; amount: number; occurredAt: string };

export type HoldingTransferCommand =
  | {
      type: 'RecordHoldingTransfer';
      transferId: string;
      fromAccountId: string;
      toAccountId: string;
      amount: number;
      reference: string;
      note: string | null;
      /** what the ledger holds in the source now: a transfer takes no more (read before, under the account's lock) */
      sourceCash: number;
      /** the holding accounts marked now: both ends must be among them */
      holdingAccountIds: readonly string[];
      /** mutations synchronised already that may be its sides (the oldest unmatched of each side is taken) */
      seen: readonly SeenMutation[];
      /**
       * an open suspense credit on the destination of the amount, synchronised before: the destination's side, its
       * money in `holding:<to>` already (optional: none)
       */
      suspenseCredit?: { suspenseId: string; mutation: SeenMutation } | null;
      adminId: string;
      now: Date;
    }
  | { type: 'MatchHoldingTransferMutation'; mutation: SeenMutation }
  | {
      type: 'ReleaseSuspenseCredit';
      transferId: string;
      /** the suspense credit given back (its stream's SuspenseCreditUntransferred names this transfer) */
      suspenseId: string;
      reason: string;
      adminId: string;
      now: Date;
    };

/** The oldest transfer still waiting for this side on this account with this amount. */
export function waitingFor(state: HoldingTransfers, m: SeenMutation): string | null {
  if (state.matched[m.mutationId]) return null;
  const candidates = Object.entries(state.transfers).filter(
    ([, t]) =>
      t.amount === m.amount &&
      (m.side === 'DEBIT'
        ? t.fromAccountId === m.accountId && t.debitMutationId === null
        : t.toAccountId === m.accountId && t.creditMutationId === null),
  );
  candidates.sort(([a, x], [b, y]) => x.recordedAt.localeCompare(y.recordedAt) || a.localeCompare(b));
  return candidates[0]?.[0] ?? null;
}

const matchedEvent = (transferId: string, m: SeenMutation) =>
  HoldingTransferMutationMatched({
    transferId,
    side: m.side,
    mutationId: m.mutationId,
    accountId: m.accountId,
    amount: m.amount,
    occurredAt: m.occurredAt,
  });

function evolve(state: HoldingTransfers, event: HoldingTransferEvent): HoldingTransfers {
  switch (event.type) {
    case 'HoldingTransferRecorded': {
      const { transferId, fromAccountId, toAccountId, amount, recordedAt } = event.data;
      const transfer = {
        fromAccountId,
        toAccountId,
        amount,
        recordedAt,
        debitMutationId: null,
        creditMutationId: null,
        suspenseId: event.data.suspenseId ?? null,
      };
      return { ...state, transfers: { ...state.transfers, [transferId]: transfer } };
    }
    case 'HoldingTransferMutationMatched': {
      const { transferId, side, mutationId } = event.data;
      const transfer = state.transfers[transferId];
      if (!transfer) return state;
      const seen = side === 'DEBIT' ? { debitMutationId: mutationId } : { creditMutationId: mutationId };
      return {
        transfers: { ...state.transfers, [transferId]: { ...transfer, ...seen } },
        matched: { ...state.matched, [mutationId]: transferId },
      };
    }
    case 'HoldingTransferCreditReleased': {
      const { transferId, mutationId } = event.data;
      const transfer = state.transfers[transferId];
      if (!transfer) return state;
      const { [mutationId]: _, ...matched } = state.matched;
      return {
        transfers: { ...state.transfers, [transferId]: { ...transfer, creditMutationId: null, suspenseId: null } },
        matched,
      };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * The suspense credit a transfer took goes back (an admin found it was not this transfer's): the destination is booked
 * as a transfer's is, `holding:<to>` debited and `platform:suspense` credited, and its CREDIT is awaited again. Only
 * the credit it took, once.
 */
function release(state: HoldingTransfers, c: Extract<HoldingTransferCommand, { type: 'ReleaseSuspenseCredit' }>) {
  const transfer = state.transfers[c.transferId];
  if (!transfer || transfer.suspenseId !== c.suspenseId || transfer.creditMutationId === null)
    throw refuse('SUSPENSE_ALREADY_UNTRANSFERRED', {
      message: "The suspense credit is not the hand transfer's destination side (given back already?)",
    });
  const reason = c.reason.trim();
  if (reason === '')
    throw refuse('INVALID_INPUT', { message: 'Giving a credit back from its transfer needs a reason' });
  const { toAccountId, amount } = transfer;
  return [
    HoldingTransferCreditReleased({
      transferId: c.transferId,
      suspenseId: c.suspenseId,
      mutationId: transfer.creditMutationId,
      toAccountId,
      amount,
      reason,
      releasedBy: c.adminId,
      releasedAt: c.now.toISOString(),
      postings: [
        { account: ledgerAccount.holding(toAccountId), amount },
        { account: ledgerAccount.suspense, amount: -amount },
      ],
    }),
  ];
}

function record(state: HoldingTransfers, c: Extract<HoldingTransferCommand, { type: 'RecordHoldingTransfer' }>) {
  if (state.transfers[c.transferId]) return []; // the same request again
  const invalid = (message: string) => refuse('HOLDING_TRANSFER_INVALID', { message });
  if (c.fromAccountId === c.toAccountId) throw invalid('The source and the destination are one account');
  for (const id of [c.fromAccountId, c.toAccountId])
    if (!c.holdingAccountIds.includes(id)) throw invalid(`${id} is not one of the platform's holding accounts`);
  if (c.amount > c.sourceCash)
    throw refuse('HOLDING_CASH_SHORT', {
      message: `The source's cash in the ledger (${c.sourceCash}) does not cover ${c.amount}`,
    });
  const { transferId, fromAccountId, toAccountId, amount, reference, note } = c;
  // a CREDIT that went to suspense booked the destination's cash already: the transfer takes it out of suspense
  const credit = creditInSuspense(state, c);
  const recordedEvent = (transferredAt?: string) =>
    HoldingTransferRecorded({
      transferId,
      fromAccountId,
      toAccountId,
      amount,
      reference,
      note,
      recordedBy: c.adminId,
      recordedAt: c.now.toISOString(),
      ...(transferredAt ? { transferredAt } : {}),
      ...(credit ? { suspenseId: credit.suspenseId } : {}),
      postings: [
        { account: credit ? ledgerAccount.suspense : ledgerAccount.holding(toAccountId), amount },
        { account: ledgerAccount.holding(fromAccountId), amount: -amount },
      ],
    });
  const seen = sidesSeenBefore(evolve(state, recordedEvent()), c);
  const sides = credit ? [...seen.filter(m => m.side === 'DEBIT'), credit.mutation] : seen;
  // dated once, as it is booked: a DEBIT matched later never moves an entry a closed month may have counted
  const debit = sides.find(m => m.side === 'DEBIT');
  return [recordedEvent(debit?.occurredAt), ...sides.map(m => matchedEvent(transferId, m))];
}

/** The suspense credit the command offers as the destination's side: a CREDIT of the amount on it, taken by nothing. */
function creditInSuspense(
  state: HoldingTransfers,
  c: Extract<HoldingTransferCommand, { type: 'RecordHoldingTransfer' }>,
) {
  const offered = c.suspenseCredit;
  if (!offered) return null;
  const m = offered.mutation;
  const fits = m.side === 'CREDIT' && m.accountId === c.toAccountId && m.amount === c.amount;
  return fits && !state.matched[m.mutationId] ? offered : null;
}

/** The sides synchronised before the transfer was recorded, each the oldest unmatched mutation of its kind. */
function sidesSeenBefore(
  recorded: HoldingTransfers,
  c: Extract<HoldingTransferCommand, { type: 'RecordHoldingTransfer' }>,
): SeenMutation[] {
  let next = recorded;
  const sides: SeenMutation[] = [];
  for (const side of ['DEBIT', 'CREDIT'] as const) {
    const account = side === 'DEBIT' ? c.fromAccountId : c.toAccountId;
    const found = c.seen
      .filter(m => m.side === side && m.accountId === account && m.amount === c.amount)
      .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt))
      .find(m => waitingFor(next, m) === c.transferId);
    if (!found) continue;
    next = evolve(next, matchedEvent(c.transferId, found));
    sides.push(found);
  }
  return sides;
}

export const holdingTransfers: Decider<HoldingTransfers, HoldingTransferCommand, HoldingTransferEvent> = {
  cached: true,
  initialState: () => ({ transfers: {}, matched: {} }),
  evolve,
  decide(state, c) {
    switch (c.type) {
      case 'RecordHoldingTransfer':
        return record(state, c);
      case 'MatchHoldingTransferMutation': {
        const transferId = waitingFor(state, c.mutation);
        return transferId ? [matchedEvent(transferId, c.mutation)] : [];
      }
      case 'ReleaseSuspenseCredit':
        return release(state, c);
      default: {
        const never: never = c;
        return never;
      }
    }
  },
};
