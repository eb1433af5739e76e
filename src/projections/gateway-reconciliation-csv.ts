import { csvText, type CsvCell } from '../csv.ts';
import { accountKinds, type GatewayReconciliation } from './gateway-reconciliation.ts';

/**
 * The report as one flat CSV: every line starts with its section; each section opens with a header line whose first
 * cell is `section` and whose other cells name the columns of the lines that follow it.
 */
export function reconciliationCsv(report: GatewayReconciliation): string {
  const lines: CsvCell[][] = [];
  const section = (name: string, columns: string[], rows: CsvCell[][]) => {
    lines.push(['section', ...columns]);
    for (const row of rows) lines.push([name, ...row]);
  };
  const { period, trialBalance, merchants, holdingCredits, fees } = report;
  section('summary', ['from', 'to', 'timeZone', 'balanced', 'trialBalance', 'merchants', 'holdingCredits', 'fees', 'unmatchedCredits'], [[
    period.from, period.to, period.timeZone, report.balanced, trialBalance.balanced, merchants.balanced, holdingCredits.balanced, fees.balanced,
    report.unmatchedCredits.length,
  ]]);
  section('trial-balance', ['day', 'postings', 'debits', 'credits', 'difference', ...accountKinds], [
    ...trialBalance.days.map(d => [d.day, d.postings, d.debits, d.credits, d.difference, ...accountKinds.map(k => d[k])]),
    ['total', trialBalance.total.postings, trialBalance.total.debits, trialBalance.total.credits, trialBalance.total.difference, ...accountKinds.map(k => trialBalance.total[k])],
  ]);
  section('unbalanced-entry', ['merchantId', 'streamRevision', 'eventType', 'referenceId', 'day', 'sum'],
    trialBalance.unbalancedEntries.map(e => [e.merchantId, e.streamRevision, e.eventType, e.referenceId, e.day, e.sum]));
  section('merchant-balance', ['merchantId', 'ledgerPending', 'ledgerSettled', 'ledgerOnHold', 'readModelPending', 'readModelSettled', 'readModelOnHold', 'matches'],
    merchants.rows.map(m => [m.merchantId, m.ledger.pending, m.ledger.settled, m.ledger.onHold, m.readModel.pending, m.readModel.settled, m.readModel.onHold, m.matches]));
  section('holding-credits', ['accountId', 'credited', 'completedPayments', 'payments', 'difference'], [
    ...holdingCredits.accounts.map(a => [a.accountId, a.credited, a.completedPayments, a.payments, a.difference]),
    ['total', holdingCredits.total.credited, holdingCredits.total.completedPayments, holdingCredits.total.payments, holdingCredits.total.difference],
  ]);
  section('payment-problem', ['paymentId', 'problem', 'holdingAccountId', 'credited', 'creditedFee', 'totalAmount', 'fee', 'mutationId'],
    holdingCredits.problems.map(p => [p.paymentId, p.problem, p.holdingAccountId, p.credited, p.creditedFee, p.totalAmount, p.fee, p.mutationId]));
  section('unmatched-credit', ['mutationId', 'accountId', 'amount', 'senderName', 'reference', 'bookedAt', 'latePaymentId'],
    report.unmatchedCredits.map(c => [c.mutationId, c.accountId, c.amount, c.senderName, c.reference, c.bookedAt, c.latePaymentId]));
  section('fees', ['day', 'earned', 'paymentsFees', 'difference'], [
    ...fees.days.map(d => [d.day, d.earned, d.paymentsFees, d.difference]),
    ['total', fees.total.earned, fees.total.paymentsFees, fees.total.difference],
  ]);
  return csvText(lines);
}
