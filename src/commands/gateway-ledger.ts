// The gateway ledger's commands; its decider and postings are in src/domain/gateway-ledger.ts.
import { gatewayLedger, gatewayLedgerStream } from '../domain/gateway-ledger.ts';
import type { HolidayCalendar } from '../domain/working-days.ts';
import { handleCommand, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';

/** Books a completed gateway payment into its merchant's ledger, once (a second credit of the payment appends nothing). */
export function creditGatewayPayment(
  es: EventSourcing,
  credit: {
    merchantId: string;
    paymentId: string;
    holdingAccountId: string;
    totalAmount: number;
    fee: number;
    /** the part of totalAmount that is the unique code, the platform's (absent: none) */
    uniqueCode?: number;
    completedAt: Date;
    /** when the money moved: the provider's time of the credit that paid it (absent: completedAt) */
    paidAt?: Date;
  },
  context: CommandContext,
) {
  return handleCommand(
    es,
    gatewayLedgerStream(credit.merchantId),
    gatewayLedger,
    { type: 'CreditGatewayPayment', ...credit, uniqueCode: credit.uniqueCode ?? 0, now: context.now },
    context,
  );
}

/**
 * Moves every credit of the merchant completed before `cutoff` from pending to settled, in one entry (none due: nothing);
 * `judged`, the calendar the cutoff came from and its missing years among last and this, puts on the entry those
 * judged and each credit's own due day.
 */
export function settleDue(
  es: EventSourcing,
  merchantId: string,
  cutoff: Date,
  context: CommandContext,
  judged?: { calendar: HolidayCalendar; yearsWithoutDecree: readonly number[] },
) {
  const command = { type: 'SettleDue' as const, merchantId, cutoff, now: context.now, ...judged };
  return handleCommand(es, gatewayLedgerStream(merchantId), gatewayLedger, command, context);
}
