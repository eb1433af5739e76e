import { query, type Queryable } from '../db/pool.ts';
import type { SeenMutation } from '../domain/holding-transfers.ts';
import { projection } from './projection.ts';

/**
 * The transfers an admin made by hand between the platform's holding accounts, for the console and the reconciliation:
 * each with the provider's mutation of each side once it has been seen. The postings are the gateway-ledger read model's.
 */
export const holdingTransfersProjection = projection({
  name: 'holding-transfers',
  tables: ['gateway_holding_transfers'],
  schema: [
    `
    create table if not exists gateway_holding_transfers (
      id uuid primary key,
      from_account_id uuid not null,
      to_account_id uuid not null,
      amount bigint not null,
      reference text not null,
      note text,
      recorded_by uuid not null,
      recorded_at timestamptz not null,
      debit_mutation_id uuid,
      credit_mutation_id uuid
    );
    create index if not exists gateway_holding_transfers_by_time on gateway_holding_transfers (recorded_at);`,
  ],
  on: {
    async HoldingTransferRecorded(tx, { data: d }) {
      await query(
        tx,
        'ProjectHoldingTransferRecorded',
        `insert into gateway_holding_transfers (id, from_account_id, to_account_id, amount, reference, note, recorded_by, recorded_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing`,
        [d.transferId, d.fromAccountId, d.toAccountId, d.amount, d.reference, d.note, d.recordedBy, d.recordedAt],
      );
    },
    async HoldingTransferMutationMatched(tx, { data: d }) {
      await query(
        tx,
        'ProjectHoldingTransferMutationMatched',
        `update gateway_holding_transfers set
           debit_mutation_id = case when $2 = 'DEBIT' then $3::uuid else debit_mutation_id end,
           credit_mutation_id = case when $2 = 'CREDIT' then $3::uuid else credit_mutation_id end
         where id = $1`,
        [d.transferId, d.side, d.mutationId],
      );
    },
    // the suspense credit it had taken was given back: its CREDIT side is awaited again
    async HoldingTransferCreditReleased(tx, { data: d }) {
      await query(
        tx,
        'ProjectHoldingTransferCreditReleased',
        'update gateway_holding_transfers set credit_mutation_id = null where id = $1 and credit_mutation_id = $2',
        [d.transferId, d.mutationId],
      );
    },
  },
});

export type HoldingTransferRow = {
  id: string;
  fromAccountId: string;
  toAccountId: string;
  amount: number;
  reference: string;
  note: string | null;
  recordedBy: string;
  recordedAt: string;
  debitMutationId: string | null;
  creditMutationId: string | null;
};

const columns = `id, from_account_id as "fromAccountId", to_account_id as "toAccountId", amount, reference, note,
  recorded_by as "recordedBy", to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "recordedAt",
  debit_mutation_id as "debitMutationId", credit_mutation_id as "creditMutationId"`;

/** The hand transfers, newest first (at most 500). */
export async function listHoldingTransfers(db: Queryable): Promise<HoldingTransferRow[]> {
  const r = await query<HoldingTransferRow>(
    db,
    'ListHoldingTransfers',
    `select ${columns} from gateway_holding_transfers order by recorded_at desc, id desc limit 500`,
  );
  return r.rows;
}

export async function findHoldingTransfer(db: Queryable, id: string): Promise<HoldingTransferRow | null> {
  const r = await query<HoldingTransferRow>(
    db,
    'FindHoldingTransfer',
    `select ${columns} from gateway_holding_transfers where id = $1`,
    [id],
  );
  return r.rows[0] ?? null;
}

/**
 * DEBITs of an account synchronised since `since` of exactly `amount`: what a transfer made by hand in the provider's
 * app looks like on its source. The service's own transfers reference their transfer's id (a UUID) and are left out.
 */
export async function debitsLike(
  db: Queryable,
  accountId: string,
  amount: number,
  since: Date,
): Promise<SeenMutation[]> {
  const r = await query<{ id: string; created_at: Date }>(
    db,
    'FindHandTransferDebits',
    `select id, created_at from mutations
     where account_id = $1 and type = 'DEBIT' and amount = $2 and created_at >= $3
       and (reference is null or reference !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
     order by created_at, id limit 100`,
    [accountId, amount, since],
  );
  return r.rows.map(row => ({
    mutationId: row.id,
    accountId,
    side: 'DEBIT' as const,
    amount,
    occurredAt: row.created_at.toISOString(),
  }));
}
