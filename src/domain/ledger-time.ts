import type { EventOf } from '../events/event.ts';
import type { GatewayLedgerEvent } from '../events/gateway.ts';
import type { SuspenseCreditReceived, SuspenseCreditRefunded } from '../events/gateway-suspense.ts';
import type { HoldingTransferCreditReleased, HoldingTransferRecorded } from '../events/holding-transfers.ts';

/**
 * When an entry of the gateway ledger took effect: when the money moved, beside when the entry was recorded (its
 * metadata's occurredAt). Periods, statements, the trial balance and settlement follow the effective time, so a payment
 * paid at 23:59 WIB and noticed after midnight belongs to the day it was paid.
 */
export type PostingEvent =
  | GatewayLedgerEvent
  | EventOf<typeof SuspenseCreditReceived>
  | EventOf<typeof SuspenseCreditRefunded>
  | EventOf<typeof HoldingTransferRecorded>
  | EventOf<typeof HoldingTransferCreditReleased>;

/**
 * The effective time of one entry (ISO instant). A payment: the provider's time of the credit that paid it; a payout:
 * the transfer's time; a suspense credit: its mutation's time (receivedAt is that already); a settlement: its cutoff;
 * a hand transfer: when the money left its source (its DEBIT's time when synchronised before the recording), else when
 * it was recorded: a DEBIT matched later never moves it, since a closed month may have counted it where it was. Events from before a field existed have what they had (completedAt, paidAt): history is not
 * rewritten. The rest (withdrawal requests and rejections, allocations, refunds, a suspense credit given back from a
 * hand transfer) move no money between the platform and the outside: they take effect when decided.
 */
export function effectiveAt(event: PostingEvent): string {
  switch (event.type) {
    case 'GatewayPaymentCredited':
      return event.data.paidAt ?? event.data.completedAt;
    case 'BalanceSettled':
      return event.data.cutoff;
    case 'WithdrawalPaid':
      return event.data.transferredAt ?? event.data.paidAt;
    case 'WithdrawalRequested':
      return event.data.requestedAt;
    case 'WithdrawalRejected':
      return event.data.rejectedAt;
    case 'GatewaySuspenseAllocated':
      return event.data.allocatedAt;
    case 'SuspenseCreditReceived':
      return event.data.receivedAt;
    case 'SuspenseCreditRefunded':
      return event.data.refundedAt;
    case 'HoldingTransferRecorded':
      return event.data.transferredAt ?? event.data.recordedAt;
    case 'HoldingTransferCreditReleased':
      // when the admin gave the credit back: a month that counted the transfer's credit as the one in suspense keeps it
      return event.data.releasedAt;
    default: {
      const never: never = event;
      return never;
    }
  }
}
