import { refuse } from '../errors.ts';
import {
  SuspenseCreditAllocated,
  SuspenseCreditReceived,
  SuspenseCreditRefunded,
  SuspenseCreditTransferred,
  SuspenseCreditUntransferred,
  type SuspenseEvent,
} from '../events/gateway-suspense.ts';
import { deterministicUuid } from '../ids.ts';
import { fee } from './gateway-fees.ts';
import { ledgerAccount } from './gateway-ledger.ts';
import type { Decider } from './decider.ts';

/** The platform's suspense (docs/decisions.md, "Suspense"): money in holding accounts that no payment claims. */
export const suspenseStream = 'gateway-suspense';

/** A suspense credit's id: one per synchronised mutation, so recording it again records nothing. */
export const suspenseIdOf = (mutationId: string) => deterministicUuid(`suspense:${mutationId}`);

/** TRANSFERRED: the destination's side of a hand transfer recorded after the credit arrived */
export type SuspenseStatus = 'OPEN' | 'ALLOCATED' | 'REFUNDED' | 'TRANSFERRED';
export type SuspenseItem = {
  accountId: string;
  providerCode: string;
  amount: number;
  status: SuspenseStatus;
  /** TRANSFERRED: the hand transfer that took it */
  transferId?: string;
  /** OPEN again, given back from a hand transfer and not resolved since */
  untransferred?: true;
};
export type Suspense = { items: Record<string, SuspenseItem> };

export type SuspenseCommand =
  | {
      type: 'ReceiveSuspenseCredit';
      mutationId: string;
      accountId: string;
      providerCode: string;
      amount: number;
      senderName: string;
      reference: string | null;
      receivedAt: Date;
    }
  | {
      type: 'AllocateSuspenseCredit';
      suspenseId: string;
      merchantId: string;
      paymentId: string | null;
      fee: number;
      /** the part of the credit that is its payment's unique code, the platform's (0: none) */
      uniqueCode: number;
      note: string | null;
      adminId: string;
      now: Date;
    }
  | { type: 'TransferSuspenseCredit'; suspenseId: string; transferId: string; adminId: string; now: Date }
  | { type: 'UntransferSuspenseCredit'; suspenseId: string; reason: string; adminId: string; now: Date }
  | {
      type: 'RefundSuspenseCredit';
      suspenseId: string;
      reference: string;
      note: string | null;
      adminId: string;
      now: Date;
    };

/** The credit an admin acts on: it must exist and still be open. */
export function openItem(state: Suspense, suspenseId: string): SuspenseItem {
  const item = state.items[suspenseId];
  if (!item) throw refuse('SUSPENSE_NOT_FOUND');
  if (item.status !== 'OPEN')
    throw refuse('SUSPENSE_NOT_OPEN', { message: `The suspense credit is ${item.status} already` });
  return item;
}

const resolvedAs = {
  SuspenseCreditAllocated: 'ALLOCATED',
  SuspenseCreditRefunded: 'REFUNDED',
  SuspenseCreditTransferred: 'TRANSFERRED',
} as const satisfies Record<string, SuspenseStatus>;

/**
 * A credit a hand transfer took goes back to suspense, OPEN, with the admin's reason: only one TRANSFERRED (one given
 * back already is OPEN, and says so), and the transfer it names is released in the same append.
 */
function untransfer(state: Suspense, c: Extract<SuspenseCommand, { type: 'UntransferSuspenseCredit' }>) {
  const item = state.items[c.suspenseId];
  if (!item) throw refuse('SUSPENSE_NOT_FOUND');
  if (item.status === 'OPEN' && item.untransferred) throw refuse('SUSPENSE_ALREADY_UNTRANSFERRED');
  if (item.status !== 'TRANSFERRED' || !item.transferId)
    throw refuse('SUSPENSE_NOT_TRANSFERRED', {
      message: `The suspense credit is ${item.status}: only one a hand transfer took goes back`,
      params: { status: item.status },
    });
  const reason = c.reason.trim();
  if (reason === '')
    throw refuse('INVALID_INPUT', { message: 'Giving a credit back from its transfer needs a reason' });
  return [
    SuspenseCreditUntransferred({
      suspenseId: c.suspenseId,
      transferId: item.transferId,
      accountId: item.accountId,
      amount: item.amount,
      reason,
      untransferredBy: c.adminId,
      untransferredAt: c.now.toISOString(),
    }),
  ];
}

/** A credit no payment claims lands once, per mutation, on the suspense account. */
function receive(state: Suspense, c: Extract<SuspenseCommand, { type: 'ReceiveSuspenseCredit' }>) {
  const suspenseId = suspenseIdOf(c.mutationId);
  if (state.items[suspenseId]) return [];
  const { mutationId, accountId, providerCode, amount, senderName, reference } = c;
  const postings = [
    { account: ledgerAccount.holding(accountId), amount },
    { account: ledgerAccount.suspense, amount: -amount },
  ];
  return [
    SuspenseCreditReceived({
      suspenseId,
      mutationId,
      accountId,
      providerCode,
      amount,
      senderName,
      reference,
      receivedAt: c.receivedAt.toISOString(),
      postings,
    }),
  ];
}

/** An open credit given to a merchant, less the fee the caller decided and the unique code kept. */
function allocate(state: Suspense, c: Extract<SuspenseCommand, { type: 'AllocateSuspenseCredit' }>) {
  const item = openItem(state, c.suspenseId);
  const { suspenseId, merchantId, paymentId, note, uniqueCode } = c;
  const allocated = {
    suspenseId,
    merchantId,
    paymentId,
    amount: item.amount,
    fee: c.fee,
    net: item.amount - c.fee - uniqueCode,
    note,
    ...(uniqueCode > 0 ? { uniqueCode } : {}),
  };
  return [SuspenseCreditAllocated({ ...allocated, allocatedBy: c.adminId, allocatedAt: c.now.toISOString() })];
}

/** An open credit taken by a hand transfer between holding accounts. */
function transferOut(state: Suspense, c: Extract<SuspenseCommand, { type: 'TransferSuspenseCredit' }>) {
  const item = openItem(state, c.suspenseId);
  const { suspenseId, transferId } = c;
  const { accountId, amount } = item;
  const resolved = { resolvedBy: c.adminId, resolvedAt: c.now.toISOString() };
  return [SuspenseCreditTransferred({ suspenseId, transferId, accountId, amount, ...resolved })];
}

/** An open credit sent back to its sender: the holding account's cash leaves. */
function refund(state: Suspense, c: Extract<SuspenseCommand, { type: 'RefundSuspenseCredit' }>) {
  const item = openItem(state, c.suspenseId);
  const { suspenseId, reference, note } = c;
  const postings = [
    { account: ledgerAccount.suspense, amount: item.amount },
    { account: ledgerAccount.holding(item.accountId), amount: -item.amount },
  ];
  return [
    SuspenseCreditRefunded({
      suspenseId,
      accountId: item.accountId,
      amount: item.amount,
      reference,
      note,
      refundedBy: c.adminId,
      refundedAt: c.now.toISOString(),
      postings,
    }),
  ];
}

export const suspense: Decider<Suspense, SuspenseCommand, SuspenseEvent> = {
  cached: true,
  initialState: () => ({ items: {} }),
  evolve(state, event) {
    const id = event.data.suspenseId;
    switch (event.type) {
      case 'SuspenseCreditReceived': {
        const { accountId, providerCode, amount } = event.data;
        return { items: { ...state.items, [id]: { accountId, providerCode, amount, status: 'OPEN' } } };
      }
      case 'SuspenseCreditAllocated':
      case 'SuspenseCreditRefunded':
      case 'SuspenseCreditTransferred': {
        const item = state.items[id];
        if (!item) return state;
        const { untransferred: _, transferId: __, ...rest } = item;
        const status = resolvedAs[event.type];
        const by = event.type === 'SuspenseCreditTransferred' ? { transferId: event.data.transferId } : {};
        return { items: { ...state.items, [id]: { ...rest, status, ...by } } };
      }
      case 'SuspenseCreditUntransferred': {
        const item = state.items[id];
        if (!item) return state;
        const { transferId: _, ...rest } = item;
        return { items: { ...state.items, [id]: { ...rest, status: 'OPEN', untransferred: true } } };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, command) {
    switch (command.type) {
      case 'ReceiveSuspenseCredit':
        return receive(state, command);
      case 'AllocateSuspenseCredit':
        return allocate(state, command);
      case 'TransferSuspenseCredit':
        return transferOut(state, command);
      case 'UntransferSuspenseCredit':
        return untransfer(state, command);
      case 'RefundSuspenseCredit':
        return refund(state, command);
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
