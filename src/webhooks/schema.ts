import type pg from 'pg';
import { jobQueueMigration } from '../db/job-queue.ts';
import { migrate, readModelMigration, type Migration } from '../db/migrations.ts';
import { webhookEndpointsProjection } from '../projections/webhook-endpoints.ts';

/**
 * The delivery log: plain tables owned by this module, not events. Which endpoints exist is domain state (events in
 * the user stream); what was sent when, and what the receiver answered, is an operational side-effect log, written
 * many times per event, that nothing decides on and no read model is rebuilt from (docs/guide/webhooks.md).
 */
const deliveryLogSchema = `
  create table if not exists webhook_events (
    event_id text primary key,
    owner_id uuid not null,
    type text not null,
    created_at timestamptz not null,
    body text not null,
    enqueued_at timestamptz not null
  );
  create table if not exists webhook_deliveries (
    id uuid primary key default gen_random_uuid(),
    event_id text not null references webhook_events (event_id),
    endpoint_id uuid not null,
    owner_id uuid not null,
    status text not null check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
    status_reason text,
    schedule_step int not null default 0,
    next_attempt_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    unique (event_id, endpoint_id)
  );
  create index if not exists webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id);
  create table if not exists webhook_attempts (
    delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
    number int not null,
    manual boolean not null,
    attempted_at timestamptz not null,
    duration_ms int not null,
    status_code int,
    error text,
    primary key (delivery_id, number)
  );
`;

/**
 * Step 2: an attempt is logged when it starts (in_flight, with the queue job and worker making it) and finished with
 * its answer; one whose worker died first is interrupted (src/webhooks/deliveries.ts).
 */
const attemptStates = `
  do $$ begin
    if not exists (select 1 from information_schema.columns
                    where table_schema = current_schema() and table_name = 'webhook_attempts' and column_name = 'state') then
      alter table webhook_attempts
        add column state text not null default 'finished' check (state in ('in_flight', 'finished', 'interrupted')),
        add column job_id bigint,
        add column worker_id text,
        alter column duration_ms drop not null;
    end if;
  end $$;
  create index if not exists webhook_attempts_in_flight on webhook_attempts (delivery_id) where state = 'in_flight';`;

/**
 * Step 3: the retention's pass (src/webhooks/retention.ts) finds old rows by when they were made, a column never
 * updated, so a delivery's updates stay HOT; deliveries by event serve the unique key already.
 */
const retentionIndexes = `
  create index if not exists webhook_deliveries_created on webhook_deliveries (created_at);
  create index if not exists webhook_events_enqueued on webhook_events (enqueued_at);`;

export const webhookDeliveryLogMigration: Migration = {
  name: 'webhook-delivery-log',
  steps: [deliveryLogSchema, attemptStates, retentionIndexes],
};

/** What publishing and delivering webhooks need: the job queue, the endpoints and the delivery log. */
export const webhookMigrations: Migration[] = [
  jobQueueMigration,
  readModelMigration(webhookEndpointsProjection),
  webhookDeliveryLogMigration,
];

const ready = new WeakMap<pg.Pool, Promise<void>>();

/**
 * Creates the delivery log and the job queue's schema once per pool (src/db/migrations.ts), so that publishing works
 * from any process that has a pool (a saga may publish before the delivery runner of its process has started).
 */
export function ensureWebhookSchema(pool: pg.Pool): Promise<void> {
  let done = ready.get(pool);
  if (!done) {
    done = migrate(pool, webhookMigrations).then(() => undefined);
    ready.set(pool, done);
    done.catch(() => ready.delete(pool));
  }
  return done;
}
