import type { Queryable } from '../db/pool.ts';
import { ledgerIntegrityStream } from '../domain/ledger-integrity.ts';
import { parseRecorded } from '../events/event.ts';
import type { LedgerIntegrityEvent } from '../events/ledger-integrity.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import { checkpointsFrom } from './ledger-checkpoint-rows.ts';
import { checkpointHash } from './ledger-format.ts';

// the operator's resets (`npm run cli -- ledger-reset`), as the chain's leader reads them from the log

/** The operator's newest reset, with where it is in the log; null when none was made. */
export async function latestReset(
  store: EventStore,
): Promise<(Extract<LedgerIntegrityEvent, { type: 'LedgerIntegrityReset' }>['data'] & { position: Position }) | null> {
  const recorded = await store.readStream(ledgerIntegrityStream);
  const last = recorded.at(-1);
  const event = last ? (parseRecorded(last) as LedgerIntegrityEvent | null) : null;
  return event?.type === 'LedgerIntegrityReset' ? { ...event.data, position: last!.position } : null;
}

/** What each reset the operator recorded accepted, oldest first. */
export async function acceptedByResets(store: EventStore): Promise<string[][]> {
  const recorded = await store.readStream(ledgerIntegrityStream);
  return recorded.flatMap(r => {
    const event = parseRecorded(r) as LedgerIntegrityEvent | null;
    return event?.type === 'LedgerIntegrityReset' ? [event.data.findings] : [];
  });
}

/**
 * Whether a reset lets the leader sign on: it accepted every finding there is now (fewer is fine: one it accepted may
 * be gone since), and the checkpoint it continues from is still the rows' checkpoint of its seq.
 */
export async function resetAccepts(
  db: Queryable,
  reset: Awaited<ReturnType<typeof latestReset>>,
  findings: string[],
): Promise<boolean> {
  if (!reset || !findings.every(f => reset.findings.includes(f))) return false;
  return resetInForce(db, reset);
}

/** Whether the checkpoint a reset continues from is still the rows' checkpoint of its seq (the empty chain: always). */
export async function resetInForce(
  db: Queryable,
  reset: { continuesFrom: { seq: number; hash: string } | null } | null,
): Promise<boolean> {
  if (!reset) return false;
  if (!reset.continuesFrom) return true;
  const [row] = await checkpointsFrom(db, reset.continuesFrom.seq, 1);
  return row?.seq === reset.continuesFrom.seq && checkpointHash(row) === reset.continuesFrom.hash;
}
