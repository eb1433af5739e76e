import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Every index of the database, after every migration, earns its place: each names the query that needs it (its name
 * as given to query(), found in src/) and a statement of that query's shape, whose plan uses the index once sequential
 * scans are off (the test's tables are nearly empty, so the planner would scan them otherwise). Indexes behind a
 * primary key or a unique constraint enforce their rule and need no entry. A new index without an entry fails here:
 * name its query, or do not add it. graphile-worker's indexes are the library's (its own schema) and not listed.
 */
/**
 * `without`: indexes that serve the statement too and win on nearly empty tables (where the planner does not see this
 * one's selectivity); dropped inside the test's transaction, which is rolled back.
 */
type Need = { query: string; sql: string; without?: string[] };

const indexes: Record<string, Need> = {
  accounts_due: {
    query: 'FindDueAccounts',
    sql: `select * from accounts where is_active and paused_reason is null and next_sync_at <= $1 order by next_sync_at limit 10`,
  },
  accounts_owner: {
    query: 'ListAccounts',
    sql: `select * from accounts where owner_id = $1 order by created_at desc, id limit 20`,
  },
  api_keys_user: {
    query: 'ListApiKeys',
    sql: `select * from api_keys where user_id = $1 order by created_at desc, id`,
  },
  attempt_counts_window_end: {
    query: 'DeleteEndedAttemptWindows',
    sql: `delete from attempt_counts where window_end <= now()`,
  },
  es_events_global_order: {
    query: 'ReadLogPage',
    sql: `select * from es_events where (transaction_id, position) > ($1::xid8, $2::bigint) order by transaction_id, position limit 100`,
  },
  es_streams_deleted: {
    query: 'ReadStreamForwards',
    sql: `select * from es_events where stream_id = $1 and revision >= $2 and not exists (select 1 from es_streams gone where gone.stream_id = $1 and gone.deleted)`,
  },
  gateway_access_status: {
    query: 'ListGatewayAccess',
    sql: `select * from gateway_access g where g.status = $1 order by g.requested_at, g.user_id limit 500`,
  },
  gateway_holding_transfers_by_time: {
    query: 'ListHoldingTransfers',
    sql: `select * from gateway_holding_transfers order by recorded_at desc, id desc limit 500`,
  },
  gateway_ledger_adjustments_by_time: {
    query: 'ListLedgerAdjustments',
    sql: `select * from gateway_ledger_adjustments order by booked_at desc, id desc limit 500`,
  },
  gateway_period_closures_by_period: {
    query: 'FindGatewayPeriodClosed',
    sql: `select * from gateway_period_closures where period = $1 and reopened_at is null order by closed_at desc limit 1`,
  },
  gateway_postings_by_account_reported: {
    query: 'BalanceHistoryBounds',
    sql: `select account, sum(amount) from gateway_postings where account = any($1::text[]) and reported_at < $2 group by account`,
  },
  gateway_postings_by_reported: {
    query: 'PlaceLedgerPostingsAfterClose',
    sql: `select * from gateway_postings where reported_at >= $1 and reported_at < $2`,
  },
  gateway_settlement_credits_by_settlement: {
    query: 'ListGatewaySettledCredits',
    sql: `select * from gateway_settlement_credits c where c.settlement_id = $1 order by c.credited_at, c.credit_id limit 50`,
  },
  gateway_settlements_by_time: {
    query: 'ListGatewaySettlements',
    sql: `select * from gateway_settlements where merchant_id = $1 order by settled_at desc, id desc limit 50`,
  },
  gateway_statement_by_time: {
    query: 'FindGatewayStatementRange',
    sql: `select seq from gateway_statement where merchant_id = $1 and at >= $2 order by at, seq limit 1`,
  },
  gateway_statement_by_type: {
    query: 'FindGatewayStatementRange',
    sql: `select type_seq from gateway_statement where merchant_id = $1 and type = $2 and seq >= $3 and seq <= $4 order by seq limit 1`,
  },
  gateway_statement_by_type_seq: {
    query: 'ListGatewayStatementOfType',
    sql: `select * from gateway_statement s where s.merchant_id = $1 and s.type = $2 and s.type_seq >= $3 and s.type_seq <= $4 order by s.type_seq desc limit 50`,
  },
  gateway_statement_late: {
    query: 'FindGatewayStatementRange',
    sql: `select exists (select 1 from gateway_statement where merchant_id = $1 and seq >= $2 and at < at_max)`,
  },
  gateway_suspense_by_status: {
    query: 'ListGatewaySuspense',
    sql: `select * from gateway_suspense s where s.status = $1 and s.received_at >= $2 order by s.received_at, s.id limit 1000`,
  },
  gateway_unsettled_due: {
    query: 'FindMerchantsWithDueCredits',
    sql: `select distinct merchant_id from gateway_unsettled where completed_at < $1 limit 10`,
  },
  gateway_withdrawal_transfers_by_account: {
    query: 'TieHoldingItems',
    sql: `select wt.withdrawal_id from gateway_withdrawal_transfers wt where wt.account_id = any($1::text[]::uuid[])`,
  },
  gateway_withdrawals_by_merchant: {
    query: 'ListWithdrawalsAfter',
    sql: `select * from gateway_withdrawals where merchant_id = $1 order by requested_at desc, id desc limit 50`,
  },
  gateway_withdrawals_by_status: {
    query: 'ListGatewayWithdrawals',
    sql: `select * from gateway_withdrawals where status = $1 order by requested_at desc, id desc limit 500`,
  },
  ledger_checkpoints_rotations: {
    query: 'LedgerKeyCheckpoints',
    sql: `select seq from ledger_checkpoints where strpos(checkpoint::text, '"nextKey"') > 0`,
  },
  ledger_cosignatures_seq: {
    query: 'ListLedgerCosignatures',
    sql: `select * from ledger_cosignatures where seq >= $1 order by seq, received_at, witness_key_id`,
  },
  mutations_account_time: {
    query: 'FindHandTransferDebits',
    sql: `select id from mutations where account_id = $1 and type = 'DEBIT' and created_at >= $2 order by created_at, id limit 100`,
  },
  mutations_owner_time: {
    query: 'ListMutations',
    sql: `select * from mutations where owner_id = $1 order by created_at desc, id desc limit 20`,
  },
  payments_owner_created: {
    query: 'ListPayments',
    sql: `select * from payments where owner_id = $1 order by created_at desc, id desc limit 20`,
  },
  payments_owner_order: {
    query: 'ListPaymentsAfter',
    sql: `select * from payments where owner_id = $1 and order_id = $2 order by created_at desc, id desc limit 20`,
    without: ['payments_owner_created'],
  },
  payments_paid_account: {
    query: 'ReadPaymentHistories',
    sql: `select created_at from payments p where p.receiving_account_id = $1 and p.status = 'COMPLETED' order by p.created_at desc limit 10`,
  },
  payments_pending_account: {
    query: 'FindAccountsWithPendingPayments',
    sql: `select receiving_account_id from payments where status = 'PENDING' and total_amount is not null order by receiving_account_id limit 1`,
  },
  payments_pending_expiry: {
    query: 'FindDuePayments',
    sql: `select id from payments where status = 'PENDING' and expires_at <= $1 order by expires_at limit 10`,
  },
  provider_notifications_received: {
    query: 'PruneProviderNotifications',
    sql: `delete from provider_notifications where received_at < $1`,
  },
  transfers_open: {
    query: 'FindOpenTransfers',
    sql: `select id from transfers where status = 'UNCONFIRMED' or (status = 'SUBMITTED' and submitted_at < $1) order by submitted_at limit 10`,
  },
  user_sessions_over: {
    query: 'PruneOverSessions',
    sql: `select id from user_sessions where least(ended_at, expires_at) <= $1 order by least(ended_at, expires_at) limit 1000 for update skip locked`,
  },
  user_sessions_user: {
    query: 'ListLiveSessions',
    sql: `select * from user_sessions where user_id = $1 and ended_at is null and expires_at > $2`,
  },
  webhook_attempts_in_flight: {
    query: 'MarkInterruptedWebhookAttempts',
    sql: `select * from webhook_attempts a where a.state = 'in_flight' and a.delivery_id = $1`,
  },
  webhook_deliveries_created: {
    query: 'PruneWebhookDeliveries',
    sql: `select id from webhook_deliveries where created_at < $1 and updated_at < $1 and status <> 'pending' order by created_at limit 1000 for update skip locked`,
  },
  webhook_deliveries_endpoint: {
    query: 'ListWebhookDeliveries',
    sql: `select * from webhook_deliveries d where d.endpoint_id = $1 and d.owner_id = $2 order by d.created_at desc, d.id limit 20`,
  },
  webhook_endpoints_owner: {
    query: 'ListWebhookEndpoints',
    sql: `select * from webhook_endpoints where owner_id = $1 and removed_at is null order by created_at desc, id`,
  },
  webhook_events_enqueued: {
    query: 'PruneWebhookEvents',
    sql: `select e.event_id from webhook_events e where e.enqueued_at < $1 order by e.enqueued_at limit 1000`,
  },
};

/**
 * Indexes no query uses, each with why it is still there: to be dropped by a step of its own table's migration. An entry
 * whose index is gone fails the test too, so the list empties as they go.
 */
const unused: Record<string, string> = {};

/** Every source file's text, where a query's name is looked for. */
function sources(dir: string): string {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(f => f.isFile() && f.name.endsWith('.ts'))
    .map(f => readFileSync(path.join(f.parentPath, f.name), 'utf8'))
    .join('\n');
}

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 120_000);
afterAll(async () => {
  await service?.close();
});

describe('the indexes of the database', () => {
  it('each index, but those of primary keys and unique constraints, has the query that needs it', async () => {
    const r = await query<{ name: string }>(
      service.pool,
      'ListIndexes',
      `select k.relname as name from pg_index i join pg_class k on k.oid = i.indexrelid
         join pg_namespace ns on ns.oid = k.relnamespace
        where ns.nspname = current_schema()
          and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
        order by 1`,
    );
    const found = r.rows.map(row => row.name);
    expect(found.filter(name => !(name in indexes) && !(name in unused))).toEqual([]); // no query said to need it
    expect([...Object.keys(indexes), ...Object.keys(unused)].filter(name => !found.includes(name))).toEqual([]);
  });

  it('names queries that exist', () => {
    const text = sources(path.resolve('src'));
    const missing = Object.entries(indexes).filter(([, need]) => !need.query || !text.includes(`'${need.query}'`));
    expect(missing.map(([name, need]) => `${name}: ${need.query}`)).toEqual([]);
  });

  it("each query's statement uses its index", async () => {
    const unused: string[] = [];
    const client = await service.pool.connect();
    try {
      for (const [name, need] of Object.entries(indexes)) {
        await client.query('begin');
        await client.query('set local enable_seqscan = off');
        for (const other of need.without ?? []) await client.query(`drop index ${other}`);
        const plan = await client.query<{ 'QUERY PLAN': string }>(`explain (generic_plan) ${need.sql}`);
        await client.query('rollback');
        const text = plan.rows.map(row => row['QUERY PLAN']).join('\n');
        if (!new RegExp(`\\b${name}\\b`).test(text)) unused.push(`${name}:\n${text}`);
      }
    } finally {
      client.release();
    }
    expect(unused).toEqual([]);
  });
});
