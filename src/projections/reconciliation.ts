import { query, type Queryable } from '../db/pool.ts';

export type UnmatchedCredit = {
  mutationId: string;
  accountId: string;
  ownerId: string;
  amount: number;
  senderName: string;
  reference: string | null;
  bookedAt: string;
  /** an expired payment of this account with exactly this total: the customer most likely paid it late */
  latePaymentId: string | null;
};

/**
 * Credits into receiving accounts (accounts that have taken payments) that completed no payment, booked in
 * [from, to): what finance looks at when a customer says "I paid". Oldest first. `holding`: only the gateway's holding
 * accounts (marked now, or paid into by a gateway payment once), for the gateway's reconciliation.
 */
export async function unmatchedCredits(
  db: Queryable,
  range: { from: Date; to: Date; holding?: boolean },
): Promise<UnmatchedCredit[]> {
  const r = await query<{
    id: string;
    account_id: string;
    owner_id: string;
    amount: number;
    sender_name: string;
    reference: string | null;
    created_at: Date;
    late_payment_id: string | null;
  }>(
    db,
    'FindUnmatchedCredits',
    // the late payment is found by one join for all credits, not a search of payments per credit
    `with credits as (
       select m.id, m.account_id, m.owner_id, m.amount, m.sender_name, m.reference, m.created_at
       from mutations m
       where m.type = 'CREDIT' and m.payment is null and m.created_at >= $1 and m.created_at < $2
         and m.account_id in (select p.receiving_account_id from payments p where p.gateway or not $3::boolean
                              union all select h.account_id from gateway_holding_accounts h where $3::boolean)
     ), late as (
       select distinct on (c.id) c.id, p.id as payment_id
       from credits c join payments p on p.receiving_account_id = c.account_id and p.total_amount = c.amount
         and p.status = 'EXPIRED' and p.expires_at <= c.created_at
       order by c.id, p.expires_at desc
     )
     select c.*, late.payment_id as late_payment_id from credits c left join late on late.id = c.id
     order by c.created_at, c.id`,
    [range.from, range.to, range.holding ?? false],
  );
  return r.rows.map(row => ({
    mutationId: row.id,
    accountId: row.account_id,
    ownerId: row.owner_id,
    amount: row.amount,
    senderName: row.sender_name,
    reference: row.reference,
    bookedAt: row.created_at.toISOString(),
    latePaymentId: row.late_payment_id,
  }));
}
