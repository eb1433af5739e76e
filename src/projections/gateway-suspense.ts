import { query, type Queryable } from '../db/pool.ts';
import type { SuspenseStatus } from '../domain/gateway-suspense.ts';
import { projection } from './projection.ts';

/**
 * The platform's suspense for the admin console and the reconciliation: each credit into a holding account
 * that no payment claimed, and what became of it. The postings are the gateway-ledger read model's.
 */
export const gatewaySuspenseProjection = projection({
  name: 'gateway-suspense',
  tables: ['gateway_suspense'],
  schema: [
    `
    create table if not exists gateway_suspense (
      id uuid primary key,
      mutation_id uuid not null,
      account_id uuid not null,
      provider_code text not null,
      amount bigint not null,
      sender_name text not null,
      reference text,
      received_at timestamptz not null,
      status text not null,
      merchant_id uuid,
      payment_id uuid,
      fee bigint,
      net bigint,
      refund_reference text,
      note text,
      resolved_by uuid,
      resolved_at timestamptz
    );
    create index if not exists gateway_suspense_by_status on gateway_suspense (status, received_at);`,
    // 2: each time a hand transfer's credit was given back to suspense: which transfer, from when it had been resolved
    // by it until when, by whom and why (the ageing as at a date in between leaves it out: it was resolved then)
    `alter table gateway_suspense add column if not exists untransfers jsonb not null default '[]';`,
  ],
  on: {
    async SuspenseCreditReceived(tx, { data: d }) {
      await query(
        tx,
        'ProjectSuspenseCreditReceived',
        `insert into gateway_suspense (id, mutation_id, account_id, provider_code, amount, sender_name, reference, received_at, status)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'OPEN') on conflict do nothing`,
        [d.suspenseId, d.mutationId, d.accountId, d.providerCode, d.amount, d.senderName, d.reference, d.receivedAt],
      );
    },
    async SuspenseCreditAllocated(tx, { data: d }) {
      await query(
        tx,
        'ProjectSuspenseCreditAllocated',
        `update gateway_suspense set status = 'ALLOCATED', merchant_id = $2, payment_id = $3, fee = $4, net = $5, note = $6, resolved_by = $7, resolved_at = $8
         where id = $1`,
        [d.suspenseId, d.merchantId, d.paymentId, d.fee, d.net, d.note, d.allocatedBy, d.allocatedAt],
      );
    },
    async SuspenseCreditRefunded(tx, { data: d }) {
      await query(
        tx,
        'ProjectSuspenseCreditRefunded',
        `update gateway_suspense set status = 'REFUNDED', refund_reference = $2, note = $3, resolved_by = $4, resolved_at = $5 where id = $1`,
        [d.suspenseId, d.reference, d.note, d.refundedBy, d.refundedAt],
      );
    },
    async SuspenseCreditTransferred(tx, { data: d }) {
      await query(
        tx,
        'ProjectSuspenseCreditTransferred',
        `update gateway_suspense set status = 'TRANSFERRED', resolved_by = $2, resolved_at = $3 where id = $1`,
        [d.suspenseId, d.resolvedBy, d.resolvedAt],
      );
    },
    async SuspenseCreditUntransferred(tx, { data: d }) {
      const given = { transferId: d.transferId, reason: d.reason, by: d.untransferredBy, at: d.untransferredAt };
      await query(
        tx,
        'ProjectSuspenseCreditUntransferred',
        `update gateway_suspense set status = 'OPEN', untransfers = untransfers || jsonb_build_array($2::jsonb || jsonb_build_object('transferredAt', resolved_at)),
           resolved_by = null, resolved_at = null
         where id = $1`,
        [d.suspenseId, JSON.stringify(given)],
      );
    },
  },
});

export type SuspenseSuggestion = {
  paymentId: string;
  merchantId: string;
  reason: 'VA_NUMBER_IN_REFERENCE' | 'LATE_EXACT_PAYMENT';
};
export type SuspenseRow = {
  id: string;
  mutationId: string;
  accountId: string;
  amount: number;
  senderName: string;
  reference: string | null;
  receivedAt: Date;
  status: SuspenseStatus;
  merchantId: string | null;
  paymentId: string | null;
  fee: number | null;
  net: number | null;
  refundReference: string | null;
  note: string | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  suggestion: SuspenseSuggestion | null;
  /** the last time a hand transfer's credit was given back to suspense (null: never) */
  untransferred: SuspenseUntransfer | null;
};
export type SuspenseUntransfer = { transferId: string; reason: string; by: string; at: string };

/**
 * Suspense credits, oldest first, each with a suggestion: the gateway payment on the same holding account whose virtual
 * account number the credit's reference carries (a partial or a duplicate VA transfer), else the newest expired
 * gateway payment of exactly its amount that had expired when it came (a late payment).
 */
export async function listSuspense(
  db: Queryable,
  filter: { status?: SuspenseStatus; from?: Date; to?: Date; id?: string } = {},
): Promise<SuspenseRow[]> {
  const r = await query<SuspenseRow>(
    db,
    'ListGatewaySuspense',
    `select s.id, s.mutation_id as "mutationId", s.account_id as "accountId", s.amount, s.sender_name as "senderName", s.reference,
       s.received_at as "receivedAt", s.status, s.merchant_id as "merchantId", s.payment_id as "paymentId", s.fee, s.net,
       s.refund_reference as "refundReference", s.note, s.resolved_by as "resolvedBy", s.resolved_at as "resolvedAt",
       case when jsonb_array_length(s.untransfers) = 0 then null
         else (s.untransfers -> -1) - 'transferredAt' end as untransferred,
       coalesce(va.suggestion, late.suggestion) as suggestion
     from gateway_suspense s
     left join lateral (
       select json_build_object('paymentId', p.id, 'merchantId', p.owner_id, 'reason', 'VA_NUMBER_IN_REFERENCE') as suggestion
       from payments p where p.gateway and p.type like 'VA-%' and p.receiving_account_id = s.account_id and length(p.account_number) >= 6
         and s.reference is not null and strpos(s.reference, p.account_number) > 0
       order by p.created_at desc limit 1) va on true
     left join lateral (
       select json_build_object('paymentId', p.id, 'merchantId', p.owner_id, 'reason', 'LATE_EXACT_PAYMENT') as suggestion
       from payments p where p.gateway and p.receiving_account_id = s.account_id and p.total_amount = s.amount and p.status = 'EXPIRED'
         and p.expires_at <= s.received_at
       order by p.expires_at desc limit 1) late on true
     where ($1::text is null or s.status = $1) and ($2::timestamptz is null or s.received_at >= $2) and ($3::timestamptz is null or s.received_at < $3)
       and ($4::uuid is null or s.id = $4)
     order by s.received_at, s.id limit 1000`,
    [filter.status ?? null, filter.from ?? null, filter.to ?? null, filter.id ?? null],
  );
  return r.rows;
}

/**
 * The open suspense credits on an account of exactly an amount received since `since`, oldest first: the destination's
 * side of a hand transfer synchronised before the transfer was recorded went there.
 */
export async function openSuspenseLike(
  db: Queryable,
  accountId: string,
  amount: number,
  since: Date,
): Promise<{ suspenseId: string; mutationId: string; receivedAt: Date }[]> {
  const r = await query<{ suspenseId: string; mutationId: string; receivedAt: Date }>(
    db,
    'FindHandTransferSuspenseCredits',
    `select id as "suspenseId", mutation_id as "mutationId", received_at as "receivedAt" from gateway_suspense
     where account_id = $1 and amount = $2 and status = 'OPEN' and received_at >= $3
     order by received_at, id limit 100`,
    [accountId, amount, since],
  );
  return r.rows;
}
