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
 * [from, to): what finance looks at when a customer says "I paid". Oldest first.
 */
export async function unmatchedCredits(db: Queryable, range: { from: Date; to: Date }): Promise<UnmatchedCredit[]> {
  const r = await query<{ id: string; account_id: string; owner_id: string; amount: number; sender_name: string; reference: string | null; created_at: Date; late_payment_id: string | null }>(
    db,
    'FindUnmatchedCredits',
    `select m.id, m.account_id, m.owner_id, m.amount, m.sender_name, m.reference, m.created_at,
            (select p.id from payments p where p.receiving_account_id = m.account_id and p.total_amount = m.amount
               and p.status = 'EXPIRED' and p.expires_at <= m.created_at order by p.expires_at desc limit 1) as late_payment_id
     from mutations m
     where m.type = 'CREDIT' and m.payment is null and m.created_at >= $1 and m.created_at < $2
       and exists (select 1 from payments p where p.receiving_account_id = m.account_id)
     order by m.created_at, m.id`,
    [range.from, range.to],
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
