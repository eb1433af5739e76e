import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import type { GatewayAccessStatus } from '../domain/gateway-access.ts';
import { gatewayMethodsOf } from '../providers/catalogue.ts';
import { projection } from './projection.ts';

/**
 * The gateway's access requests (from the merchants' user streams) and holding accounts (from the platform's
 * holding-accounts stream), as `/api/v1/gateway`, the dashboard and the admin console read them.
 */
export const gatewayAccessProjection = projection({
  name: 'gateway-access',
  tables: ['gateway_access', 'gateway_holding_accounts'],
  schema: [
    `
    create table if not exists gateway_access (
      user_id uuid primary key,
      status text not null,
      note text,
      fee_to_customer boolean not null default false,
      business jsonb,
      created_at timestamptz,
      processed_at timestamptz,
      processed_by uuid
    );
    create index if not exists gateway_access_status on gateway_access (status, created_at);
    create table if not exists gateway_holding_accounts (
      account_id uuid primary key,
      provider_code text not null,
      methods text[] not null,
      marked_by uuid not null,
      marked_at timestamptz not null
    );`,
    // 2: the access's creation (its first request, created_at) apart from its latest request (requested_at); a row
    // projected before holds the latest request in both until the read model is rebuilt
    `alter table gateway_access add column if not exists requested_at timestamptz;
    update gateway_access set requested_at = created_at where requested_at is null;`,
  ],
  on: {
    async GatewayAccessRequested(tx, { data }) {
      const { userId, requestedAt, ...business } = data;
      await query(
        tx,
        'ProjectGatewayAccessRequested',
        `insert into gateway_access (user_id, status, business, created_at, requested_at) values ($1, 'PENDING', $2, $3, $3)
         on conflict (user_id) do update set status = 'PENDING', note = null, business = $2, requested_at = $3,
           created_at = coalesce(gateway_access.created_at, $3), processed_at = null, processed_by = null`,
        [userId, JSON.stringify(business), requestedAt],
      );
    },
    GatewayAccessApproved: (tx, { data: d }) => processed(tx, d.userId, 'APPROVED', null, d.approvedAt, d.approvedBy),
    GatewayAccessRejected: (tx, { data: d }) => processed(tx, d.userId, 'REJECTED', d.note, d.rejectedAt, d.rejectedBy),
    GatewayAccessDeactivated: (tx, { data: d }) =>
      processed(tx, d.userId, 'REJECTED', d.note, d.deactivatedAt, d.deactivatedBy),
    async GatewayFeeModeChanged(tx, { data: d }) {
      await query(
        tx,
        'ProjectGatewayFeeModeChanged',
        `insert into gateway_access (user_id, status, fee_to_customer) values ($1, 'NONE', $2)
         on conflict (user_id) do update set fee_to_customer = $2`,
        [d.userId, d.feeToCustomer],
      );
    },
    async HoldingAccountMarked(tx, { data: d }) {
      await query(
        tx,
        'ProjectHoldingAccountMarked',
        `insert into gateway_holding_accounts (account_id, provider_code, methods, marked_by, marked_at) values ($1, $2, $3, $4, $5)
         on conflict (account_id) do update set provider_code = $2, methods = $3, marked_by = $4, marked_at = $5`,
        [d.accountId, d.providerCode, d.methods, d.markedBy, d.markedAt],
      );
    },
    async HoldingAccountUnmarked(tx, { data: d }) {
      await query(tx, 'ProjectHoldingAccountUnmarked', 'delete from gateway_holding_accounts where account_id = $1', [
        d.accountId,
      ]);
    },
  },
});

async function processed(
  tx: Queryable,
  userId: string,
  status: GatewayAccessStatus,
  note: string | null,
  at: string,
  by: string,
): Promise<void> {
  await query(
    tx,
    'ProjectGatewayAccessProcessed',
    'update gateway_access set status = $2, note = $3, processed_at = $4, processed_by = $5 where user_id = $1',
    [userId, status, note, at, by],
  );
}

export type GatewayAccessRow = {
  user_id: string;
  status: GatewayAccessStatus;
  note: string | null;
  fee_to_customer: boolean;
  business: Record<string, string | null> | null;
  /** when the access was first requested: its creation, kept by every later request */
  created_at: Date | null;
  /** when it was last requested (a rejected merchant may ask again) */
  requested_at: Date | null;
  processed_at: Date | null;
};

export async function findGatewayAccess(db: Queryable, userId: string): Promise<GatewayAccessRow | null> {
  const r = await preparedQuery<GatewayAccessRow>(
    db,
    'FindGatewayAccess',
    'select * from gateway_access where user_id = $1',
    [userId],
  );
  return r.rows[0] ?? null;
}

/** Access requests for the admin console, oldest first, with who asked. */
export async function listGatewayAccess(db: Queryable, status: GatewayAccessStatus | undefined) {
  const r = await query<GatewayAccessRow & { name: string | null; email: string | null }>(
    db,
    'ListGatewayAccess',
    `select g.*, u.name, u.email from gateway_access g left join users u on u.id = g.user_id
      where g.status <> 'NONE' and ($1::text is null or g.status = $1) order by g.requested_at, g.user_id limit 500`,
    [status ?? null],
  );
  return r.rows;
}

export type HoldingAccountRow = {
  account_id: string;
  provider_code: string;
  methods: string[];
  marked_by: string;
  marked_at: Date;
  account_name: string | null;
  is_active: boolean | null;
};

/**
 * The holding accounts, each with whether its account is still linked and active (a deleted one shows null), and the
 * methods it serves as its provider's catalogue says now (the marking's list is what the catalogue said then).
 */
export async function listHoldingAccounts(db: Queryable): Promise<HoldingAccountRow[]> {
  const r = await query<HoldingAccountRow>(
    db,
    'ListHoldingAccounts',
    `select h.*, a.account_name, a.is_active from gateway_holding_accounts h left join accounts a on a.id = h.account_id order by h.marked_at`,
  );
  return r.rows.map(row => ({ ...row, methods: gatewayMethodsOf(row.provider_code) }));
}

/** The methods the gateway can serve now: those of holding accounts that are linked and active. */
export async function servedGatewayMethods(db: Queryable): Promise<string[]> {
  const r = await preparedQuery<{ provider_code: string }>(
    db,
    'ServedGatewayProviders',
    `select distinct h.provider_code from gateway_holding_accounts h join accounts a on a.id = h.account_id where a.is_active`,
    [],
  );
  return [...new Set(r.rows.flatMap(row => gatewayMethodsOf(row.provider_code)))].sort();
}
