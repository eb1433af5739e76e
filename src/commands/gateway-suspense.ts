import type pg from 'pg';
import type { GatewaySettings } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import { findGatewayAccess } from '../projections/gateway-access.ts';
import { findPayment, type PaymentRow } from '../projections/payments.ts';
import type { CommandDeps } from './deps.ts';
import { fee, grossUp, isGatewayMethod } from '../domain/gateway-fees.ts';
import { gatewayLedger, gatewayLedgerStream } from '../domain/gateway-ledger.ts';
import { handleCommand, load, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { spendingCash } from './holding-cash.ts';
import { gatewayMethodsOf } from './holding-accounts.ts';
import { suspenseStream, suspense, openItem, type SuspenseCommand } from '../domain/gateway-suspense.ts';
import { gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { gatewaySuspenseProjection } from '../projections/gateway-suspense.ts';
import { holdingTransfers, holdingTransfersStream } from '../domain/holding-transfers.ts';
import { holdingTransfersProjection } from '../projections/holding-transfers.ts';

/** A credit into a holding account that no payment claims goes to suspense, once per mutation. */
export function receiveSuspenseCredit(
  es: EventSourcing,
  credit: Omit<Extract<SuspenseCommand, { type: 'ReceiveSuspenseCredit' }>, 'type'>,
  context: CommandContext,
) {
  return handleCommand(es, suspenseStream, suspense, { type: 'ReceiveSuspenseCredit', ...credit }, context);
}

export type AllocationTarget = { paymentId: string } | { userId: string };

/** Whom an allocation credits, its fee, and the unique code the platform keeps of it. */
type Allocation = { merchantId: string; paymentId: string | null; fee: number; uniqueCode: number };

/**
 * What an allocation to a gateway payment charges: the payment's own fee (on its amount, never on the credit with its
 * unique code), or for a payment whose payer never chose the fee its bill would have had by the holding account's
 * method. A credit of exactly the payment's total is booked as its completion would have been: the unique code is the
 * platform's.
 */
function paymentAllocation(
  payment: PaymentRow,
  providerCode: string,
  credit: number,
  settings: GatewaySettings,
): Allocation {
  const method = payment.type && isGatewayMethod(payment.type) ? payment.type : gatewayMethodsOf(providerCode)[0];
  if (!method)
    throw refuse('SUSPENSE_TARGET_INVALID', { message: 'The payment has no gateway method to take its fee by' });
  const billed =
    payment.gateway_fee === null && payment.fee_to_customer
      ? grossUp(method, payment.base_amount ?? payment.amount, settings)
      : payment.amount;
  const charged = payment.gateway_fee ?? fee(method, billed, settings);
  const code = payment.unique_code ?? 0;
  const uniqueCode = code > 0 && credit === payment.total_amount ? code : 0;
  return { merchantId: payment.owner_id, paymentId: payment.id, fee: charged, uniqueCode };
}

/**
 * Whom an allocation credits and what it charges: a gateway payment's own figures (paymentAllocation); a merchant
 * (approved for the gateway) named alone pays the fee on the credit by the holding account's first gateway method.
 */
async function allocationTarget(
  db: Queryable,
  settings: GatewaySettings,
  target: AllocationTarget,
  item: { providerCode: string; amount: number },
): Promise<Allocation> {
  if ('paymentId' in target) {
    const payment = await findPayment(db, target.paymentId);
    if (!payment || !payment.gateway)
      throw refuse('SUSPENSE_TARGET_INVALID', { message: 'paymentId names no gateway payment' });
    return paymentAllocation(payment, item.providerCode, item.amount, settings);
  }
  const access = await findGatewayAccess(db, target.userId);
  if (access?.status !== 'APPROVED')
    throw refuse('SUSPENSE_TARGET_INVALID', { message: 'userId names no approved gateway merchant' });
  const method = gatewayMethodsOf(item.providerCode)[0];
  if (!method)
    throw refuse('SUSPENSE_TARGET_INVALID', {
      message: `${item.providerCode} serves no gateway method to take the fee by`,
    });
  return { merchantId: target.userId, paymentId: null, fee: fee(method, item.amount, settings), uniqueCode: 0 };
}

/**
 * An admin gives an open suspense credit to a merchant: the suspense stream records who and why, and the merchant's
 * ledger credits pending with the amount less its fee (settled as a payment is), appended together: allocated once.
 */
export async function allocateSuspenseCredit(
  deps: CommandDeps & { pool: Queryable },
  settings: GatewaySettings,
  adminId: string,
  suspenseId: string,
  target: AllocationTarget,
  note: string | null,
) {
  const known = openItem((await load(deps, suspenseStream, suspense)).state, suspenseId);
  const {
    merchantId,
    paymentId,
    fee: charged,
    uniqueCode,
  } = await allocationTarget(deps.pool, settings, target, known);
  const now = deps.clock.now();
  const reads = {
    suspense: streamRead(suspenseStream, suspense),
    ledger: streamRead(gatewayLedgerStream(merchantId), gatewayLedger),
  };
  const done = await handleStreams(
    deps,
    reads,
    loaded => {
      const item = openItem(loaded.suspense.state, suspenseId);
      const credited = gatewayLedger.decide(loaded.ledger.state, {
        type: 'AllocateSuspense',
        merchantId,
        suspenseId,
        paymentId,
        holdingAccountId: item.accountId,
        amount: item.amount,
        fee: charged,
        uniqueCode,
        allocatedBy: adminId,
        now,
      });
      const allocated = suspense.decide(loaded.suspense.state, {
        type: 'AllocateSuspenseCredit',
        suspenseId,
        merchantId,
        paymentId,
        fee: charged,
        uniqueCode,
        note,
        adminId,
        now,
      });
      return { append: { suspense: allocated, ledger: credited }, result: null };
    },
    { actor: `admin:${adminId}`, now, correlationId: suspenseId },
  );
  await deps.readModels.waitFor(done.position, undefined, [gatewaySuspenseProjection, gatewayLedgerProjection]);
  return done;
}

/**
 * An admin records that an open suspense credit went back to its payer (`reference`: the refund transfer's): money out
 * of its holding account, so its cash in the ledger must cover it, checked as a payout's is (spendingCash).
 */
export async function refundSuspenseCredit(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  suspenseId: string,
  reference: string,
  note: string | null,
) {
  const item = openItem((await load(deps, suspenseStream, suspense)).state, suspenseId);
  const done = await spendingCash(deps, item.accountId, async cash => {
    await cash.cover(item.amount);
    const now = deps.clock.now();
    return handleCommand(
      deps,
      suspenseStream,
      suspense,
      { type: 'RefundSuspenseCredit', suspenseId, reference, note, adminId, now },
      { actor: `admin:${adminId}`, now, correlationId: suspenseId },
    );
  });
  await deps.readModels.waitFor(done.position, undefined, [gatewaySuspenseProjection, gatewayLedgerProjection]);
  return done;
}

/**
 * An admin gives back a suspense credit a hand transfer took as its destination side (it was a customer's payment, or
 * another transfer's): OPEN again, to be allocated or refunded, and the transfer's destination booked and awaited as
 * any transfer's (holding:<to> debited, platform:suspense credited), both streams in one append, with the reason.
 */
export async function untransferSuspenseCredit(deps: CommandDeps, adminId: string, suspenseId: string, reason: string) {
  const now = deps.clock.now();
  const reads = {
    suspense: streamRead(suspenseStream, suspense),
    transfers: streamRead(holdingTransfersStream, holdingTransfers),
  };
  const done = await handleStreams(
    deps,
    reads,
    loaded => {
      const reopened = suspense.decide(loaded.suspense.state, {
        type: 'UntransferSuspenseCredit',
        suspenseId,
        reason,
        adminId,
        now,
      });
      // the transfer that took it, as the suspense stream has it (the decision refused any other credit)
      const [transferId] = reopened.flatMap(e => (e.type === 'SuspenseCreditUntransferred' ? [e.data.transferId] : []));
      const released = holdingTransfers.decide(loaded.transfers.state, {
        type: 'ReleaseSuspenseCredit',
        transferId: transferId!,
        suspenseId,
        reason,
        adminId,
        now,
      });
      return { append: { suspense: reopened, transfers: released }, result: null };
    },
    { actor: `admin:${adminId}`, now, correlationId: suspenseId },
  );
  await deps.readModels.waitFor(done.position, undefined, [
    gatewaySuspenseProjection,
    gatewayLedgerProjection,
    holdingTransfersProjection,
  ]);
  return done;
}
