import { deterministicUuid, requestFingerprint, uuidv7 } from '../ids.ts';
import { refuse } from '../errors.ts';
import type pg from 'pg';
import {
  findGatewayWithdrawal,
  findWithdrawalPaidWith,
  gatewayLedgerProjection,
  type GatewayWithdrawalRow,
} from '../projections/gateway-ledger.ts';
import { spendingCash } from './holding-cash.ts';
import { WrongExpectedRevision, type Position } from '../store/event-store.ts';
import type { Queryable } from '../db/pool.ts';
import type { CommandDeps } from './deps.ts';
import { gatewayLedger, gatewayLedgerStream, type GatewayLedgerCommand } from '../domain/gateway-ledger.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { holderNamesMatch } from '../domain/holder-name.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { checkDestination } from './payout-account.ts';
import { withdrawalPayout, withdrawalPayoutStream } from '../domain/withdrawal-payout.ts';
import {
  normalisedReference,
  payoutReference,
  payoutReferenceStream,
  referenceUsed,
} from '../domain/payout-reference.ts';

export type WithdrawalRequest = { amount: number; bankCode: string; accountNumber: string; accountHolderName: string };

/** A stream still contended after every attempt answers 409 (the client may try again). */
async function contended<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof WrongExpectedRevision)
      throw refuse('CONFLICT', { message: 'The balance changed meanwhile; try again' });
    throw err;
  }
}

/** Answers once the ledger's read model shows the decision: whoever asked reads the balances and the withdrawal next. */
const shown = (deps: CommandDeps, position: Position | null) =>
  deps.readModels.waitFor(position, undefined, [gatewayLedgerProjection]);

/** Runs a ledger command on the merchant's stream. */
async function onLedger(deps: CommandDeps, command: GatewayLedgerCommand, actor: string) {
  const done = await contended(() =>
    handleCommand(deps, gatewayLedgerStream(command.merchantId), gatewayLedger, command, {
      actor,
      now: command.now,
      correlationId: 'withdrawalId' in command ? command.withdrawalId : undefined,
    }),
  );
  await shown(deps, done.position);
  return done;
}

/** What the request asked for, in a fixed order: the same Idempotency-Key must come with the same request. */
export function withdrawalRequestHash(request: WithdrawalRequest): string {
  const { amount, bankCode, accountNumber, accountHolderName } = request;
  return requestFingerprint([amount, bankCode, accountNumber, accountHolderName]);
}

/**
 * A merchant asks for a payout of part of their available balance: at least `minWithdrawal`, at most what is available
 * (the ledger's decision, kept true under concurrent requests by the stream's expected revision). With an
 * Idempotency-Key the withdrawal id is derived from it (as a payment's is), so a repeat, even a concurrent one, finds
 * the first withdrawal on the stream and records nothing; another body with the key is refused (422). The destination
 * is asked of the provider first (refused: 400, nothing recorded); its holder's name is recorded with the request.
 */
export async function requestWithdrawal(
  deps: CommandDeps,
  merchantId: string,
  request: WithdrawalRequest,
  minWithdrawal: number,
  idempotencyKey?: string | undefined,
) {
  const withdrawalId = idempotencyKey ? deterministicUuid(`withdrawal:${merchantId}:${idempotencyKey}`) : uuidv7();
  const requestHash = idempotencyKey ? withdrawalRequestHash(request) : undefined;
  const { amount, bankCode, accountNumber, accountHolderName } = request;
  const checked = await checkDestination(deps, request);
  const holderName = checked.holderName ?? undefined;
  const command = {
    type: 'RequestWithdrawal' as const,
    merchantId,
    withdrawalId,
    amount,
    bankCode,
    accountNumber,
    accountHolderName,
    requestedBy: merchantId,
    minWithdrawal,
    requestHash,
    holderName,
    now: deps.clock.now(),
  };
  const handled = await onLedger(deps, command, `user:${merchantId}`);
  const holderMatches = holderName === undefined ? null : holderNamesMatch(accountHolderName, holderName);
  return { id: withdrawalId, handled, ...checked, holderMatches };
}

/** The merchant of a withdrawal, from the read model (it only names the stream; the ledger decides). Unknown: 404. */
async function merchantOf(db: Queryable, withdrawalId: string): Promise<string> {
  const row = await findGatewayWithdrawal(db, withdrawalId);
  if (!row) throw refuse('WITHDRAWAL_NOT_FOUND');
  return row.merchant_id;
}

/**
 * Where a payout left from and what it knew of the holder: the platform account the admin paid from (always named: the
 * ledger books the payout out of that account's cash), the bank's answer at the transfer when it asked again, and the
 * admin's override when the bank names someone other than the requested holder. `checked`: the WALLET-A payout that
 * moved the money already checked the cash and the holder.
 */
export type PaidFrom = {
  holdingAccountId: string;
  checked?: boolean;
  holderName?: string | undefined;
  holderOverride?: { reason: string } | undefined;
  /** when the money left the account: the WALLET-A transfer's provider time, or the admin's word (absent: now) */
  transferredAt?: Date | undefined;
};

/**
 * An admin records that they transferred a requested withdrawal (never their own) from a platform account
 * (`from.holdingAccountId`); not while a payout of it through WALLET-A is in flight (409), and none may begin after
 * (the payout stream barred in the same append). The payout and the claim of its reference (stream payout-reference-<hash>)
 * are appended together: of two payouts with one reference, even racing for two merchants, one claims it and the other
 * is refused (409 WITHDRAWAL_REFERENCE_USED) with nothing changed. A holder the bank named otherwise is paid only with
 * an override (the ledger's decision).
 */
export async function payWithdrawal(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  withdrawalId: string,
  reference: string,
  from: PaidFrom,
) {
  const row = await findGatewayWithdrawal(deps.pool, withdrawalId);
  if (!row) throw refuse('WITHDRAWAL_NOT_FOUND');
  // the money left already when WALLET-A paid it (its cash checked before it moved): recorded whatever the cash says
  // now; a withdrawal the ledger refuses to pay anyway (decided, or the admin's own) is refused for that, not the cash
  const refusedAnyway = row.status !== 'REQUESTED' || row.requested_by === adminId;
  if (from.checked || refusedAnyway) return recordPaid(deps, row, adminId, reference, from, !from.checked);
  return spendingCash(deps, from.holdingAccountId, async cash => {
    await cash.cover(row.amount);
    return recordPaid(deps, row, adminId, reference, from, true);
  });
}

/** The payout and the claim of its reference in one append (and, paid elsewhere, the payout stream barred). */
async function recordPaid(
  deps: CommandDeps & { pool: pg.Pool },
  row: GatewayWithdrawalRow,
  adminId: string,
  reference: string,
  from: PaidFrom,
  elsewhere: boolean,
) {
  const { merchant_id: merchantId, id: withdrawalId } = row;
  const now = deps.clock.now();
  const ledgerStream = gatewayLedgerStream(merchantId);
  const reads = {
    ledger: streamRead(ledgerStream, gatewayLedger),
    // a reference is usually new: not read unless the append finds it claimed
    reference: streamRead(payoutReferenceStream(reference), payoutReference),
    payout: streamRead(withdrawalPayoutStream(withdrawalId), withdrawalPayout),
  };
  // paid elsewhere (not by the WALLET-A payout that began it): no payout through WALLET-A may be in flight or begin
  const done = await contended(() =>
    handleStreams(
      deps,
      reads,
      async loaded => {
        // the withdrawal's own refusals (not requested, own payout) come before the reference's
        const paid = gatewayLedger.decide(loaded.ledger.state, {
          type: 'PayWithdrawal',
          merchantId,
          withdrawalId,
          reference,
          holdingAccountId: from.holdingAccountId,
          paidBy: adminId,
          holderName: from.holderName,
          holderOverride: from.holderOverride,
          transferredAt: from.transferredAt,
          now,
        });
        const barred = elsewhere
          ? withdrawalPayout.decide(loaded.payout.state, { type: 'BarPayout', withdrawalId, merchantId, adminId, now })
          : [];
        const unclaimed = loaded.reference.state.withdrawalId === null;
        if (unclaimed && (await findWithdrawalPaidWith(deps.pool, normalisedReference(reference), withdrawalId)))
          throw referenceUsed(reference);
        const claimed = payoutReference.decide(loaded.reference.state, {
          type: 'ClaimPayoutReference',
          reference,
          merchantId,
          withdrawalId,
          now,
        });
        return { append: { ledger: paid, reference: claimed, payout: barred }, result: null };
      },
      { actor: `admin:${adminId}`, now, correlationId: withdrawalId },
    ),
  );
  await shown(deps, done.position);
  return done;
}

/**
 * An admin refuses a requested withdrawal: its amount is available again. Not while a payout through WALLET-A is in
 * flight (begun, not known to have failed, 409): the rejection also bars payouts on the payout stream, so of a payout
 * beginning and a rejection at once, one is appended and the other, deciding again, refused.
 */
export async function rejectWithdrawal(
  deps: CommandDeps & { pool: Queryable },
  adminId: string,
  withdrawalId: string,
  note: string,
) {
  const merchantId = await merchantOf(deps.pool, withdrawalId);
  const now = deps.clock.now();
  const ledgerStream = gatewayLedgerStream(merchantId);
  const reads = {
    ledger: streamRead(ledgerStream, gatewayLedger),
    payout: streamRead(withdrawalPayoutStream(withdrawalId), withdrawalPayout),
  };
  const done = await contended(() =>
    handleStreams(
      deps,
      reads,
      loaded => {
        const rejected = gatewayLedger.decide(loaded.ledger.state, {
          type: 'RejectWithdrawal',
          merchantId,
          withdrawalId,
          note,
          rejectedBy: adminId,
          now,
        });
        const barred = withdrawalPayout.decide(loaded.payout.state, {
          type: 'BarPayout',
          withdrawalId,
          merchantId,
          adminId,
          now,
        });
        return { append: { ledger: rejected, payout: barred }, result: null };
      },
      { actor: `admin:${adminId}`, now, correlationId: withdrawalId },
    ),
  );
  await shown(deps, done.position);
  return done;
}
