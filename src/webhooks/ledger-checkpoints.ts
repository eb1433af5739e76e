import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { query } from '../db/pool.ts';
import type { WebhookEventType } from '../domain/webhook-events.ts';
import { keysOfCheckpoint, publishedKeys } from '../audit/published-keys.ts';
import { deterministicUuid } from '../ids.ts';
import { enqueueWebhookEvent } from './outbox.ts';
import { ensureWebhookSchema } from './schema.ts';

/** What a checkpoint needs to be sent: its number, its time and its hash (its identity); the rest is the payload as signed. */
export type PublishedCheckpoint = { seq: number; at: string } & Record<string, unknown>;

/** The admins whose active endpoints ask for `type` (an admin-only kind). */
export async function adminSubscribers(pool: pg.Pool, type: WebhookEventType): Promise<string[]> {
  await ensureWebhookSchema(pool);
  const admins = await query<{ owner_id: string }>(
    pool,
    'LedgerWebhookSubscribers',
    `select distinct e.owner_id from webhook_endpoints e join users u on u.id = e.owner_id
      where u.role = 'ADMIN' and e.removed_at is null and e.disabled_at is null and $1 = any(e.events)`,
    [type],
  );
  return admins.rows.map(r => r.owner_id);
}

/**
 * Not a reaction (src/sagas/reaction.ts): a checkpoint is not an event of the log; the ledger checkpoints' writer calls
 * this after it stores one.
 *
 * Sends a signed ledger checkpoint as `ledger.checkpoint` to every admin's endpoint that asked for that kind, so that it
 * leaves the server: one webhook event per admin, its id derived from the checkpoint's hash, so publishing one again
 * (after a crash) sends nothing twice, while a checkpoint signed again for the same seq (a fork, a re-signed chain) is
 * always a new event. The payload is the checkpoint itself, and beside it (not signed) `keys`: the key it is signed by
 * and, on a rotation, the key it hands over to, as GET /.well-known/ledger-keys lists them.
 */
export async function publishLedgerCheckpoint(
  deps: { pool: pg.Pool; clock: Clock },
  checkpoint: PublishedCheckpoint,
  hash: string,
): Promise<number> {
  const admins = await adminSubscribers(deps.pool, 'ledger.checkpoint');
  const chain = admins.length > 0 ? await publishedKeys(deps.pool) : null;
  const keys = chain ? keysOfCheckpoint(chain, checkpoint) : [];
  for (const ownerId of admins) {
    await enqueueWebhookEvent(deps, {
      ownerId,
      eventId: deterministicUuid(`ledger-checkpoint:${hash}:${ownerId}`),
      type: 'ledger.checkpoint',
      createdAt: checkpoint.at,
      data: { ...checkpoint, keys },
    });
  }
  return admins.length;
}
