import type pg from 'pg';
import { query } from '../db/pool.ts';
import type { EventStore } from '../store/event-store.ts';
import type { LedgerCheckpoint } from './ledger-format.ts';
import type { VerificationResult } from './ledger-integrity.ts';
import type { KeptCheckpoint } from './log-verifier.ts';
import { newestInCheckpointFile, verifyLog } from './verify-log.ts';

/** The full verification runs at this hour of the WIB day, a quiet one, on the chain's leader. */
const verificationHourWib = 2;
const wibOffsetMs = 7 * 3_600_000;
const dayMs = 86_400_000;

/** The next time the full verification is due after `now`: the next 02:00 WIB. */
export function nextVerificationAt(now: Date): Date {
  const wib = now.getTime() + wibOffsetMs;
  const today = Math.floor(wib / dayMs) * dayMs + verificationHourWib * 3_600_000;
  return new Date((today > wib ? today : today + dayMs) - wibOffsetMs);
}

/**
 * `verify-log` run by the service on itself: the whole log against its checkpoint rows, the newest line of its file
 * and the last checkpoint it published, from the chain's first key (the one given before any checkpoint). A problem is
 * said as `where: what`.
 */
export async function verifyOwnLog(
  deps: { pool: pg.Pool; store: EventStore },
  options: { publicKey: string; fileDir: string; published: LedgerCheckpoint | null; now: () => Date },
): Promise<VerificationResult> {
  const kept: KeptCheckpoint[] = [];
  const inFile = (() => {
    try {
      return newestInCheckpointFile(options.fileDir);
    } catch {
      return null; // a file that is no checkpoint is the start-up check's finding
    }
  })();
  if (inFile) kept.push({ checkpoint: inFile, source: "the service's checkpoint file" });
  if (options.published) kept.push({ checkpoint: options.published, source: 'the last checkpoint published' });
  // from the chain's first key, as registered by the owner: verify-log follows the rotations from it
  const first = await query<{ key: string }>(
    deps.pool,
    'FirstLedgerKey',
    `select k.public_key as key from ledger_checkpoints c join ledger_keys k on k.key_id = c.checkpoint->>'keyId' where c.seq = 0`,
  ).catch(() => null);
  const publicKey = first?.rows[0]?.key ?? options.publicKey;
  const verdict = await verifyLog(deps, { publicKey, kept });
  return {
    at: options.now().toISOString(),
    clean: verdict.clean,
    events: verdict.events,
    checkpoints: verdict.checkpoints,
    problems: verdict.problems.map(p => `${p.at}: ${p.problem}`),
  };
}
