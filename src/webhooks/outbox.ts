import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { inTransaction, query } from '../db/pool.ts';
import { isoDate } from '../events/event.ts';
import { defaultWebhookEvents, webhookEventTypes, webhookTestEventType } from '../domain/webhook-events.ts';
import { scheduleAttempt } from './jobs.ts';
import { ensureWebhookSchema } from './schema.ts';

const publishedEvent = z.object({
  ownerId: z.uuid(),
  eventId: z.string().min(1).max(200),
  type: z.enum([...webhookEventTypes, webhookTestEventType]),
  createdAt: isoDate,
  data: z.unknown(),
  subject: z.object({ accountId: z.uuid(), mutationType: z.enum(['CREDIT', 'DEBIT']).optional() }).optional(),
});

/** What an account kind is about, for the endpoints' filters (their account ids, their mutation types). */
export type WebhookSubject = { accountId: string; mutationType?: 'CREDIT' | 'DEBIT' };

type PublishedEvent = {
  ownerId: string;
  eventId: string;
  type: (typeof webhookEventTypes)[number];
  createdAt: string;
  data: unknown;
  subject?: WebhookSubject | undefined;
};

/**
 * Publishes an event to the owner's webhook endpoints: one delivery per endpoint active now, each attempted at once
 * and then on the retry schedule. Idempotent on eventId (sagas deliver at least once): publishing the same eventId
 * again creates nothing. The event, its deliveries and their first jobs are written in one transaction.
 * Payload sent: `{id: eventId, type, createdAt, data}`; `webhook-id` is the eventId.
 */
export async function enqueueWebhookEvent(deps: { pool: pg.Pool; clock: Clock }, event: PublishedEvent): Promise<void> {
  await publish(deps, event, null);
}

/**
 * Publishes a test event (`webhook.test`) to one active endpoint of its owner, whatever kinds it chose: the same
 * outbox, delivery log, signature and retry schedule as every other event. Answers the delivery's id (null: the
 * endpoint is removed or disabled).
 */
export async function enqueueTestEvent(
  deps: { pool: pg.Pool; clock: Clock },
  event: Omit<PublishedEvent, 'type'> & { endpointId: string },
): Promise<string | null> {
  const { endpointId, ...rest } = event;
  const ids = await publish(deps, { ...rest, type: webhookTestEventType }, endpointId);
  return ids[0] ?? null;
}

/**
 * An active endpoint that chose the kind `type` by name, and whose filters let the event's account and mutation type
 * pass (SQL over webhook_endpoints, the three placeholders given).
 */
const takesTheEvent = (type: string, accountId: string, mutationType: string) =>
  `removed_at is null and disabled_at is null and ${type}::text = any(events)
   and (${accountId}::uuid is null or account_ids is null or ${accountId}::uuid = any(account_ids))
   and (${mutationType}::text is null or mutation_types is null or ${mutationType}::text = any(mutation_types))`;

async function publish(
  deps: { pool: pg.Pool; clock: Clock },
  event: Omit<PublishedEvent, 'type'> & { type: PublishedEvent['type'] | typeof webhookTestEventType },
  endpointId: string | null,
): Promise<string[]> {
  const e = publishedEvent.parse(event);
  await ensureWebhookSchema(deps.pool);
  const body = JSON.stringify({ id: e.eventId, type: e.type, createdAt: e.createdAt, data: e.data ?? null });
  const now = deps.clock.now();
  return inTransaction(deps.pool, async tx => {
    // a kind only asked for by name (every mutation, the ledger's) is recorded only when an endpoint takes it: a row
    // per mutation of every account for nobody would be most of the outbox
    const byName = endpointId === null && !(defaultWebhookEvents as readonly string[]).includes(e.type);
    const recorded = await query(
      tx,
      'RecordWebhookEvent',
      `insert into webhook_events (event_id, owner_id, type, created_at, body, enqueued_at)
       select $1, $2, $3, $4, $5, $6
        where not $7::boolean or exists (select 1 from webhook_endpoints where owner_id = $2 and ${takesTheEvent('$3', '$8', '$9')})
       on conflict (event_id) do nothing returning event_id`,
      [
        e.eventId,
        e.ownerId,
        e.type,
        e.createdAt,
        body,
        now,
        byName,
        e.subject?.accountId ?? null,
        e.subject?.mutationType ?? null,
      ],
    );
    if (recorded.rowCount === 0) return []; // published before (its deliveries exist already), or asked for by nobody
    // an endpoint named (a test event): that one alone, whatever it chose; none: each endpoint that takes the kind,
    // and of an account's event, each whose filters let its account and mutation type pass
    const deliveries = await query<{ id: string }>(
      tx,
      'CreateWebhookDeliveries',
      `insert into webhook_deliveries (event_id, endpoint_id, owner_id, status, next_attempt_at, created_at, updated_at)
       select $1, id, owner_id, 'pending', $3, $3, $3 from webhook_endpoints
        where owner_id = $2
          and (case when $6::uuid is not null then id = $6::uuid and removed_at is null and disabled_at is null
                    when events is null then $4::text = any($5::text[]) and removed_at is null and disabled_at is null
                    else ${takesTheEvent('$4', '$7', '$8')} end)
       on conflict (event_id, endpoint_id) do nothing returning id`,
      [
        e.eventId,
        e.ownerId,
        now,
        e.type,
        defaultWebhookEvents,
        endpointId,
        e.subject?.accountId ?? null,
        e.subject?.mutationType ?? null,
      ],
    );
    for (const d of deliveries.rows) await scheduleAttempt(tx, { deliveryId: d.id, step: 1, manual: false }, 0);
    return deliveries.rows.map(d => d.id);
  });
}
