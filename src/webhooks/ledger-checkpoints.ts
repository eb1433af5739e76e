import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { query } from '../db/pool.ts';
import { deterministicUuid } from '../ids.ts';
import { enqueueWebhookEvent } from './outbox.ts';
import { ensureWebhookSchema } from './schema.ts';

/** What a checkpoint needs to be sent: its number and time; the rest of it is the payload as signed. */
export type PublishedCheckpoint = { seq: number; at: string } & Record<string, unknown>;

/**
 * Not a reaction (src/sagas/reaction.ts): a checkpoint is not an event of the log; the ledger checkpoints' writer calls
 * this after it stores one.
 *
 * Sends a signed ledger checkpoint (issue 24) as `ledger.checkpoint` to every admin's endpoint that asked for that
 * kind, so that it leaves the server: one webhook event per admin, its id derived from the checkpoint's number, so
 * publishing a checkpoint again (after a crash) sends nothing twice. The payload is the checkpoint itself.
 */
export async function publishLedgerCheckpoint(
  deps: { pool: pg.Pool; clock: Clock },
  checkpoint: PublishedCheckpoint,
): Promise<number> {
  await ensureWebhookSchema(deps.pool);
  const admins = await query<{ owner_id: string }>(
    deps.pool,
    'LedgerCheckpointSubscribers',
    `select distinct e.owner_id from webhook_endpoints e join users u on u.id = e.owner_id
      where u.role = 'ADMIN' and e.removed_at is null and e.disabled_at is null and 'ledger.checkpoint' = any(e.events)`,
  );
  for (const { owner_id: ownerId } of admins.rows) {
    await enqueueWebhookEvent(deps, {
      ownerId,
      eventId: deterministicUuid(`ledger-checkpoint:${checkpoint.seq}:${ownerId}`),
      type: 'ledger.checkpoint',
      createdAt: checkpoint.at,
      data: checkpoint,
    });
  }
  return admins.rows.length;
}
