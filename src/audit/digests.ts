import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import { readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import { comparePositions, type Position } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { addLeavesToDigest, dayRoot, signedText } from './digest-days.ts';
import type { LeafRun } from './log-leaves.ts';
import type { Frontier } from './merkle.ts';

export const digestSchema = `
  create table if not exists daily_digests (
    day date primary key,
    events bigint not null,
    frontier jsonb not null,
    root text not null,
    -- null while the day is open (no event of a later day yet)
    signature text,
    key_id text,
    last_position text not null
  );`;

export const dailyDigestsMigration: Migration = { name: 'daily-digests', steps: [digestSchema] };

export type StoredDigest = {
  day: string;
  events: number;
  root: string;
  signature: string | null;
  keyId: string | null;
};

type DigestRow = {
  day: string;
  events: string;
  frontier: Frontier;
  root: string;
  signature: string | null;
  key_id: string | null;
};

const digestColumns = `to_char(day, 'YYYY-MM-DD') as day, events::text, frontier, root, signature, key_id`;

/** Every stored digest, oldest day first. */
export async function listDigests(db: Queryable): Promise<StoredDigest[]> {
  const r = await query<DigestRow>(db, 'ListDailyDigests', `select ${digestColumns} from daily_digests order by day`);
  return r.rows.map(d => ({
    day: d.day,
    events: Number(d.events),
    root: d.root,
    signature: d.signature,
    keyId: d.key_id,
  }));
}

/**
 * The digests' position in the log (a subscriber checkpoint, as when they were a subscriber of their own, whose
 * advisory lock has this name too): written with their rows, by the chain's leader since the two share its pass.
 */
export const digestPositionName = 'digest:daily';

/**
 * The daily digests take in a page of the log (after `after`, up to `last`): each WIB day's Merkle
 * tree (src/audit/digest-days.ts) grows by the page's leaves, and a day's root is signed with the service's Ed25519 key
 * when the first event of a later day closes it; the open day's row, the days it closed and the position are written in
 * the caller's transaction (the chain's, src/audit/ledger-checkpoints.ts). A position other than `after` stored means
 * someone else digested the range: refused, so no event is counted twice.
 */
export async function takeIntoDigests(
  tx: pg.PoolClient,
  signer: { keyId: string; sign(text: string): string },
  leaves: { digestHashes: Uint8Array; runs: LeafRun[] },
  after: Position,
  last: Position,
): Promise<void> {
  if (comparePositions(await readCheckpoint(tx, digestPositionName), after) !== 0)
    throw new Error('daily digests: another instance digested this range');
  const latest = (
    await query<DigestRow>(
      tx,
      'LatestDailyDigest',
      `select ${digestColumns} from daily_digests order by day desc limit 1`,
    )
  ).rows[0];
  const { closed, current } = addLeavesToDigest(
    latest ? { day: latest.day, events: Number(latest.events), frontier: latest.frontier } : null,
    leaves,
  );
  const changed = [...closed.map(d => ({ ...d, signed: true })), ...(current ? [{ ...current, signed: false }] : [])];
  const rows = changed.map(d => {
    const root = dayRoot(d);
    const signature = d.signed ? signer.sign(signedText({ day: d.day, events: d.events, root })) : null;
    return {
      day: d.day,
      events: d.events,
      frontier: d.frontier,
      root,
      signature,
      keyId: d.signed ? signer.keyId : null,
    };
  });
  if (rows.length > 0)
    await query(
      tx,
      'SaveDailyDigests',
      `insert into daily_digests (day, events, frontier, root, signature, key_id, last_position)
       select day, events, frontier, root, signature, "keyId", $2
         from jsonb_to_recordset($1::jsonb) as d(day date, events bigint, frontier jsonb, root text, signature text, "keyId" text)
       on conflict (day) do update set events = excluded.events, frontier = excluded.frontier, root = excluded.root,
         signature = excluded.signature, key_id = excluded.key_id, last_position = excluded.last_position`,
      [JSON.stringify(rows), positionText(last)],
    );
  await saveCheckpoint(tx, digestPositionName, last);
}
