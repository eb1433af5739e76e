import { query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/**
 * The openings and correcting entries of the platform's holding accounts, for the console and the API: who booked
 * each, when it takes effect and why. The postings are the gateway-ledger read model's.
 */
export const ledgerAdjustmentsProjection = projection({
  name: 'ledger-adjustments',
  tables: ['gateway_ledger_adjustments'],
  schema: [
    `
    create table if not exists gateway_ledger_adjustments (
      id uuid primary key,
      kind text not null,
      account_id uuid not null,
      amount bigint not null,
      effective_at timestamptz not null,
      reason text,
      provider_balance bigint,
      ledger_cash bigint,
      booked_by uuid not null,
      booked_at timestamptz not null
    );
    create index if not exists gateway_ledger_adjustments_by_time on gateway_ledger_adjustments (booked_at);`,
  ],
  on: {
    async HoldingOpeningBooked(tx, { data: d }) {
      await query(
        tx,
        'ProjectHoldingOpeningBooked',
        `insert into gateway_ledger_adjustments (id, kind, account_id, amount, effective_at, provider_balance, ledger_cash, booked_by, booked_at)
         values ($1, 'OPENING', $2, $3, $4, $5, $6, $7, $8) on conflict do nothing`,
        [d.entryId, d.accountId, d.amount, d.effectiveAt, d.providerBalance, d.ledgerCash, d.bookedBy, d.bookedAt],
      );
    },
    async LedgerAdjustmentBooked(tx, { data: d }) {
      await query(
        tx,
        'ProjectLedgerAdjustmentBooked',
        `insert into gateway_ledger_adjustments (id, kind, account_id, amount, effective_at, reason, booked_by, booked_at)
         values ($1, 'ADJUSTMENT', $2, $3, $4, $5, $6, $7) on conflict do nothing`,
        [d.entryId, d.accountId, d.amount, d.effectiveAt, d.reason, d.bookedBy, d.bookedAt],
      );
    },
  },
});

export type LedgerAdjustmentRow = {
  id: string;
  /** OPENING: booked when the account was marked; ADJUSTMENT: an admin's entry with its reason */
  kind: 'OPENING' | 'ADJUSTMENT';
  holdingAccountId: string;
  amount: number;
  effectiveAt: string;
  reason: string | null;
  /** an opening's provider balance and the ledger's cash before it (null for an admin's entry) */
  providerBalance: number | null;
  ledgerCash: number | null;
  bookedBy: string;
  bookedAt: string;
};

const instant = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const columns = `id, kind, account_id as "holdingAccountId", amount, ${instant('effective_at')} as "effectiveAt", reason,
  provider_balance as "providerBalance", ledger_cash as "ledgerCash", booked_by as "bookedBy", ${instant('booked_at')} as "bookedAt"`;

/** The entries, newest first (at most 500). */
export async function listLedgerAdjustments(db: Queryable): Promise<LedgerAdjustmentRow[]> {
  const r = await query<LedgerAdjustmentRow>(
    db,
    'ListLedgerAdjustments',
    `select ${columns} from gateway_ledger_adjustments order by booked_at desc, id desc limit 500`,
  );
  return r.rows;
}

export async function findLedgerAdjustment(db: Queryable, id: string): Promise<LedgerAdjustmentRow | null> {
  const r = await query<LedgerAdjustmentRow>(
    db,
    'FindLedgerAdjustment',
    `select ${columns} from gateway_ledger_adjustments where id = $1`,
    [id],
  );
  return r.rows[0] ?? null;
}
