import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { inTransaction, query } from '../db/pool.ts';
import { isoDate } from '../events/event.ts';
import { defaultWebhookEvents, webhookEventTypes } from '../domain/webhook-events.ts';
import { scheduleAttempt } from './jobs.ts';
import { ensureWebhookSchema } from './schema.ts';

const publishedEvent = z.object({
  ownerId: z.uuid(),
  eventId: z.string().min(1).max(200),
  type: z.enum(webhookEventTypes),
  createdAt: isoDate,
  data: z.unknown(),
});

/**
 * Publishes an event to the owner's webhook endpoints: one delivery per endpoint active now, each attempted at once
 * and then on the retry schedule. Idempotent on eventId (sagas deliver at least once): publishing the same eventId
 * again creates nothing. The event, its deliveries and their first jobs are written in one transaction.
 * Payload sent: `{id: eventId, type, createdAt, data}`; `webhook-id` is the eventId.
 */
export async function enqueueWebhookEvent(
  deps: { pool: pg.Pool; clock: Clock },
  event: {
    ownerId: string;
    eventId: string;
    type: (typeof webhookEventTypes)[number];
    createdAt: string;
    data: unknown;
  },
): Promise<void> {
  const e = publishedEvent.parse(event);
  await ensureWebhookSchema(deps.pool);
  const body = JSON.stringify({ id: e.eventId, type: e.type, createdAt: e.createdAt, data: e.data ?? null });
  const now = deps.clock.now();
  await inTransaction(deps.pool, async tx => {
    const recorded = await query(
      tx,
      'RecordWebhookEvent',
      `insert into webhook_events (event_id, owner_id, type, created_at, body, enqueued_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (event_id) do nothing returning event_id`,
      [e.eventId, e.ownerId, e.type, e.createdAt, body, now],
    );
    if (recorded.rowCount === 0) return; // published before: its deliveries exist already
    const deliveries = await query<{ id: string }>(
      tx,
      'CreateWebhookDeliveries',
      `insert into webhook_deliveries (event_id, endpoint_id, owner_id, status, next_attempt_at, created_at, updated_at)
       select $1, id, owner_id, 'pending', $3, $3, $3 from webhook_endpoints
        where owner_id = $2 and removed_at is null and disabled_at is null
          and (case when events is null then $4::text = any($5::text[]) else $4::text = any(events) end)
       on conflict (event_id, endpoint_id) do nothing returning id`,
      [e.eventId, e.ownerId, now, e.type, defaultWebhookEvents],
    );
    for (const d of deliveries.rows) await scheduleAttempt(tx, { deliveryId: d.id, step: 1, manual: false }, 0);
  });
}
