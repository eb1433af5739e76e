import { preparedQuery, query, type Queryable, type Statement } from '../db/pool.ts';
import { projection, type Stored } from './projection.ts';

/** Created payments as one insert, whether one came or a run of them: the busiest write of the service. */
function paymentsCreated(events: Stored<'PaymentCreated'>[]): Statement {
  return {
    name: 'ProjectPaymentsCreated',
    sql: `insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount,
       account_number, qris_payload, redirect_url, status, expires_at, created_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
     select "paymentId", "ownerId", "orderId", "receivingAccountId", "providerCode", type, amount, "uniqueCode", "totalAmount",
       "accountNumber", "qrisPayload", "redirectUrl", 'PENDING', "expiresAt", "createdAt", "methodSelection",
       gateway is not null and gateway <> 'null'::jsonb, (gateway->>'baseAmount')::bigint, (gateway->>'feeToCustomer')::boolean, (gateway->>'fee')::bigint
     from jsonb_to_recordset($1::jsonb) as p("paymentId" uuid, "ownerId" uuid, "orderId" text, "receivingAccountId" uuid,
       "providerCode" text, type text, amount bigint, "uniqueCode" bigint, "totalAmount" bigint, "accountNumber" text,
       "qrisPayload" text, "redirectUrl" text, "expiresAt" timestamptz, "createdAt" timestamptz, "methodSelection" text, gateway jsonb)
     on conflict do nothing`,
    params: [JSON.stringify(events.map(e => e.data))],
  };
}

/** Payments as the status endpoint, the payment page and the expiry timer read them. */
export const paymentsProjection = projection({
  name: 'payments',
  tables: ['payments'],
  schema: [
    // 1: the table as payments were first made
    `create table if not exists payments (
      id uuid primary key,
      owner_id uuid not null,
      order_id text not null,
      receiving_account_id uuid not null,
      provider_code text not null,
      type text,
      amount bigint not null,
      unique_code bigint not null,
      total_amount bigint not null,
      account_number text,
      qris_payload text,
      redirect_url text not null,
      status text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      mutation_id uuid,
      paid_at timestamptz,
      completed_at timestamptz,
      expired_at timestamptz
    );`,
    // 2: payments created without a type (the payer chooses): no bill until then
    `alter table payments add column if not exists method_selection text not null default 'fixed';
    alter table payments alter column unique_code drop not null;
    alter table payments alter column total_amount drop not null;`,
    // 3: gateway payments: no receiving account until the payer chooses; the merchant's terms and the fee
    `alter table payments alter column receiving_account_id drop not null;
    alter table payments add column if not exists gateway boolean not null default false;
    alter table payments add column if not exists base_amount bigint;
    alter table payments add column if not exists fee_to_customer boolean;
    alter table payments add column if not exists gateway_fee bigint;`,
    // 4: the lists' and timers' indexes
    `create index if not exists payments_gateway_completed on payments (completed_at) where gateway;
    create index if not exists payments_pending_expiry on payments (expires_at) where status = 'PENDING';
    create index if not exists payments_owner_order on payments (owner_id, order_id);
    -- the dashboard's list: an owner's payments, newest first
    create index if not exists payments_owner_created on payments (owner_id, created_at desc, id desc);`,
    // 5: the payment checks' look, every second, at which accounts hold pending payments (accountsWithPendingPayments)
    `create index if not exists payments_pending_account on payments (receiving_account_id, created_at desc)
      where status = 'PENDING' and total_amount is not null;`,
    // 6: the payment checks' learned window: an account's last paid payments (src/background/payment-check-signals.ts)
    `create index if not exists payments_paid_account on payments (receiving_account_id, created_at desc)
      where status = 'COMPLETED';`,
    // 7: the reconciliation finds a period's payments by coalesce(paid_at, completed_at), or by their credit, which an
    // index on completed_at cannot serve: it goes (test/db/indexes.int.test.ts names the query of each index kept)
    `drop index if exists payments_gateway_completed;`,
  ],
  on: {
    async PaymentCreated(tx, event) {
      const statement = paymentsCreated([event]);
      await preparedQuery(tx, statement.name, statement.sql, statement.params);
    },
    async PaymentMethodChosen(tx, { data: d }) {
      await query(
        tx,
        'ProjectPaymentMethodChosen',
        `update payments set type = $2, unique_code = $3, total_amount = $4, account_number = $5, qris_payload = $6,
           receiving_account_id = coalesce($7, receiving_account_id), provider_code = coalesce($8, provider_code),
           amount = coalesce($9, amount), gateway_fee = coalesce($10, gateway_fee)
         where id = $1`,
        [
          d.paymentId,
          d.type,
          d.uniqueCode,
          d.totalAmount,
          d.accountNumber,
          d.qrisPayload,
          d.gateway?.receivingAccountId ?? null,
          d.gateway?.providerCode ?? null,
          d.gateway?.amount ?? null,
          d.gateway?.fee ?? null,
        ],
      );
    },
    async PaymentCompleted(tx, { data: d }) {
      await query(
        tx,
        'ProjectPaymentCompleted',
        `update payments set status = 'COMPLETED', mutation_id = $2, paid_at = $3, completed_at = $4 where id = $1 and status = 'PENDING'`,
        [d.paymentId, d.mutationId, d.paidAt, d.completedAt],
      );
    },
    async PaymentExpired(tx, { data: d }) {
      await query(
        tx,
        'ProjectPaymentExpired',
        `update payments set status = 'EXPIRED', expired_at = $2 where id = $1 and status = 'PENDING'`,
        [d.paymentId, d.expiredAt],
      );
    },
  },
  // a run of creations (a busy account's) is one insert
  applyRun: { PaymentCreated: paymentsCreated },
  // a payment's end, to its page open in a browser (src/api/payment-stream.ts)
  announces: { PaymentCompleted: e => e.data.paymentId, PaymentExpired: e => e.data.paymentId },
});

export type PaymentRow = {
  id: string;
  owner_id: string;
  order_id: string;
  /** null: a gateway payment whose payer has not chosen the method */
  receiving_account_id: string | null;
  provider_code: string;
  type: string | null;
  amount: number;
  unique_code: number | null;
  total_amount: number | null;
  method_selection: 'fixed' | 'payer';
  account_number: string | null;
  qris_payload: string | null;
  redirect_url: string;
  status: 'PENDING' | 'COMPLETED' | 'EXPIRED' | 'FAILED';
  expires_at: Date;
  created_at: Date;
  mutation_id: string | null;
  paid_at: Date | null;
  completed_at: Date | null;
  expired_at: Date | null;
  gateway: boolean;
  base_amount: number | null;
  fee_to_customer: boolean | null;
  gateway_fee: number | null;
};

export async function findPayment(db: Queryable, paymentId: string): Promise<PaymentRow | null> {
  const r = await preparedQuery<PaymentRow>(db, 'FindPayment', 'select * from payments where id = $1', [paymentId]);
  return r.rows[0] ?? null;
}

/** Pending payments whose time is up, oldest first (the expiry timer's work list). */
export async function duePayments(db: Queryable, now: Date, limit: number): Promise<{ id: string }[]> {
  const r = await preparedQuery<{ id: string }>(
    db,
    'FindDuePayments',
    `select id from payments where status = 'PENDING' and expires_at <= $1 order by expires_at limit $2`,
    [now, limit],
  );
  return r.rows;
}

/**
 * The receiving accounts with billed payments still waiting for money at `now`, and when the newest was created. Asked
 * every second by the payment checks: it walks the accounts that hold pending payments (one index probe each, from the
 * last one on) and takes each one's newest that has not expired, instead of grouping every pending payment (a busy
 * account holds hundreds of thousands, read again every second).
 */
export async function accountsWithPendingPayments(db: Queryable, now: Date): Promise<{ id: string; newest: Date }[]> {
  const r = await preparedQuery<{ id: string; newest: Date }>(
    db,
    'FindAccountsWithPendingPayments',
    `with recursive pending(id) as (
       (select receiving_account_id from payments where status = 'PENDING' and total_amount is not null
         order by receiving_account_id limit 1)
       union all
       select (select p.receiving_account_id from payments p
                where p.status = 'PENDING' and p.total_amount is not null and p.receiving_account_id > pending.id
                order by p.receiving_account_id limit 1)
       from pending where pending.id is not null
     )
     select pending.id, newest.created_at as newest from pending
     cross join lateral (
       select p.created_at from payments p
        where p.receiving_account_id = pending.id and p.status = 'PENDING' and p.total_amount is not null and p.expires_at > $1
        order by p.created_at desc limit 1
     ) newest
     where pending.id is not null`,
    [now],
  );
  return r.rows;
}

export type PaymentFilter = {
  ownerId: string;
  status?: PaymentRow['status'];
  type?: string;
  /** the start of an order id (the shop's own numbering) */
  orderId?: string;
  from?: Date;
  to?: Date;
  page: number;
  limit: number;
};

/** The owner's payments that match, newest first, with how many match in all (the dashboard's list). */
export async function listPayments(db: Queryable, f: PaymentFilter): Promise<{ rows: PaymentRow[]; total: number }> {
  const where = ['owner_id = $1'];
  const params: unknown[] = [f.ownerId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (f.status) add('status = ?', f.status);
  if (f.type) add('type = ?', f.type);
  if (f.orderId) add("order_id like ? escape '\\'", `${f.orderId.replace(/[\\%_]/g, c => `\\${c}`)}%`);
  if (f.from) add('created_at >= ?', f.from);
  if (f.to) add('created_at < ?', f.to);
  const clause = where.join(' and ');
  const total = await preparedQuery<{ n: number }>(
    db,
    'CountPayments',
    `select count(*)::int as n from payments where ${clause}`,
    params,
  );
  const rows = await preparedQuery<PaymentRow>(
    db,
    'ListPayments',
    `select * from payments where ${clause} order by created_at desc, id desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, f.limit, (f.page - 1) * f.limit],
  );
  return { rows: rows.rows, total: total.rows[0]!.n };
}

export type PaymentsAfterFilter = {
  ownerId: string;
  status?: PaymentRow['status'] | undefined;
  type?: string | undefined;
  /** the shop's order id, whole */
  orderId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** the last row of the page before: this page starts strictly after it, newest first */
  after?: { at: Date; id: string } | undefined;
  limit: number;
};

/**
 * The owner's payments that match, newest first by (created_at, id), from just after `after` (the key surface's cursor
 * list). The owner's index (owner_id, created_at desc, id desc) serves the order and the position; no count is taken.
 */
export async function listPaymentsAfter(db: Queryable, f: PaymentsAfterFilter): Promise<PaymentRow[]> {
  const where = ['owner_id = $1'];
  const params: unknown[] = [f.ownerId];
  const add = (sql: string, ...values: unknown[]) => {
    const first = params.length + 1;
    params.push(...values);
    where.push(sql.replace(/\?(\d)/g, (_, n: string) => `$${first + Number(n)}`));
  };
  if (f.status) add('status = ?0', f.status);
  if (f.type) add('type = ?0', f.type);
  if (f.orderId) add('order_id = ?0', f.orderId);
  if (f.from) add('created_at >= ?0', f.from);
  if (f.to) add('created_at < ?0', f.to);
  if (f.after) add('(created_at, id) < (?0, ?1::uuid)', f.after.at, f.after.id);
  const r = await preparedQuery<PaymentRow>(
    db,
    'ListPaymentsAfter',
    `select * from payments where ${where.join(' and ')} order by created_at desc, id desc limit $${params.length + 1}`,
    [...params, f.limit],
  );
  return r.rows;
}
