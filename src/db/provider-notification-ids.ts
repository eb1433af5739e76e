import { createHash } from 'node:crypto';
import type pg from 'pg';
import { migrate, type Migration } from './migrations.ts';
import { query } from './pool.ts';

/**
 * The providers' notifications heard, by provider and notification id, with a digest of the body each carried: kept in
 * PostgreSQL so every instance agrees whether an id was heard, and kept longer than the timestamp window
 * (notificationIdRetentionHours against at most an hour of window), so an id is still remembered when its timestamp
 * would no longer pass: a delivery is either stale or known, never neither.
 */
const schema = `
  create table if not exists provider_notifications (
    provider_code text not null,
    notification_id text not null,
    body_sha256 text not null,
    received_at timestamptz not null,
    primary key (provider_code, notification_id)
  );
  create index if not exists provider_notifications_received on provider_notifications (received_at);`;

/** The table's unit of start-up DDL (src/db/migrations.ts). */
export const providerNotificationsMigration: Migration = { name: 'provider-notifications', steps: [schema] };

/** How long a notification id is remembered: a day, well past the longest timestamp window (an hour). */
export const notificationIdRetentionHours = 24;

const ready = new WeakMap<pg.Pool, Promise<void>>();
function ensureTable(pool: pg.Pool): Promise<void> {
  let done = ready.get(pool);
  if (!done) {
    done = migrate(pool, [providerNotificationsMigration]).then(() => undefined);
    ready.set(pool, done);
    done.catch(() => ready.delete(pool));
  }
  return done;
}

/**
 * Ids heard before `cutoff` (the service's clock, as they are recorded), at most `batch` of them: the retention's pass
 * (src/background/retention.ts) prunes them when no notification comes to do it on the way.
 */
export async function pruneProviderNotifications(pool: pg.Pool, cutoff: Date, batch: number): Promise<number> {
  const r = await query(
    pool,
    'PruneProviderNotificationsBatch',
    `delete from provider_notifications where (provider_code, notification_id) in (
       select provider_code, notification_id from provider_notifications where received_at < $1
        order by received_at limit $2 for update skip locked)`,
    [cutoff, batch],
  );
  return r.rowCount ?? 0;
}

/** new: first heard now; repeated: heard before with the same body; replayed: heard before with another body. */
export type NotificationHeard = 'new' | 'repeated' | 'replayed';

const prunedAt = new WeakMap<pg.Pool, number>();

/**
 * Records the notification `id` of `providerCode` unless it was heard before, in one statement (the primary key
 * settles two instances hearing it at once: one inserts, the other reads the row), and says which it was. Ids older
 * than the retention are deleted on the way, at most once an hour per process.
 */
export async function recordNotification(
  pool: pg.Pool,
  input: { providerCode: string; id: string; body: string; now: Date },
): Promise<NotificationHeard> {
  await ensureTable(pool);
  const now = input.now.getTime();
  if (now - (prunedAt.get(pool) ?? 0) >= 3600_000) {
    await query(pool, 'PruneProviderNotifications', 'delete from provider_notifications where received_at < $1', [
      new Date(now - notificationIdRetentionHours * 3600_000),
    ]);
    prunedAt.set(pool, now);
  }
  const digest = createHash('sha256').update(input.body).digest('hex');
  const r = await query<{ inserted: boolean; body_sha256: string }>(
    pool,
    'RecordProviderNotification',
    `with inserted as (
       insert into provider_notifications (provider_code, notification_id, body_sha256, received_at)
       values ($1, $2, $3, $4) on conflict do nothing returning body_sha256
     )
     select true as inserted, body_sha256 from inserted
     union all
     select false, body_sha256 from provider_notifications where provider_code = $1 and notification_id = $2
     limit 1`,
    [input.providerCode, input.id, digest, input.now],
  );
  // another instance inserting it at the same moment commits after this statement's snapshot: read it once it has
  const row =
    r.rows[0] ??
    (
      await query<{ inserted: boolean; body_sha256: string }>(
        pool,
        'ReadProviderNotification',
        'select false as inserted, body_sha256 from provider_notifications where provider_code = $1 and notification_id = $2',
        [input.providerCode, input.id],
      )
    ).rows[0]!;
  if (row.inserted) return 'new';
  return row.body_sha256 === digest ? 'repeated' : 'replayed';
}
