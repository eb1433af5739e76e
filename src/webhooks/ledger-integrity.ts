import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { deterministicUuid } from '../ids.ts';
import { adminSubscribers } from './ledger-checkpoints.ts';
import { enqueueWebhookEvent } from './outbox.ts';

/** A finding about the ledger's history as sent: its id (sha256 of its text), where it was found, what, and when. */
export type PublishedFinding = { id: string; source: string; finding: string; acknowledged: boolean; at: string };

/**
 * Not a reaction: the ledger's own checks call this (src/audit/ledger-integrity.ts). Sends a finding as
 * `ledger.integrity` to every admin's endpoint that asked for that kind; the webhook id derives from the finding's text
 * and the admin, so the same finding found again after a restart is not sent twice.
 */
export async function publishLedgerIntegrity(
  deps: { pool: pg.Pool; clock: Clock },
  finding: PublishedFinding,
): Promise<number> {
  const admins = await adminSubscribers(deps.pool, 'ledger.integrity');
  for (const ownerId of admins) {
    await enqueueWebhookEvent(deps, {
      ownerId,
      eventId: deterministicUuid(`ledger-integrity:${finding.id}:${ownerId}`),
      type: 'ledger.integrity',
      createdAt: finding.at,
      data: finding,
    });
  }
  return admins.length;
}
