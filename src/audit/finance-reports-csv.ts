import { csvText, csvTime, type CsvCell } from '../csv.ts';
import type { BalanceHistory } from './gateway-balance-history.ts';
import type { PayoutReport } from './gateway-payout-report.ts';
import type { GatewayRevenue, RevenueFigures } from './gateway-revenue.ts';

/**
 * The finance reports' tables as CSV files (src/csv.ts: a byte order mark, WIB times with their offset), one header row
 * each; a report's totals are a table of their own, so a spreadsheet's SUM over the rows counts nothing twice. Every id
 * has its names in the columns beside it.
 */

export const balanceHistoryTables = ['days', 'accounts'] as const;
export const revenueTables = ['by-method', 'by-merchant', 'totals'] as const;
export const payoutReportTables = ['payouts', 'attempts', 'totals'] as const;
export type BalanceHistoryTable = (typeof balanceHistoryTables)[number];
export type RevenueTable = (typeof revenueTables)[number];
export type PayoutReportTable = (typeof payoutReportTables)[number];

const at = (iso: string | null) => (iso ? csvTime(new Date(iso)) : null);

/** The subject's columns, first on every row: which merchant or account it is, by id and by name. */
function subjectCells(history: BalanceHistory): { header: string[]; cells: CsvCell[] } {
  const s = history.subject;
  return s.kind === 'merchant'
    ? {
        header: ['merchantId', 'merchantName', 'merchantEmail'],
        cells: [s.merchantId, s.merchantName, s.merchantEmail],
      }
    : {
        header: ['holdingAccountId', 'providerCode', 'accountName'],
        cells: [s.holdingAccountId, s.providerCode, s.accountName],
      };
}

export function balanceHistoryCsv(history: BalanceHistory, table: BalanceHistoryTable): string {
  const { header, cells } = subjectCells(history);
  const figures = ['account', 'balance', 'postings', 'opening', 'debits', 'credits', 'closing'];
  if (table === 'days')
    return csvText([
      ['day', ...header, ...figures],
      ...history.days.map(d => [
        d.day,
        ...cells,
        d.account,
        d.balance,
        d.postings,
        d.opening,
        d.debits,
        d.credits,
        d.closing,
      ]),
    ]);
  return csvText([
    ['from', 'to', ...header, ...figures, 'consistent'],
    ...history.accounts.map(a => [
      history.period.from,
      history.period.to,
      ...cells,
      a.account,
      a.balance,
      a.postings,
      a.opening,
      a.debits,
      a.credits,
      a.closing,
      a.consistent,
    ]),
  ]);
}

const revenueColumns = ['payments', 'allocations', 'gross', 'fees', 'uniqueCodes', 'revenue', 'net'];
const revenueCells = (f: RevenueFigures): CsvCell[] => [
  f.payments,
  f.allocations,
  f.gross,
  f.fees,
  f.uniqueCodes,
  f.revenue,
  f.net,
];

export function revenueCsv(report: GatewayRevenue, table: RevenueTable): string {
  switch (table) {
    case 'by-method':
      return csvText([['method', ...revenueColumns], ...report.byMethod.map(m => [m.method, ...revenueCells(m)])]);
    case 'by-merchant':
      return csvText([
        ['merchantId', 'merchantName', 'merchantEmail', ...revenueColumns],
        ...report.byMerchant.map(m => [m.merchantId, m.merchantName, m.merchantEmail, ...revenueCells(m)]),
      ]);
    case 'totals':
      return csvText([
        ['from', 'to', ...revenueColumns],
        [report.period.from, report.period.to, ...revenueCells(report.total)],
      ]);
    default: {
      const never: never = table;
      return never;
    }
  }
}

const payoutColumns = [
  'paidAt',
  'recordedAt',
  'withdrawalId',
  'merchantId',
  'merchantName',
  'merchantEmail',
  'amount',
  'channel',
  'reference',
  'sourceAccountId',
  'sourceProviderCode',
  'sourceAccountName',
  'bankCode',
  'accountNumber',
  'holderAsked',
  'holderAnswered',
  'holderMatches',
  'holderOverrideReason',
  'holderOverrideBy',
  'paidBy',
  'attempts',
  'attemptOutcomes',
];

const payoutRows = (report: PayoutReport): CsvCell[][] => [
  payoutColumns,
  ...report.payouts.map(p => [
    at(p.paidAt),
    at(p.recordedAt),
    p.withdrawalId,
    p.merchantId,
    p.merchantName,
    p.merchantEmail,
    p.amount,
    p.channel,
    p.reference,
    p.sourceAccountId,
    p.sourceProviderCode,
    p.sourceAccountName,
    p.bankCode,
    p.accountNumber,
    p.holderAsked,
    p.holderAnswered,
    p.holderMatches,
    p.holderOverride?.reason ?? null,
    p.holderOverride?.by ?? null,
    p.paidBy,
    p.attempts.length,
    p.attempts.map(a => a.outcome).join(' '),
  ]),
];

const attemptRows = (report: PayoutReport): CsvCell[][] => [
  [
    'withdrawalId',
    'merchantId',
    'merchantName',
    'transferId',
    'accountId',
    'startedAt',
    'startedBy',
    'outcome',
    'reason',
    'failedAt',
  ],
  ...report.payouts.flatMap(p =>
    p.attempts.map(a => [
      p.withdrawalId,
      p.merchantId,
      p.merchantName,
      a.transferId,
      a.accountId,
      at(a.startedAt),
      a.startedBy,
      a.outcome,
      a.reason,
      at(a.failedAt),
    ]),
  ),
];

// one row: the channels side by side, so no row sums the others
const payoutTotalsRows = ({ period, total }: PayoutReport): CsvCell[][] => [
  [
    'from',
    'to',
    'payouts',
    'amount',
    ...total.byChannel.flatMap(c => [`${c.channel.slice(1)}Payouts`, `${c.channel.slice(1)}Amount`]),
  ],
  [period.from, period.to, total.payouts, total.amount, ...total.byChannel.flatMap(c => [c.payouts, c.amount])],
];

export function payoutReportCsv(report: PayoutReport, table: PayoutReportTable): string {
  switch (table) {
    case 'payouts':
      return csvText(payoutRows(report));
    case 'attempts':
      return csvText(attemptRows(report));
    case 'totals':
      return csvText(payoutTotalsRows(report));
    default: {
      const never: never = table;
      return never;
    }
  }
}
