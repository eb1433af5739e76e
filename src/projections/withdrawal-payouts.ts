import { query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/**
 * The last payout through WALLET-A that left a withdrawal requested, for the admin console; and every transfer a payout
 * of a withdrawal began (each attempt's own id), for the tie to the bank: a retry's DEBIT names its transfer, not the
 * withdrawal.
 */
export const withdrawalPayoutsProjection = projection({
  name: 'withdrawal-payouts',
  tables: ['gateway_withdrawal_payouts', 'gateway_withdrawal_transfers'],
  schema: [
    `
    create table if not exists gateway_withdrawal_payouts (
      withdrawal_id uuid primary key,
      transfer_id uuid not null,
      outcome text not null,
      reason text not null,
      failed_at timestamptz not null
    );`,
    // 2: the transfers begun for each withdrawal; a read model from before has none of the earlier ones until rebuilt
    // (rebuild-read-models), and the tie then knows of a withdrawal's first or paying transfer only, as it did
    `create table if not exists gateway_withdrawal_transfers (
      transfer_id uuid primary key,
      withdrawal_id uuid not null,
      account_id uuid not null,
      started_at timestamptz not null
    );
    create index if not exists gateway_withdrawal_transfers_by_account on gateway_withdrawal_transfers (account_id);`,
  ],
  on: {
    async WithdrawalPayoutStarted(tx, { data: d }) {
      await query(
        tx,
        'ProjectWithdrawalPayoutStarted',
        `insert into gateway_withdrawal_transfers (transfer_id, withdrawal_id, account_id, started_at) values ($1, $2, $3, $4)
         on conflict do nothing`,
        [d.transferId, d.withdrawalId, d.accountId, d.startedAt],
      );
    },
    async WithdrawalPayoutFailed(tx, { data: d }) {
      await query(
        tx,
        'ProjectWithdrawalPayoutFailed',
        `insert into gateway_withdrawal_payouts (withdrawal_id, transfer_id, outcome, reason, failed_at) values ($1, $2, $3, $4, $5)
         on conflict (withdrawal_id) do update set transfer_id = excluded.transfer_id, outcome = excluded.outcome, reason = excluded.reason, failed_at = excluded.failed_at`,
        [d.withdrawalId, d.transferId, d.outcome, d.reason, d.failedAt],
      );
    },
  },
});

export type PayoutFailureRow = {
  withdrawal_id: string;
  transfer_id: string;
  outcome: 'FAILED' | 'UNCONFIRMED';
  reason: string;
  failed_at: Date;
};

/** The last failed payout of each of these withdrawals (those never failed are absent). */
export async function lastPayoutFailures(
  db: Queryable,
  withdrawalIds: string[],
): Promise<Map<string, PayoutFailureRow>> {
  const r = await query<PayoutFailureRow>(
    db,
    'ListWithdrawalPayoutFailures',
    'select * from gateway_withdrawal_payouts where withdrawal_id = any($1::uuid[])',
    [withdrawalIds],
  );
  return new Map(r.rows.map(row => [row.withdrawal_id, row]));
}
