import { query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/** Read model of webhook endpoints, from the user stream; removed endpoints keep a row so deliveries can tell why. */
export const webhookEndpointsProjection = projection({
  name: 'webhook-endpoints',
  tables: ['webhook_endpoints'],
  schema: [
    `
    create table if not exists webhook_endpoints (
      id uuid primary key,
      owner_id uuid not null,
      url text not null,
      secret jsonb not null,
      created_at timestamptz not null,
      disabled_at timestamptz,
      disabled_status_code int,
      removed_at timestamptz
    );`,
    // 2: the kinds it is sent; null: the default ones (src/domain/webhook-events.ts)
    `alter table webhook_endpoints add column if not exists events text[];
    create index if not exists webhook_endpoints_owner on webhook_endpoints (owner_id, created_at desc) where removed_at is null;`,
    // 3: its filters on the account kinds; null: every account, both mutation types
    `alter table webhook_endpoints add column if not exists account_ids uuid[];
    alter table webhook_endpoints add column if not exists mutation_types text[];`,
  ],
  on: {
    async WebhookEndpointAdded(tx, { data: d }) {
      await query(
        tx,
        'ProjectWebhookEndpointAdded',
        `insert into webhook_endpoints (id, owner_id, url, secret, created_at, events, account_ids, mutation_types)
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing`,
        [
          d.endpointId,
          d.userId,
          d.url,
          JSON.stringify(d.secret),
          d.addedAt,
          d.events ?? null,
          d.filters?.accountIds ?? null,
          d.filters?.mutationTypes ?? null,
        ],
      );
    },
    async WebhookEndpointDisabled(tx, { data: d }) {
      await query(
        tx,
        'ProjectWebhookEndpointDisabled',
        'update webhook_endpoints set disabled_at = $2, disabled_status_code = $3 where id = $1',
        [d.endpointId, d.disabledAt, d.statusCode],
      );
    },
    async WebhookEndpointRemoved(tx, { data: d }) {
      await query(tx, 'ProjectWebhookEndpointRemoved', 'update webhook_endpoints set removed_at = $2 where id = $1', [
        d.endpointId,
        d.removedAt,
      ]);
    },
  },
});

export type WebhookEndpointRow = {
  id: string;
  owner_id: string;
  url: string;
  created_at: Date;
  disabled_at: Date | null;
  disabled_status_code: number | null;
  /** null: the default kinds */
  events: string[] | null;
  /** the account kinds of these accounts only (null: every account) */
  account_ids: string[] | null;
  /** mutation.created of these types only (null: both) */
  mutation_types: ('CREDIT' | 'DEBIT')[] | null;
};

const columns = 'id, owner_id, url, created_at, disabled_at, disabled_status_code, events, account_ids, mutation_types';

/** The owner's endpoints (not removed), newest first. */
export async function listWebhookEndpoints(db: Queryable, ownerId: string): Promise<WebhookEndpointRow[]> {
  const r = await query<WebhookEndpointRow>(
    db,
    'ListWebhookEndpoints',
    `select ${columns} from webhook_endpoints where owner_id = $1 and removed_at is null order by created_at desc, id`,
    [ownerId],
  );
  return r.rows;
}

/** One of the owner's endpoints; another owner's, or a removed one, is as unknown as one that never existed. */
export async function findWebhookEndpoint(
  db: Queryable,
  ownerId: string,
  endpointId: string,
): Promise<WebhookEndpointRow | null> {
  const r = await query<WebhookEndpointRow>(
    db,
    'FindWebhookEndpoint',
    `select ${columns} from webhook_endpoints where id = $1 and owner_id = $2 and removed_at is null`,
    [endpointId, ownerId],
  );
  return r.rows[0] ?? null;
}
