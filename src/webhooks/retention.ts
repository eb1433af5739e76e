import { query, type Queryable } from '../db/pool.ts';

/**
 * The delivery log's retention. A delivery that is finished (succeeded, failed or cancelled) and was last touched
 * before `cutoff` goes, its attempts with it (on delete cascade); a pending one stays, whatever its age, as its job
 * still waits in the queue. Rows locked by an attempt or a redelivery are skipped, not waited for: the next pass takes
 * them. Times are the clock's, as the log writes them (src/webhooks/outbox.ts, deliveries.ts). Answers how many went.
 */
export async function pruneWebhookDeliveries(db: Queryable, cutoff: Date, batch: number): Promise<number> {
  const r = await query(
    db,
    'PruneWebhookDeliveries',
    `delete from webhook_deliveries where id in (
       select id from webhook_deliveries
        where created_at < $1 and updated_at < $1 and status <> 'pending'
        order by created_at limit $2 for update skip locked)`,
    [cutoff, batch],
  );
  return r.rowCount ?? 0;
}

/**
 * Events enqueued before `cutoff` with no delivery left go too (an event nobody took has none from the start). The
 * row is also what publishes an event once (insert ... on conflict do nothing): a saga replayed over events older than
 * the retention would publish them again, which is why the retention is days, not minutes.
 */
export async function pruneWebhookEvents(db: Queryable, cutoff: Date, batch: number): Promise<number> {
  const r = await query(
    db,
    'PruneWebhookEvents',
    `delete from webhook_events where event_id in (
       select e.event_id from webhook_events e
        where e.enqueued_at < $1 and not exists (select 1 from webhook_deliveries d where d.event_id = e.event_id)
        order by e.enqueued_at limit $2 for update skip locked)`,
    [cutoff, batch],
  );
  return r.rowCount ?? 0;
}
