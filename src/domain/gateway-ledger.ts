import { refuse } from '../errors.ts';
import {
  BalanceSettled,
  GatewayPaymentCredited,
  GatewaySuspenseAllocated,
  WithdrawalPaid,
  WithdrawalRejected,
  WithdrawalRequested,
  type GatewayLedgerEvent,
  type Posting,
} from '../events/gateway.ts';
import { creditTime, Credits, type CreditsJson } from './gateway-credits.ts';
import type { Decider } from './decider.ts';
import { settlesAt, wibDate, yearsJudged, type HolidayCalendar } from './working-days.ts';
import { checkedHolder } from './holder-name.ts';

export const gatewayLedgerStream = (merchantId: string) => `gateway-${merchantId}`;

/** The ledger's accounts (docs/decisions.md, "Gateway ledger"): debit positive, credit negative. */
export const ledgerAccount = {
  holding: (accountId: string) => `holding:${accountId}`,
  pending: (merchantId: string) => `merchant:${merchantId}:pending`,
  settled: (merchantId: string) => `merchant:${merchantId}:settled`,
  onHold: (merchantId: string) => `merchant:${merchantId}:onHold`,
  fees: 'platform:fees',
  /** the unique codes buyers pay on top of their bills: the platform's revenue, never the merchant's */
  uniqueCodes: 'platform:unique-codes',
  suspense: 'platform:suspense',
  /** the platform's own money: the other side of a holding account's opening and of an admin's correcting entries */
  equity: 'platform:equity',
  /** where payouts went before the ledger held the cash: old events only */
  payouts: 'bank:payouts',
} as const;

export type WithdrawalStatus = 'REQUESTED' | 'PAID' | 'REJECTED';
export type Withdrawal = {
  amount: number;
  status: WithdrawalStatus;
  requestedBy: string;
  requestHash?: string | undefined;
  /** the holder the merchant asked for, and the bank inquiry's answer when it was requested (null: not asked) */
  holder: { asked: string; answered: string | null };
};

export type GatewayLedger = {
  merchantId: string | null;
  /** every account's balance: the fold of the postings (what the platform owes a merchant is negative: a credit balance) */
  balances: Record<string, number>;
  credits: Credits;
  withdrawals: Record<string, Withdrawal>;
};

export type GatewayLedgerCommand =
  | {
      type: 'CreditGatewayPayment';
      merchantId: string;
      paymentId: string;
      holdingAccountId: string;
      totalAmount: number;
      fee: number;
      /** the part of totalAmount that is the unique code (0: none, a virtual account's bill) */
      uniqueCode: number;
      completedAt: Date;
      /** the provider's time of the credit that paid it: when the money moved (absent: the completion's) */
      paidAt?: Date | undefined;
      now: Date;
    }
  /**
   * the cutoff comes from the working-day calendar, outside the decider, with the recent years it has no decree for;
   * with the calendar itself, each credit's own due day goes on the entry
   */
  | {
      type: 'SettleDue';
      merchantId: string;
      cutoff: Date;
      now: Date;
      yearsWithoutDecree?: readonly number[];
      calendar?: HolidayCalendar;
    }
  | {
      type: 'RequestWithdrawal';
      merchantId: string;
      withdrawalId: string;
      amount: number;
      bankCode: string;
      accountNumber: string;
      accountHolderName: string;
      requestedBy: string;
      minWithdrawal: number;
      /** with an Idempotency-Key: the request's hash (the withdrawal id is derived from the key) */
      requestHash?: string | undefined;
      /** the destination's holder as the provider's inquiry named it (not checked: absent) */
      holderName?: string | undefined;
      now: Date;
    }
  /** the money left the platform account `holdingAccountId`: its cash is credited */
  | {
      type: 'PayWithdrawal';
      merchantId: string;
      withdrawalId: string;
      reference: string;
      holdingAccountId: string;
      paidBy: string;
      /** the bank inquiry's answer when the payout's transfer asked again (absent: the request's answer stands) */
      holderName?: string | undefined;
      /** the admin's reason to pay although the bank names someone other than the requested holder */
      holderOverride?: { reason: string } | undefined;
      /** when the money left the account (the transfer's provider time, or the admin's word); absent: now */
      transferredAt?: Date | undefined;
      now: Date;
    }
  | { type: 'RejectWithdrawal'; merchantId: string; withdrawalId: string; note: string; rejectedBy: string; now: Date }
  /** a suspense credit given to the merchant: the fee as for a payment by the holding account's method, decided by the caller */
  | {
      type: 'AllocateSuspense';
      merchantId: string;
      suspenseId: string;
      paymentId: string | null;
      holdingAccountId: string;
      amount: number;
      fee: number;
      /** the part of the amount that is its payment's unique code (0: none kept) */
      uniqueCode: number;
      allocatedBy: string;
      now: Date;
    };

/** A merchant's balance as the API shows it: settled counts what withdrawals hold; available = settled - onHold. */
export type MerchantBalance = { settled: number; pending: number; onHold: number; available: number };

/** What the platform owes on an account: its credit balance, as a positive number. */
const owed = (state: GatewayLedger, account: string) => 0 - (state.balances[account] ?? 0);

export function merchantBalance(state: GatewayLedger, merchantId: string): MerchantBalance {
  const available = owed(state, ledgerAccount.settled(merchantId));
  const onHold = owed(state, ledgerAccount.onHold(merchantId));
  return { settled: available + onHold, pending: owed(state, ledgerAccount.pending(merchantId)), onHold, available };
}

/**
 * Money received for a merchant (interface gateway rules 3 and 4): `debit` takes all of it; the merchant is owed the
 * bill's amount less its fee, the platform earns the fee and the unique code paid on top.
 */
function receivedPostings(debit: string, merchantId: string, received: number, fee: number, uniqueCode: number) {
  const net = received - fee - uniqueCode;
  const postings: Posting[] = [
    { account: debit, amount: received },
    { account: ledgerAccount.pending(merchantId), amount: -net },
    ...(fee > 0 ? [{ account: ledgerAccount.fees, amount: -fee }] : []),
    ...(uniqueCode > 0 ? [{ account: ledgerAccount.uniqueCodes, amount: -uniqueCode }] : []),
  ];
  return { net, postings };
}

/** A balanced entry: `amount` debited to one account and credited to another. */
const transfer = (debit: string, credit: string, amount: number): Posting[] => [
  { account: debit, amount },
  { account: credit, amount: -amount },
];

function evolve(state: GatewayLedger, event: GatewayLedgerEvent): GatewayLedger {
  const balances = { ...state.balances };
  for (const p of event.data.postings) balances[p.account] = (balances[p.account] ?? 0) + p.amount;
  const next = { ...state, merchantId: event.data.merchantId, balances };
  switch (event.type) {
    case 'GatewayPaymentCredited': {
      const { paymentId, net, completedAt, paidAt } = event.data;
      return { ...next, credits: state.credits.add({ paymentId, net, completedAt, ...(paidAt ? { paidAt } : {}) }) };
    }
    case 'BalanceSettled':
      return { ...next, credits: state.credits.settle(event.data.paymentIds) };
    case 'WithdrawalRequested': {
      const { withdrawalId, amount, requestedBy, requestHash, accountHolderName, holderName } = event.data;
      const holder = { asked: accountHolderName, answered: holderName ?? null };
      return {
        ...next,
        withdrawals: {
          ...state.withdrawals,
          [withdrawalId]: {
            amount,
            status: 'REQUESTED',
            requestedBy,
            holder,
            ...(requestHash ? { requestHash } : {}),
          },
        },
      };
    }
    case 'GatewaySuspenseAllocated': {
      // settled as a payment completed when it was allocated
      const { suspenseId, net, allocatedAt } = event.data;
      return { ...next, credits: state.credits.add({ paymentId: suspenseId, net, completedAt: allocatedAt }) };
    }
    case 'WithdrawalPaid':
    case 'WithdrawalRejected': {
      const { withdrawalId } = event.data;
      const withdrawal = state.withdrawals[withdrawalId];
      if (!withdrawal) return next;
      const status = event.type === 'WithdrawalPaid' ? 'PAID' : 'REJECTED';
      return { ...next, withdrawals: { ...state.withdrawals, [withdrawalId]: { ...withdrawal, status } } };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The withdrawal an admin acts on: it must exist and still wait for a decision. */
function requestedWithdrawal(state: GatewayLedger, withdrawalId: string): Withdrawal {
  const withdrawal = state.withdrawals[withdrawalId];
  if (!withdrawal) throw refuse('WITHDRAWAL_NOT_FOUND');
  if (withdrawal.status !== 'REQUESTED')
    throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: `The withdrawal is ${withdrawal.status} already` });
  return withdrawal;
}

type Command<T extends GatewayLedgerCommand['type']> = Extract<GatewayLedgerCommand, { type: T }>;

/** A payment is credited once: the merchant is owed its net, the platform its fee and unique code. */
function creditPayment(state: GatewayLedger, command: Command<'CreditGatewayPayment'>): GatewayLedgerEvent[] {
  if (state.credits.has(command.paymentId)) return [];
  const { merchantId: m, paymentId, holdingAccountId, totalAmount, fee, uniqueCode } = command;
  if (fee + uniqueCode > totalAmount)
    throw refuse('INVALID_INPUT', { message: 'The fee and the unique code are more than the amount paid' });
  const holding = ledgerAccount.holding(holdingAccountId);
  const { net, postings } = receivedPostings(holding, m, totalAmount, fee, uniqueCode);
  return [
    GatewayPaymentCredited({
      merchantId: m,
      paymentId,
      holdingAccountId,
      totalAmount,
      fee,
      net,
      completedAt: command.completedAt.toISOString(),
      postings,
      uniqueCode,
      ...(command.paidAt ? { paidAt: command.paidAt.toISOString() } : {}),
    }),
  ];
}

/** A settlement takes every credit completed before the cutoff, in one entry. */
function settleDue(state: GatewayLedger, command: Command<'SettleDue'>): GatewayLedgerEvent[] {
  const m = command.merchantId;
  const cutoff = command.cutoff.toISOString();
  const due = state.credits.dueBefore(cutoff);
  if (due.length === 0) return [];
  const amount = due.reduce((sum, c) => sum + c.net, 0);
  const postings = transfer(ledgerAccount.pending(m), ledgerAccount.settled(m), amount);
  const settledAt = command.now.toISOString();
  const { yearsWithoutDecree: without, calendar } = command;
  // the earliest credit's days reach back furthest: from the day after it to today, every day was judged
  const earliest = new Date(due.reduce((min, c) => Math.min(min, Date.parse(creditTime(c))), Infinity));
  const calendarMissingYears = without && yearsJudged(earliest, command.now).filter(year => without.includes(year));
  // a run late after an outage settles days past: each credit stays due on its own day, not on the run's
  const dueDates = calendar && due.map(c => wibDate(settlesAt(new Date(creditTime(c)), calendar)));
  return [
    BalanceSettled({
      merchantId: m,
      paymentIds: due.map(c => c.paymentId),
      amount,
      cutoff,
      settledAt,
      postings,
      ...(calendarMissingYears ? { calendarMissingYears } : {}),
      ...(dueDates ? { dueDates } : {}),
    }),
  ];
}

/** A withdrawal takes at most what is available; the stream's expected revision keeps that true under concurrency. */
function requestWithdrawal(state: GatewayLedger, command: Command<'RequestWithdrawal'>): GatewayLedgerEvent[] {
  const { merchantId: m, withdrawalId, amount, bankCode, accountNumber, accountHolderName, requestedBy } = command;
  const { requestHash, holderName } = command;
  const earlier = state.withdrawals[withdrawalId];
  if (earlier && (earlier.requestHash ?? null) !== (requestHash ?? null)) throw refuse('IDEMPOTENCY_KEY_REUSED');
  if (earlier) return []; // the same request again (Idempotency-Key)
  if (amount < command.minWithdrawal)
    throw refuse('WITHDRAWAL_BELOW_MINIMUM', {
      message: `The minimum withdrawal is ${command.minWithdrawal}`,
      params: { minimum: command.minWithdrawal },
    });
  const { available } = merchantBalance(state, m);
  if (amount > available)
    throw refuse('INSUFFICIENT_BALANCE', {
      message: `The amount is more than the available balance (${available})`,
      params: { available },
    });
  const postings = transfer(ledgerAccount.settled(m), ledgerAccount.onHold(m), amount);
  const requested = {
    merchantId: m,
    withdrawalId,
    amount,
    bankCode,
    accountNumber,
    accountHolderName,
    requestedBy,
    requestedAt: command.now.toISOString(),
    postings,
  };
  return [
    WithdrawalRequested({
      ...requested,
      ...(requestHash ? { requestHash } : {}),
      ...(holderName !== undefined ? { holderName } : {}),
    }),
  ];
}

/** The held money leaves through a holding account, paid by another admin than the one who requested it. */
function payWithdrawal(state: GatewayLedger, command: Command<'PayWithdrawal'>): GatewayLedgerEvent[] {
  const withdrawal = requestedWithdrawal(state, command.withdrawalId);
  if (withdrawal.requestedBy === command.paidBy) throw refuse('WITHDRAWAL_OWN_PAYOUT');
  const { merchantId: m, withdrawalId, reference, holdingAccountId, paidBy, holderOverride, transferredAt } = command;
  if (transferredAt && transferredAt.getTime() > command.now.getTime())
    throw refuse('INVALID_INPUT', {
      message: 'The transfer cannot have been made after now',
      errors: [{ path: 'body.transferredAt', message: 'in the future' }],
    });
  // the bank's latest answer against the holder asked for: a mismatch leaves only with an override
  const holder = checkedHolder(
    withdrawal.holder.asked,
    command.holderName ?? withdrawal.holder.answered,
    holderOverride ? { reason: holderOverride.reason, by: paidBy } : undefined,
  );
  const postings = transfer(ledgerAccount.onHold(m), ledgerAccount.holding(holdingAccountId), withdrawal.amount);
  return [
    WithdrawalPaid({
      merchantId: m,
      withdrawalId,
      amount: withdrawal.amount,
      reference,
      holdingAccountId,
      paidBy,
      paidAt: command.now.toISOString(),
      postings,
      ...holder,
      ...(transferredAt ? { transferredAt: transferredAt.toISOString() } : {}),
    }),
  ];
}

/** A rejected withdrawal gives the held money back to the settled balance. */
function rejectWithdrawal(state: GatewayLedger, command: Command<'RejectWithdrawal'>): GatewayLedgerEvent[] {
  const withdrawal = requestedWithdrawal(state, command.withdrawalId);
  const { merchantId: m, withdrawalId, note, rejectedBy } = command;
  const postings = transfer(ledgerAccount.onHold(m), ledgerAccount.settled(m), withdrawal.amount);
  return [
    WithdrawalRejected({
      merchantId: m,
      withdrawalId,
      amount: withdrawal.amount,
      note,
      rejectedBy,
      rejectedAt: command.now.toISOString(),
      postings,
    }),
  ];
}

/** A suspense credit allocated once, as a payment received from the suspense account. */
function allocateSuspense(state: GatewayLedger, command: Command<'AllocateSuspense'>): GatewayLedgerEvent[] {
  if (state.credits.has(command.suspenseId)) return [];
  const { merchantId: m, suspenseId, paymentId, holdingAccountId, amount, fee, uniqueCode, allocatedBy } = command;
  if (fee + uniqueCode >= amount)
    throw refuse('SUSPENSE_BELOW_FEE', {
      message: `The amount (${amount}) is not larger than its fee (${fee})${uniqueCode ? ` and unique code (${uniqueCode})` : ''}`,
    });
  const { net, postings } = receivedPostings(ledgerAccount.suspense, m, amount, fee, uniqueCode);
  const allocatedAt = command.now.toISOString();
  return [
    GatewaySuspenseAllocated({
      merchantId: m,
      suspenseId,
      paymentId,
      holdingAccountId,
      amount,
      fee,
      net,
      allocatedBy,
      allocatedAt,
      postings,
      ...(uniqueCode > 0 ? { uniqueCode } : {}),
    }),
  ];
}

/**
 * Every entry is balanced by construction (and by the events' schema). A payment is credited once; a settlement takes
 * every credit completed before the cutoff, in one entry; a withdrawal takes at most what is available, and the
 * stream's expected revision keeps that true under concurrent requests.
 */
function decide(state: GatewayLedger, command: GatewayLedgerCommand): GatewayLedgerEvent[] {
  switch (command.type) {
    case 'CreditGatewayPayment':
      return creditPayment(state, command);
    case 'SettleDue':
      return settleDue(state, command);
    case 'RequestWithdrawal':
      return requestWithdrawal(state, command);
    case 'PayWithdrawal':
      return payWithdrawal(state, command);
    case 'RejectWithdrawal':
      return rejectWithdrawal(state, command);
    case 'AllocateSuspense':
      return allocateSuspense(state, command);
    default: {
      const never: never = command;
      return never;
    }
  }
}

type GatewayLedgerJson = Omit<GatewayLedger, 'credits'> & { credits: CreditsJson };

export const gatewayLedger: Decider<GatewayLedger, GatewayLedgerCommand, GatewayLedgerEvent> = {
  // a merchant's stream grows by a credit per payment, for ever: snapshots, less often the more payments it has seen
  snapshot: {
    name: 'gateway-ledger',
    // 2: each withdrawal keeps its holder, asked and answered
    version: 2,
    every: 200,
    size: state => state.credits.size,
    revive: json => {
      const { credits, ...rest } = json as GatewayLedgerJson;
      return { ...rest, credits: Credits.fromJSON(credits) };
    },
  },
  cached: true,
  // a merchant's credits, withdrawals and their payouts, from every process: one at a time from this one, and more
  // attempts than the default before a conflict answers 409
  serialised: true,
  attempts: 10,
  initialState: () => ({ merchantId: null, balances: {}, credits: Credits.none, withdrawals: {} }),
  evolve,
  decide,
};
