import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { findProvider } from '../providers/catalogue.ts';
import { projection } from './projection.ts';

const addMinutes = (iso: string, minutes: number) => new Date(new Date(iso).getTime() + minutes * 60_000).toISOString();

/** Accounts as the API shows them, with their sync schedule (next_sync_at) beside. */
export const accountsProjection = projection({
  name: 'accounts',
  tables: ['accounts'],
  schema: [
    `
    create table if not exists accounts (
      id uuid primary key,
      owner_id uuid not null,
      type text not null,
      provider_code text not null,
      provider_name text not null,
      account_name text not null,
      account_number text,
      phone_number text,
      holder_name text,
      balance bigint not null default 0,
      last_sync timestamptz,
      interval_minutes int not null,
      is_active boolean not null,
      created_at timestamptz not null,
      next_sync_at timestamptz,
      paused_reason text,
      consecutive_failures int not null default 0
    );
    create index if not exists accounts_owner on accounts (owner_id, created_at desc, id);
    create index if not exists accounts_due on accounts (next_sync_at) where is_active and paused_reason is null;`,
  ],
  on: {
    async AccountLinked(tx, { data: d }) {
      await query(
        tx,
        'ProjectAccountLinked',
        `insert into accounts (id, owner_id, type, provider_code, provider_name, account_name, account_number, phone_number,
           holder_name, interval_minutes, is_active, created_at, next_sync_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) on conflict do nothing`,
        [
          d.accountId,
          d.ownerId,
          d.type,
          d.providerCode,
          findProvider(d.providerCode)?.name ?? d.providerCode,
          d.accountName,
          d.accountNumber,
          d.phoneNumber,
          d.holderName,
          d.intervalMinutes,
          d.isActive,
          d.linkedAt,
        ],
      );
    },
    async AccountSettingsChanged(tx, { data: d }) {
      await query(
        tx,
        'ProjectAccountSettingsChanged',
        `update accounts set account_name = coalesce($2, account_name), interval_minutes = coalesce($3, interval_minutes),
           next_sync_at = case when $3::int is null then next_sync_at
                               else coalesce(last_sync, created_at) + make_interval(mins => $3::int) end
         where id = $1`,
        [d.accountId, d.accountName ?? null, d.intervalMinutes ?? null],
      );
    },
    async AccountSynced(tx, { data: d }) {
      if (d.trigger === 'payment-check') {
        // a check for pending payments leaves the account's own schedule (and its failures and pause) as they were
        await query(tx, 'ProjectAccountChecked', 'update accounts set balance = $2, last_sync = $3 where id = $1', [
          d.accountId,
          d.balance,
          d.syncedAt,
        ]);
        return;
      }
      const row = await query<{ interval_minutes: number }>(
        tx,
        'ReadAccountInterval',
        'select interval_minutes from accounts where id = $1',
        [d.accountId],
      );
      const interval = row.rows[0]?.interval_minutes;
      if (interval === undefined) return;
      // the next slot follows the one just served; after a long outage, skip the missed ones instead of bursting
      const following = d.slot ? addMinutes(d.slot, interval) : null;
      const next = following && following > d.syncedAt ? following : addMinutes(d.syncedAt, interval);
      await query(
        tx,
        'ProjectAccountSynced',
        `update accounts set balance = $2, last_sync = $3, next_sync_at = $4, consecutive_failures = 0, paused_reason = null where id = $1`,
        [d.accountId, d.balance, d.syncedAt, next],
      );
    },
    async AccountSyncFailed(tx, { data: d }) {
      await query(
        tx,
        'ProjectAccountSyncFailed',
        'update accounts set next_sync_at = $2, consecutive_failures = $3 where id = $1',
        [d.accountId, d.retryAt, d.consecutiveFailures],
      );
    },
    async AccountSyncPaused(tx, { data: d }) {
      await query(tx, 'ProjectAccountSyncPaused', 'update accounts set paused_reason = $2 where id = $1', [
        d.accountId,
        d.reason,
      ]);
    },
    // a transfer moves the balance at once; the next sync brings the provider's figure
    BalanceDebited: (tx, { data: d }) => balanceMoved(tx, d.accountId, -d.amount),
    BalanceCredited: (tx, { data: d }) => balanceMoved(tx, d.accountId, d.amount),
    async ProviderSessionExpired(tx, { data: d }) {
      await query(tx, 'ProjectProviderSessionExpired', 'update accounts set is_active = false where id = $1', [
        d.accountId,
      ]);
    },
    async ProviderSessionRestored(tx, { data: d }) {
      await query(
        tx,
        'ProjectProviderSessionRestored',
        'update accounts set is_active = true, next_sync_at = $2, paused_reason = null where id = $1',
        [d.accountId, d.restoredAt],
      );
    },
    async AccountDeleted(tx, { data: d }) {
      await query(tx, 'ProjectAccountDeleted', 'delete from accounts where id = $1', [d.accountId]);
    },
  },
});

async function balanceMoved(tx: Queryable, accountId: string, change: number): Promise<void> {
  await query(tx, 'ProjectTransferBalance', 'update accounts set balance = balance + $2 where id = $1', [
    accountId,
    change,
  ]);
}

export type AccountRow = {
  id: string;
  owner_id: string;
  type: 'bank' | 'ewallet';
  provider_code: string;
  provider_name: string;
  account_name: string;
  account_number: string | null;
  phone_number: string | null;
  balance: number;
  last_sync: Date | null;
  interval_minutes: number;
  is_active: boolean;
  created_at: Date;
  next_sync_at: Date | null;
};

export async function findOwnedAccount(db: Queryable, ownerId: string, accountId: string): Promise<AccountRow | null> {
  const r = await preparedQuery<AccountRow>(
    db,
    'FindOwnedAccount',
    'select * from accounts where id = $1 and owner_id = $2',
    [accountId, ownerId],
  );
  return r.rows[0] ?? null;
}

export type AccountFilter = {
  ownerId: string;
  type?: 'bank' | 'ewallet';
  isActive?: boolean;
  providerCode?: string;
  search?: string;
  page: number;
  limit: number;
};

export async function listAccounts(db: Queryable, f: AccountFilter): Promise<{ rows: AccountRow[]; total: number }> {
  const where = ['owner_id = $1'];
  const params: unknown[] = [f.ownerId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replaceAll('?', `$${params.length}`));
  };
  if (f.type) add('type = ?', f.type);
  if (f.isActive !== undefined) add('is_active = ?', f.isActive);
  if (f.providerCode) add('provider_code = ?', f.providerCode);
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, c => `\\${c}`)}%`;
    add(
      '(account_number ilike ? or account_name ilike ? or provider_name ilike ? or phone_number ilike ? or provider_code ilike ?)',
      pattern,
    );
  }
  const clause = where.join(' and ');
  const total = await preparedQuery<{ n: number }>(
    db,
    'CountAccounts',
    `select count(*)::int as n from accounts where ${clause}`,
    params,
  );
  const rows = await preparedQuery<AccountRow>(
    db,
    'ListAccounts',
    `select * from accounts where ${clause} order by created_at desc, id limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, f.limit, (f.page - 1) * f.limit],
  );
  return { rows: rows.rows, total: total.rows[0]!.n };
}

export async function dueAccounts(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<{ id: string; next_sync_at: Date }[]> {
  const r = await preparedQuery<{ id: string; next_sync_at: Date }>(
    db,
    'FindDueAccounts',
    `select id, next_sync_at from accounts where is_active and paused_reason is null and next_sync_at <= $1
     order by next_sync_at limit $2`,
    [now, limit],
  );
  return r.rows;
}
