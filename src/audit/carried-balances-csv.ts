import { csvTime, type CsvCell } from '../csv.ts';
import type { GatewayReconciliation } from './gateway-reconciliation.ts';
import { suspenseCreditCells, suspenseCreditHeader } from './suspense-credit-columns.ts';

/**
 * The report's carried balances and suspense ageing as CSV tables (gateway-reconciliation-csv.ts names them): every
 * account's opening, debits, credits and closing; the same by kind; the ageing buckets as at the period's end; and the
 * credits still open then, each with its age.
 */
export function carriedBalancesTable(
  report: GatewayReconciliation,
  table: 'accounts' | 'account-kinds' | 'suspense-ageing' | 'suspense-open',
): CsvCell[][] {
  const { trialBalance, suspense } = report;
  switch (table) {
    case 'accounts':
      return [
        ['account', 'name', 'kind', 'opening', 'debits', 'credits', 'closing', 'consistent'],
        ...trialBalance.accounts.map(a => [
          a.account,
          a.name ?? null,
          a.kind,
          a.opening,
          a.debits,
          a.credits,
          a.closing,
          a.consistent,
        ]),
      ];
    case 'account-kinds':
      return [
        ['kind', 'accounts', 'opening', 'debits', 'credits', 'closing'],
        ...trialBalance.kinds.map(k => [k.kind, k.accounts, k.opening, k.debits, k.credits, k.closing]),
      ];
    case 'suspense-ageing':
      return [
        ['asAt', 'bucket', 'items', 'amount'],
        ...suspense.ageing.buckets.map(b => [csvTime(new Date(suspense.ageing.asAt)), b.bucket, b.items, b.amount]),
      ];
    case 'suspense-open':
      return [
        ['suspenseId', ...suspenseCreditHeader, 'ageDays', 'bucket'],
        ...suspense.ageing.items.map(i => [i.id, ...suspenseCreditCells(i), i.ageDays, i.bucket]),
      ];
    default: {
      const never: never = table;
      return never;
    }
  }
}
