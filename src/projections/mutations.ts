import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/** Every recorded transaction of every linked account, with its owner and account type for filtering. */
export const mutationsProjection = projection({
  name: 'mutations',
  tables: ['mutations', 'mutation_accounts'],
  schema: [
    `
    create table if not exists mutation_accounts (
      account_id uuid primary key,
      owner_id uuid not null,
      account_type text not null
    );
    create table if not exists mutations (
      id uuid primary key,
      account_id uuid not null,
      owner_id uuid not null,
      account_type text not null,
      provider_transaction_id text not null,
      type text not null,
      amount bigint not null,
      description text not null,
      sender_name text not null,
      reference text,
      status text not null,
      created_at timestamptz not null,
      recorded_at timestamptz not null,
      payment jsonb,
      unique (account_id, provider_transaction_id)
    );
    -- covering: the count of a filtered list is answered from the index alone (no heap visit per row)
    create index if not exists mutations_owner_time on mutations (owner_id, created_at desc, id desc)
      include (account_id, account_type, type, amount);
    create index if not exists mutations_account_time on mutations (account_id, created_at desc, id desc)
      include (owner_id, type, amount);`,
  ],
  on: {
    async AccountLinked(tx, { data: d }) {
      await query(
        tx,
        'ProjectMutationAccount',
        'insert into mutation_accounts values ($1, $2, $3) on conflict do nothing',
        [d.accountId, d.ownerId, d.type],
      );
    },
    async MutationRecorded(tx, { data: d }) {
      await query(
        tx,
        'ProjectMutationRecorded',
        `insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description,
           sender_name, reference, status, created_at, recorded_at)
         select $1, a.account_id, a.owner_id, a.account_type, $3, $4, $5, $6, $7, $8, 'SUCCESS', $9, $10
         from mutation_accounts a where a.account_id = $2
         on conflict do nothing`,
        [
          d.mutationId,
          d.accountId,
          d.providerTransactionId,
          d.type,
          d.amount,
          d.description,
          d.senderName,
          d.reference,
          d.occurredAt,
          d.recordedAt,
        ],
      );
    },
    async PaymentCompleted(tx, { data: d }) {
      const paid = {
        id: d.paymentId,
        orderId: d.orderId,
        type: d.type,
        amount: d.amount,
        totalAmount: d.totalAmount,
        status: 'COMPLETED',
        completedAt: d.completedAt,
      };
      await query(tx, 'ProjectMutationPayment', 'update mutations set payment = $2 where id = $1', [
        d.mutationId,
        JSON.stringify(paid),
      ]);
    },
    async AccountDeleted(tx, { data: d }) {
      await query(tx, 'ProjectAccountMutationsDeleted', 'delete from mutations where account_id = $1', [d.accountId]);
      await query(tx, 'ProjectMutationAccountDeleted', 'delete from mutation_accounts where account_id = $1', [
        d.accountId,
      ]);
    },
  },
});

export type MutationRow = {
  id: string;
  account_id: string;
  account_type: string;
  type: 'CREDIT' | 'DEBIT';
  amount: number;
  description: string;
  sender_name: string;
  reference: string | null;
  status: string;
  created_at: Date;
  payment: unknown;
};

export type MutationFilter = {
  ownerId: string;
  accountId?: string;
  accountType?: 'bank' | 'ewallet';
  type?: 'CREDIT' | 'DEBIT';
  from?: Date;
  to?: Date;
  minAmount?: number;
  maxAmount?: number;
  page: number;
  limit: number;
};

export async function listMutations(db: Queryable, f: MutationFilter): Promise<{ rows: MutationRow[]; total: number }> {
  const where = ['owner_id = $1'];
  const params: unknown[] = [f.ownerId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (f.accountId) add('account_id = ?', f.accountId);
  if (f.accountType) add('account_type = ?', f.accountType);
  if (f.type) add('type = ?', f.type);
  if (f.from) add('created_at >= ?', f.from);
  if (f.to) add('created_at < ?', f.to);
  if (f.minAmount !== undefined) add('amount >= ?', f.minAmount);
  if (f.maxAmount !== undefined) add('amount <= ?', f.maxAmount);
  const clause = where.join(' and ');
  const [total, rows] = await Promise.all([
    preparedQuery<{ n: number }>(
      db,
      'CountMutations',
      `select count(*)::int as n from mutations where ${clause}`,
      params,
    ),
    preparedQuery<MutationRow>(
      db,
      'ListMutations',
      `select id, account_id, account_type, type, amount, description, sender_name, reference, status, created_at, payment
       from mutations where ${clause} order by created_at desc, id desc limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, f.limit, (f.page - 1) * f.limit],
    ),
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

/** When the provider booked a mutation (its own time), as synchronised; null: not in the read model (yet). */
export async function findMutationTime(db: Queryable, mutationId: string): Promise<Date | null> {
  const r = await query<{ created_at: Date }>(
    db,
    'FindMutationTime',
    'select created_at from mutations where id = $1',
    [mutationId],
  );
  return r.rows[0]?.created_at ?? null;
}
