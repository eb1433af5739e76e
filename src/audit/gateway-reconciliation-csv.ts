import { csvText, csvTime, type CsvCell } from '../csv.ts';
import { refuse } from '../errors.ts';
import { accountKinds, type GatewayReconciliation } from './gateway-reconciliation.ts';
import { carriedBalancesTable } from './carried-balances-csv.ts';
import { suspenseCreditCells, suspenseCreditHeader } from './suspense-credit-columns.ts';

/**
 * The report's tables, one CSV file each (one header row, so a spreadsheet's filter works on it). A table's totals are
 * a table of their own: a total row among the days would be summed again by a spreadsheet's SUM or pivot.
 */
export const reconciliationTables = [
  'trial-balance',
  'trial-balance-totals',
  'accounts',
  'account-kinds',
  'merchants',
  'holding-accounts',
  'suspense',
  'suspense-ageing',
  'suspense-open',
  'fees',
  'fees-totals',
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

const balanceColumns = (prefix: string) => [`${prefix}Pending`, `${prefix}Settled`, `${prefix}OnHold`];

type Report = GatewayReconciliation;

const trialBalanceRows = ({ trialBalance }: Report): CsvCell[][] => [
  ['day', 'postings', 'debits', 'credits', 'difference', ...accountKinds],
  ...trialBalance.days.map(d => [d.day, d.postings, d.debits, d.credits, d.difference, ...accountKinds.map(k => d[k])]),
];

function trialBalanceTotalsRows(report: Report): CsvCell[][] {
  const t = report.trialBalance.total;
  return [
    ['from', 'to', 'postings', 'debits', 'credits', 'difference', ...accountKinds],
    [
      report.period.from,
      report.period.to,
      t.postings,
      t.debits,
      t.credits,
      t.difference,
      ...accountKinds.map(k => t[k]),
    ],
  ];
}

const merchantsHeader = [
  'merchantId',
  'merchantName',
  'merchantEmail',
  ...balanceColumns('opening'),
  'creditsGross',
  'fees',
  'uniqueCodes',
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
];

const merchantRows = ({ merchants }: Report): CsvCell[][] => [
  merchantsHeader,
  ...merchants.rows.map(m => {
    const v = m.movements;
    return [
      m.merchantId,
      m.merchantName ?? null,
      m.merchantEmail ?? null,
      m.opening.pending,
      m.opening.settled,
      m.opening.onHold,
      v.creditsGross,
      v.fees,
      v.uniqueCodes,
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

const holdingAccountRows = ({ holdingAccounts }: Report): CsvCell[][] => [
  [
    'accountId',
    'providerCode',
    'accountName',
    'opening',
    'credited',
    'paidOut',
    'closing',
    'consistent',
    'ledgerCash',
    'providerBalance',
    'providerBalanceAt',
    'difference',
    'explained',
    'unexplained',
    'tied',
  ],
  ...holdingAccounts.accounts.map(h => [
    h.accountId,
    h.providerCode ?? null,
    h.accountName ?? null,
    h.opening,
    h.credited,
    h.paidOut,
    h.closing,
    h.consistent,
    h.ledgerCash,
    h.providerBalance,
    h.providerBalanceAt ? csvTime(new Date(h.providerBalanceAt)) : null,
    h.difference,
    h.explained,
    h.unexplained,
    h.tied,
  ]),
];

const suspenseHeader = [
  'suspenseId',
  'mutationId',
  ...suspenseCreditHeader,
  'status',
  'merchantId',
  'merchantName',
  'paymentId',
  'fee',
  'paymentFee',
  'feeDifference',
  'net',
  'refundReference',
  'resolvedBy',
  'resolvedAt',
  'suggestedPaymentId',
  'suggestion',
];

const suspenseRows = ({ suspense }: Report): CsvCell[][] => [
  suspenseHeader,
  ...suspense.items.map(i => [
    i.id,
    i.mutationId,
    ...suspenseCreditCells(i),
    i.status,
    i.merchantId,
    i.merchantName ?? null,
    i.paymentId,
    i.fee,
    i.paymentFee ?? null,
    i.feeDifference ?? null,
    i.net,
    i.refundReference,
    i.resolvedBy,
    i.resolvedAt ? csvTime(i.resolvedAt) : null,
    i.status === 'OPEN' ? (i.suggestion?.paymentId ?? null) : null,
    i.status === 'OPEN' ? (i.suggestion?.reason ?? null) : null,
  ]),
];

const feeRows = ({ fees }: Report): CsvCell[][] => [
  ['day', 'earned', 'paymentsFees', 'allocationsFees', 'difference', 'uniqueCodes'],
  ...fees.days.map(d => [d.day, d.earned, d.paymentsFees, d.allocationsFees, d.difference, d.uniqueCodes]),
];

function feeTotalsRows(report: Report): CsvCell[][] {
  const t = report.fees.total;
  return [
    ['from', 'to', 'earned', 'paymentsFees', 'allocationsFees', 'difference', 'uniqueCodes'],
    [report.period.from, report.period.to, t.earned, t.paymentsFees, t.allocationsFees, t.difference, t.uniqueCodes],
  ];
}

const payoutRows = ({ payouts }: Report): CsvCell[][] => [
  ['paidAt', 'merchantId', 'merchantName', 'merchantEmail', 'withdrawalId', 'amount', 'reference'],
  ...payouts.map(p => [
    csvTime(new Date(p.paidAt)),
    p.merchantId,
    p.merchantName ?? null,
    p.merchantEmail ?? null,
    p.withdrawalId,
    p.amount,
    p.reference,
  ]),
];

function tableRows(report: Report, table: ReconciliationTable): CsvCell[][] {
  switch (table) {
    case 'trial-balance':
      return trialBalanceRows(report);
    case 'trial-balance-totals':
      return trialBalanceTotalsRows(report);
    case 'merchants':
      return merchantRows(report);
    case 'holding-accounts':
      return holdingAccountRows(report);
    case 'suspense':
      return suspenseRows(report);
    case 'fees':
      return feeRows(report);
    case 'fees-totals':
      return feeTotalsRows(report);
    case 'payouts':
      return payoutRows(report);
    case 'accounts':
    case 'account-kinds':
    case 'suspense-ageing':
    case 'suspense-open':
      return carriedBalancesTable(report, table);
    default: {
      const never: never = table;
      return never;
    }
  }
}

/** One table of the report as CSV text: a header row, then its rows. */
export function reconciliationCsv(report: GatewayReconciliation, table: ReconciliationTable): string {
  return csvText(tableRows(report, table));
}
