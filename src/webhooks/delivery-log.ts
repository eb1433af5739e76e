import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { inSnapshot, inTransaction, query, type Queryable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import type { DeliveryStatus } from './delivery-state.ts';
import { findWebhookEndpoint } from '../projections/webhook-endpoints.ts';
import { endpointNotFound } from '../domain/webhook-endpoints.ts';
import { scheduleAttempt } from './jobs.ts';
import { enqueueTestEvent } from './outbox.ts';

type DeliveryRow = {
  id: string;
  event_id: string;
  type: string;
  status: DeliveryStatus;
  status_reason: string | null;
  schedule_step: number;
  next_attempt_at: Date | null;
  created_at: Date;
};

/** An attempt is logged in flight when it starts, finished with its answer, or interrupted: its worker died first. */
export type AttemptState = 'in_flight' | 'finished' | 'interrupted';

type AttemptRow = {
  delivery_id: string;
  number: number;
  manual: boolean;
  attempted_at: Date;
  state: AttemptState;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
};

const deliveryColumns = `d.id, d.event_id, ev.type, d.status, d.status_reason, d.schedule_step, d.next_attempt_at, d.created_at`;

/** A delivery as the API shows it: the event, its state, and every attempt with its answer. */
function present(d: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: d.id,
    eventId: d.event_id,
    type: d.type,
    status: d.status,
    statusReason: d.status_reason,
    createdAt: d.created_at.toISOString(),
    nextAttemptAt: d.next_attempt_at?.toISOString() ?? null,
    attempts: attempts.map(a => ({
      number: a.number,
      attemptedAt: a.attempted_at.toISOString(),
      state: a.state,
      manual: a.manual,
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
    })),
  };
}

export type DeliveryView = ReturnType<typeof present>;

async function attemptsOf(db: Queryable, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const r = await query<AttemptRow>(
    db,
    'ListWebhookAttempts',
    `select delivery_id, number, manual, attempted_at, state, duration_ms, status_code, error
       from webhook_attempts where delivery_id = any($1::uuid[]) order by delivery_id, number`,
    [deliveryIds],
  );
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const a of r.rows) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return byDelivery;
}

/** The delivery log of one of the owner's endpoints, newest first. */
export async function listDeliveries(
  pool: pg.Pool,
  q: { ownerId: string; endpointId: string; status?: DeliveryStatus; page: number; limit: number },
): Promise<{ rows: DeliveryView[]; total: number }> {
  if (!(await findWebhookEndpoint(pool, q.ownerId, q.endpointId))) throw endpointNotFound();
  const filter = `d.endpoint_id = $1 and d.owner_id = $2 and ($3::text is null or d.status = $3)`;
  const params = [q.endpointId, q.ownerId, q.status ?? null];
  // the page and its attempts from one snapshot: an attempt logged meanwhile shows with the status it gave its delivery
  return inSnapshot(pool, async db => {
    const page = await query<DeliveryRow>(
      db,
      'ListWebhookDeliveries',
      `select ${deliveryColumns} from webhook_deliveries d join webhook_events ev on ev.event_id = d.event_id
        where ${filter} order by d.created_at desc, d.id limit $4 offset $5`,
      [...params, q.limit, (q.page - 1) * q.limit],
    );
    const count = await query<{ total: number }>(
      db,
      'CountWebhookDeliveries',
      `select count(*)::int as total from webhook_deliveries d where ${filter}`,
      params,
    );
    const attempts = await attemptsOf(
      db,
      page.rows.map(d => d.id),
    );
    return { rows: page.rows.map(d => present(d, attempts.get(d.id) ?? [])), total: count.rows[0]?.total ?? 0 };
  });
}

/**
 * Sends a delivery again, now. A delivery still retrying makes its next attempt at once and keeps its schedule after
 * it; a finished one (succeeded, failed or cancelled) gets one more attempt, without retries after it. An endpoint
 * disabled by a 410 takes no redelivery.
 */
export async function redeliver(
  pool: pg.Pool,
  deps: { clock: Clock; delays: readonly number[] },
  q: { ownerId: string; endpointId: string; deliveryId: string },
): Promise<DeliveryView> {
  const endpoint = await findWebhookEndpoint(pool, q.ownerId, q.endpointId);
  if (!endpoint) throw endpointNotFound();
  if (endpoint.disabled_at) throw refuse('WEBHOOK_ENDPOINT_DISABLED');
  const now = deps.clock.now();
  return inTransaction(pool, async tx => {
    const found = await query<DeliveryRow>(
      tx,
      'LockWebhookDeliveryForRedelivery',
      `select ${deliveryColumns} from webhook_deliveries d join webhook_events ev on ev.event_id = d.event_id
        where d.id = $1 and d.endpoint_id = $2 and d.owner_id = $3 for update of d`,
      [q.deliveryId, q.endpointId, q.ownerId],
    );
    const delivery = found.rows[0];
    if (!delivery) throw refuse('WEBHOOK_DELIVERY_NOT_FOUND');
    // a finished delivery resumes at the last step of the schedule: one attempt, and no retry after it
    const step = delivery.status === 'pending' ? delivery.schedule_step : Math.max(deps.delays.length - 1, 0);
    await query(
      tx,
      'ResumeWebhookDelivery',
      `update webhook_deliveries set status = 'pending', status_reason = null, schedule_step = $2, next_attempt_at = $3, updated_at = $3
        where id = $1`,
      [delivery.id, step, now],
    );
    await scheduleAttempt(tx, { deliveryId: delivery.id, step: step + 1, manual: true }, 0);
    const attempts = await attemptsOf(tx, [delivery.id]);
    const resumed = {
      ...delivery,
      status: 'pending' as const,
      status_reason: null,
      schedule_step: step,
      next_attempt_at: now,
    };
    return present(resumed, attempts.get(delivery.id) ?? []);
  });
}

/**
 * Sends a test event (`webhook.test`) to one of the owner's endpoints now, through the outbox: signed, logged and
 * retried like every other event, so its delivery shows in the log and can be sent again. A removed or unknown
 * endpoint is 404, one disabled by a 410 is 409. Answers the new delivery.
 */
export async function sendTestEvent(
  pool: pg.Pool,
  deps: { clock: Clock },
  q: { ownerId: string; endpointId: string },
): Promise<DeliveryView> {
  const endpoint = await findWebhookEndpoint(pool, q.ownerId, q.endpointId);
  if (!endpoint) throw endpointNotFound();
  if (endpoint.disabled_at) throw refuse('WEBHOOK_ENDPOINT_DISABLED');
  const eventId = randomUUID();
  const createdAt = deps.clock.now().toISOString();
  const data = { endpointId: endpoint.id, url: endpoint.url };
  const deliveryId = await enqueueTestEvent({ pool, clock: deps.clock }, { ...q, eventId, createdAt, data });
  // removed or disabled between the look-up and the send
  if (!deliveryId) throw endpointNotFound();
  const found = await query<DeliveryRow>(
    pool,
    'FindWebhookDelivery',
    `select ${deliveryColumns} from webhook_deliveries d join webhook_events ev on ev.event_id = d.event_id where d.id = $1`,
    [deliveryId],
  );
  const attempts = await attemptsOf(pool, [deliveryId]);
  return present(found.rows[0]!, attempts.get(deliveryId) ?? []);
}
