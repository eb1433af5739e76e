import { wibDate } from '../domain/working-days.ts';
import type { RecordedEvent } from '../store/event-store.ts';
import type { LeafRun } from './log-leaves.ts';
import {
  appendLeaf,
  canonicalJson,
  frontierBytes,
  frontierText,
  leafHash,
  pushLeafBytes,
  rootOf,
  type Frontier,
} from './merkle.ts';

/** A day of the log (WIB) as its digest sees it: how many events, and the frontier of their Merkle tree. */
export type DigestDay = { day: string; events: number; frontier: Frontier };

/**
 * An event's leaf: what identifies it and everything it says, as stored (not upcast: a new version of this code must
 * not change old digests), in canonical JSON. Its position in the log is not in it (a restored or migrated store
 * numbers the log anew); its order is.
 */
export const eventLeaf = (e: RecordedEvent) =>
  canonicalJson({
    streamId: e.streamId,
    revision: e.revision,
    type: e.type,
    version: e.version,
    data: e.data,
    metadata: e.metadata,
  });

/**
 * Which day an event belongs to: the WIB date it was recorded, but never a day before one the log has reached (a
 * command that took its time commits after an event of the next day): so a day is a run of the log, ended by the first
 * event of a later day, and is never reopened. The live digest and its verification both walk the log this way.
 */
export function addToDigest(
  current: DigestDay | null,
  e: RecordedEvent,
): { closed: DigestDay | null; current: DigestDay } {
  const day = logDay(current?.day ?? null, e);
  const open = current && current.day === day ? current : { day, events: 0, frontier: [] };
  return {
    closed: current && current !== open ? current : null,
    current: { day, events: open.events + 1, frontier: appendLeaf(open.frontier, leafHash(eventLeaf(e))) },
  };
}

/**
 * The same for a page of events already hashed (src/audit/log-leaves.ts): their leaf hashes (`digestHashes`, 32 bytes
 * each) in runs of one WIB date; the days it closed, in order, and the day open after it. Every event of a run is
 * recorded on one date, so the first decides the day for all of them, as addToDigest would one by one.
 */
export function addLeavesToDigest(
  current: DigestDay | null,
  leaves: { digestHashes: Uint8Array; runs: LeafRun[] },
): { closed: DigestDay[]; current: DigestDay | null } {
  const closed: DigestDay[] = [];
  let open = current;
  let frontier = frontierBytes(current?.frontier ?? []);
  let offset = 0;
  for (const run of leaves.runs) {
    const day = dayReached(open?.day ?? null, run.recordedOn);
    if (!open || open.day !== day) {
      if (open) closed.push({ ...open, frontier: frontierText(frontier) });
      open = { day, events: 0, frontier: [] };
      frontier = [];
    }
    for (let i = 0; i < run.count; i++, offset += 32) pushLeafBytes(frontier, leaves.digestHashes, offset);
    open = { ...open, events: open.events + run.count };
  }
  return { closed, current: open && { ...open, frontier: frontierText(frontier) } };
}

/** The day an event belongs to when the log has reached `reached`: its WIB date, or `reached` if that is later. */
export const logDay = (reached: string | null, e: RecordedEvent): string => dayReached(reached, recordedOn(e));

/** The WIB date an event was recorded on. */
export const recordedOn = (e: RecordedEvent): string => wibDate(new Date(e.metadata.occurredAt));

/** The day an event recorded on `on` belongs to when the log has reached `reached`. */
export const dayReached = (reached: string | null, on: string): string =>
  reached !== null && reached > on ? reached : on;

export const dayRoot = (d: DigestDay) => rootOf(d.frontier);

/** What a digest's signature covers. */
export const signedText = (d: { day: string; events: number; root: string }) =>
  `daily-digest:v1:${d.day}:${d.events}:${d.root}`;
