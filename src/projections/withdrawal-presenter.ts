import type { WithdrawalPaid, WithdrawalRejected } from '../events/gateway.ts';
import type { EventOf } from '../events/event.ts';
import type { GatewayWithdrawalRow } from './gateway-ledger.ts';
import { holderNamesMatch } from '../domain/holder-name.ts';

/** A withdrawal as the dashboard shows it (GET /api/dashboard/gateway/withdrawals/:id), and as its webhooks carry it. */
export function presentWithdrawal(row: GatewayWithdrawalRow) {
  return {
    id: row.id,
    amount: row.amount,
    bankCode: row.bank_code,
    accountNumber: row.account_number,
    accountHolderName: row.account_holder_name,
    status: row.status,
    requestedAt: row.requested_at.toISOString(),
    processedAt: row.processed_at?.toISOString() ?? null,
    reference: row.reference,
    note: row.note,
    ...holderAnswer(row),
  };
}

/**
 * The holder the bank named for the destination (the payout's answer once paid, else the request's; null: never asked)
 * and whether it is the requested holder (null: not known).
 */
export function holderAnswer(row: GatewayWithdrawalRow) {
  const holderName = row.paid_holder_name ?? row.checked_holder_name;
  return {
    holderName,
    holderMatches: holderName === null ? null : holderNamesMatch(row.account_holder_name, holderName),
  };
}

/** The row as the read model shows it once it has projected this outcome (a saga may run ahead of the projection). */
export function rowDecided(
  row: GatewayWithdrawalRow,
  event: EventOf<typeof WithdrawalPaid> | EventOf<typeof WithdrawalRejected>,
): GatewayWithdrawalRow {
  return event.type === 'WithdrawalPaid'
    ? {
        ...row,
        status: 'PAID',
        processed_by: event.data.paidBy,
        processed_at: new Date(event.data.paidAt),
        reference: event.data.reference,
        note: null,
        paid_holder_name: event.data.holderName ?? null,
        holder_override: event.data.holderOverride ?? null,
      }
    : {
        ...row,
        status: 'REJECTED',
        processed_by: event.data.rejectedBy,
        processed_at: new Date(event.data.rejectedAt),
        reference: null,
        note: event.data.note,
      };
}
