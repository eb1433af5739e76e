import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/** Outbound transfers as their owners, the outcome resolver and reconciliation read them. */
export const transfersProjection = projection({
  name: 'transfers',
  tables: ['transfers'],
  schema: [
    `
    create table if not exists transfers (
      id uuid primary key,
      account_id uuid not null,
      owner_id uuid not null,
      kind text not null,
      amount bigint not null,
      status text not null,
      merchant_name text,
      transaction_id text,
      reason text,
      submitted_at timestamptz not null,
      ended_at timestamptz
    );
    create index if not exists transfers_open on transfers (submitted_at) where status in ('SUBMITTED', 'UNCONFIRMED');`,
  ],
  on: {
    async TransferSubmitted(tx, { data: d }) {
      await query(
        tx,
        'ProjectTransferSubmitted',
        `insert into transfers (id, account_id, owner_id, kind, amount, status, merchant_name, submitted_at)
         values ($1, $2, $3, $4, $5, 'SUBMITTED', $6, $7) on conflict do nothing`,
        [d.transferId, d.accountId, d.ownerId, d.kind, d.amount, d.qris?.merchantName ?? null, d.submittedAt],
      );
    },
    async TransferCompleted(tx, { data: d }) {
      await query(
        tx,
        'ProjectTransferCompleted',
        `update transfers set status = 'COMPLETED', transaction_id = $2, ended_at = $3 where id = $1`,
        [d.transferId, d.transactionId, d.completedAt],
      );
    },
    async TransferUnconfirmed(tx, { data: d }) {
      await query(
        tx,
        'ProjectTransferUnconfirmed',
        `update transfers set status = 'UNCONFIRMED', reason = $2 where id = $1`,
        [d.transferId, d.reason],
      );
    },
    async TransferFailed(tx, { data: d }) {
      await query(
        tx,
        'ProjectTransferFailed',
        `update transfers set status = 'FAILED', reason = $2, ended_at = $3 where id = $1`,
        [d.transferId, d.reason, d.failedAt],
      );
    },
  },
});

export type OpenTransfer = {
  id: string;
  account_id: string;
  status: 'SUBMITTED' | 'UNCONFIRMED';
  amount: number;
  submitted_at: Date;
};

/**
 * Transfers whose outcome is not known: unconfirmed ones, and submitted ones older than `staleBefore` (their process
 * stopped between sending and recording the answer).
 */
export async function openTransfers(db: Queryable, staleBefore: Date, limit: number): Promise<OpenTransfer[]> {
  const r = await preparedQuery<OpenTransfer>(
    db,
    'FindOpenTransfers',
    `select id, account_id, status, amount, submitted_at from transfers
      where status = 'UNCONFIRMED' or (status = 'SUBMITTED' and submitted_at < $1) order by submitted_at limit $2`,
    [staleBefore, limit],
  );
  return r.rows;
}
