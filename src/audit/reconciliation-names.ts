import { query, type Queryable } from '../db/pool.ts';
import type { SuspenseRow } from '../projections/gateway-suspense.ts';
import type { GatewayReconciliation } from './gateway-reconciliation.ts';
import {
  accountNames,
  accountNamesOf,
  idsOfLedgerAccounts,
  ledgerAccountName,
  merchantNames,
  merchantNamesOf,
  type AccountNames,
  type MerchantNames,
} from './report-names.ts';

/**
 * The reconciliation with names beside its ids (report-names.ts): each merchant's business name and email, each
 * holding account's provider and name, a ledger account's owner, and on each suspense credit allocated to a payment
 * the fee that payment had (`paymentFee`), beside the fee the allocation charged. Added when the report is computed,
 * so a closed month's frozen report keeps them; a report closed before they existed has none (the fields are optional).
 */

/**
 * A suspense credit with its account's and merchant's names and, allocated to a payment, that payment's own fee
 * (`paymentFee`, null otherwise) and what the allocation charged beyond it (`feeDifference`: 0 since an allocation
 * charges its payment's fee; an older allocation charged the fee on the credit with its code).
 */
export type NamedSuspenseRow = SuspenseRow &
  Partial<AccountNames & MerchantNames & { paymentFee: number | null; feeDifference: number | null }>;

/** The fee each of these payments had (its gateway fee; null until its payer chose a method). */
async function paymentFees(db: Queryable, ids: string[]): Promise<Map<string, number | null>> {
  if (ids.length === 0) return new Map();
  const r = await query<{ id: string; fee: number | null }>(
    db,
    'ReportPaymentFees',
    'select id::text as id, gateway_fee as fee from payments where id = any($1::uuid[])',
    [ids],
  );
  return new Map(r.rows.map(row => [row.id, row.fee === null ? null : Number(row.fee)]));
}

export async function namedReconciliation(
  db: Queryable,
  report: GatewayReconciliation,
): Promise<GatewayReconciliation> {
  const ledger = idsOfLedgerAccounts(report.trialBalance.accounts.map(a => a.account));
  const merchants = await merchantNames(db, [
    ...ledger.merchants,
    ...report.merchants.rows.map(m => m.merchantId),
    ...report.payouts.map(p => p.merchantId),
    ...report.suspense.items.flatMap(i => (i.merchantId ? [i.merchantId] : [])),
  ]);
  const accounts = await accountNames(db, [
    ...ledger.accounts,
    ...report.holdingAccounts.accounts.map(h => h.accountId),
    ...report.holdingCredits.accounts.map(h => h.accountId),
    ...report.suspense.items.map(i => i.accountId),
    ...report.suspense.ageing.items.map(i => i.accountId),
  ]);
  const fees = await paymentFees(
    db,
    report.suspense.items.flatMap(i => (i.paymentId ? [i.paymentId] : [])),
  );
  const suspenseItems: NamedSuspenseRow[] = report.suspense.items.map(i => {
    const paymentFee = i.paymentId ? (fees.get(i.paymentId) ?? null) : null;
    return {
      ...i,
      ...accountNamesOf(accounts, i.accountId),
      ...merchantNamesOf(merchants, i.merchantId),
      paymentFee,
      feeDifference: paymentFee === null || i.fee === null ? null : i.fee - paymentFee,
    };
  });
  return {
    ...report,
    trialBalance: {
      ...report.trialBalance,
      accounts: report.trialBalance.accounts.map(a => ({
        ...a,
        name: ledgerAccountName(a.account, merchants, accounts),
      })),
    },
    merchants: {
      ...report.merchants,
      rows: report.merchants.rows.map(m => ({ ...m, ...merchantNamesOf(merchants, m.merchantId) })),
    },
    holdingAccounts: {
      ...report.holdingAccounts,
      accounts: report.holdingAccounts.accounts.map(h => ({ ...h, ...accountNamesOf(accounts, h.accountId) })),
    },
    suspense: {
      ...report.suspense,
      items: suspenseItems,
      ageing: {
        ...report.suspense.ageing,
        items: report.suspense.ageing.items.map(i => ({ ...i, ...accountNamesOf(accounts, i.accountId) })),
      },
    },
    payouts: report.payouts.map(p => ({ ...p, ...merchantNamesOf(merchants, p.merchantId) })),
    holdingCredits: {
      ...report.holdingCredits,
      accounts: report.holdingCredits.accounts.map(h => ({ ...h, ...accountNamesOf(accounts, h.accountId) })),
    },
  };
}
