import { wibDate } from '../domain/working-days.ts';
import type { CreditRow, SettledCreditRow, SettlementRow } from './gateway-settlements.ts';

/** How many of a settlement's payments its listing and its webhook carry; the rest are pages of its detail. */
export const paymentsInline = 1000;

/**
 * A settlement as the API, the pages and the `gateway.settled` webhook show it. Its due date is the WIB day of its
 * cutoff: the working day the run settled for. Each payment's is its own, as the settlement recorded it: the first
 * working day after the day its money moved, earlier than the settlement's when the run was late after an outage; a
 * settlement recorded before it kept them gives each payment the settlement's.
 */
export function presentSettlement(s: SettlementRow, credits: readonly CreditRow[]) {
  const dueDate = wibDate(s.cutoff);
  const settledAt = s.settled_at.toISOString();
  return {
    id: s.id,
    dueDate,
    cutoff: s.cutoff.toISOString(),
    settledAt,
    paymentCount: s.payment_count,
    gross: s.gross,
    fee: s.fee,
    net: s.net,
    payments: credits.map(c => ({
      type: c.kind,
      paymentId: c.payment_id,
      suspenseId: c.kind === 'ADJUSTMENT' ? c.credit_id : null,
      orderId: c.order_id,
      gross: c.gross,
      fee: c.fee,
      net: c.net,
      paidAt: c.paid_at.toISOString(),
      dueDate: c.due_date ?? dueDate,
      settledAt,
    })),
  };
}

export type PresentedSettlement = ReturnType<typeof presentSettlement>;

/** Settlements with their credits (each list in the order `settledCredits` gives). */
export function presentSettlements(rows: readonly SettlementRow[], credits: readonly SettledCreditRow[]) {
  const of = new Map<string, SettledCreditRow[]>();
  for (const c of credits) {
    const list = of.get(c.settlement_id);
    if (list) list.push(c);
    else of.set(c.settlement_id, [c]);
  }
  return rows.map(s => presentSettlement(s, of.get(s.id) ?? []));
}
