import { csvText, type CsvCell } from '../csv.ts';
import { refuse } from '../errors.ts';
import { accountKinds, type GatewayReconciliation } from './gateway-reconciliation.ts';

/** The report's tables, one CSV file each (one header row, so a spreadsheet's filter works on it). */
export const reconciliationTables = [
  'trial-balance',
  'merchants',
  'holding-accounts',
  'suspense',
  'fees',
  'payouts',
] as const;
export type ReconciliationTable = (typeof reconciliationTables)[number];

/** `table` as one of the report's tables; else 400 INVALID_INPUT naming them. */
export function reconciliationTable(table: unknown): ReconciliationTable {
  const found = reconciliationTables.find(t => t === table);
  if (found) return found;
  throw refuse('INVALID_INPUT', {
    message: `table must be one of ${reconciliationTables.join(', ')}`,
    errors: [{ path: 'table', message: table === undefined ? 'missing' : 'not a table of the report' }],
  });
}

/** An instant as WIB wall time with its offset (UTC+7 all year): the CSV's days are WIB days, so are its times. */
export function wibTime(iso: string): string {
  return `${new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().slice(0, 19)}+07:00`;
}

const balanceColumns = (prefix: string) => [`${prefix}Pending`, `${prefix}Settled`, `${prefix}OnHold`];

/** One table of the report as CSV text: a header row, then its rows. */
export function reconciliationCsv(report: GatewayReconciliation, table: ReconciliationTable): string {
  const { trialBalance, merchants, holdingAccounts, fees } = report;
  const lines: CsvCell[][] = (() => {
    switch (table) {
      case 'trial-balance':
        return [
          ['day', 'postings', 'debits', 'credits', 'difference', ...accountKinds],
          ...trialBalance.days.map(d => [
            d.day,
            d.postings,
            d.debits,
            d.credits,
            d.difference,
            ...accountKinds.map(k => d[k]),
          ]),
          [
            'total',
            trialBalance.total.postings,
            trialBalance.total.debits,
            trialBalance.total.credits,
            trialBalance.total.difference,
            ...accountKinds.map(k => trialBalance.total[k]),
          ],
        ];
      case 'merchants':
        return [
          [
            'merchantId',
            ...balanceColumns('opening'),
            'creditsGross',
            'fees',
            'creditsNet',
            'adjustments',
            'settlements',
            'withdrawalsRequested',
            'withdrawalsPaid',
            'withdrawalsRejected',
            ...balanceColumns('closing'),
            'consistent',
            ...balanceColumns('readModel'),
            'differences',
          ],
          ...merchants.rows.map(m => {
            const v = m.movements;
            return [
              m.merchantId,
              m.opening.pending,
              m.opening.settled,
              m.opening.onHold,
              v.creditsGross,
              v.fees,
              v.creditsNet,
              v.adjustments,
              v.settlements,
              v.withdrawalsRequested,
              v.withdrawalsPaid,
              v.withdrawalsRejected,
              m.closing.pending,
              m.closing.settled,
              m.closing.onHold,
              m.consistent,
              m.readModel?.pending ?? null,
              m.readModel?.settled ?? null,
              m.readModel?.onHold ?? null,
              m.differences.map(d => d.balance).join(' '),
            ];
          }),
        ];
      case 'holding-accounts':
        return [
          ['accountId', 'opening', 'credited', 'paidOut', 'closing', 'consistent', 'providerBalance', 'difference'],
          ...holdingAccounts.accounts.map(h => [
            h.accountId,
            h.opening,
            h.credited,
            h.paidOut,
            h.closing,
            h.consistent,
            h.providerBalance,
            h.difference,
          ]),
        ];
      case 'suspense':
        return [
          [
            'suspenseId',
            'mutationId',
            'holdingAccountId',
            'amount',
            'senderName',
            'reference',
            'receivedAt',
            'status',
            'merchantId',
            'paymentId',
            'fee',
            'net',
            'refundReference',
            'resolvedBy',
            'resolvedAt',
            'suggestedPaymentId',
            'suggestion',
          ],
          ...report.suspense.items.map(i => [
            i.id,
            i.mutationId,
            i.accountId,
            i.amount,
            i.senderName,
            i.reference,
            wibTime(i.receivedAt.toISOString()),
            i.status,
            i.merchantId,
            i.paymentId,
            i.fee,
            i.net,
            i.refundReference,
            i.resolvedBy,
            i.resolvedAt ? wibTime(i.resolvedAt.toISOString()) : null,
            i.status === 'OPEN' ? (i.suggestion?.paymentId ?? null) : null,
            i.status === 'OPEN' ? (i.suggestion?.reason ?? null) : null,
          ]),
        ];
      case 'fees':
        return [
          ['day', 'earned', 'paymentsFees', 'allocationsFees', 'difference'],
          ...fees.days.map(d => [d.day, d.earned, d.paymentsFees, d.allocationsFees, d.difference]),
          ['total', fees.total.earned, fees.total.paymentsFees, fees.total.allocationsFees, fees.total.difference],
        ];
      case 'payouts':
        return [
          ['paidAt', 'merchantId', 'withdrawalId', 'amount', 'reference'],
          ...report.payouts.map(p => [wibTime(p.paidAt), p.merchantId, p.withdrawalId, p.amount, p.reference]),
        ];
      default: {
        const never: never = table;
        return never;
      }
    }
  })();
  return csvText(lines);
}
