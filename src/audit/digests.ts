import type pg from 'pg';
import { checkpointMigration, migrate, type Migration } from '../db/migrations.ts';
import { inTransaction, query, type Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import type { EventStore, Position, RecordedEvent } from '../store/event-store.ts';
import { Subscriber, positionText, type SubscriberHealth } from '../store/subscriber.ts';
import { addToDigest, dayRoot, signedText, type DigestDay } from './digest-days.ts';
import type { Frontier } from './merkle.ts';
import type { DigestSigner } from './digest-signer.ts';
import { wholeLogUpTo } from './stream-pages.ts';

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

const subscriberName = 'digest:daily';

/** The pause after each batch. */
const pauseMs = 500;

/** Adds a batch of the log to the days' trees: the open day's row and any day it closed (signed), and the checkpoint. */
async function digestBatch(
  tx: pg.PoolClient,
  signer: DigestSigner,
  events: RecordedEvent[],
  last: Position,
): Promise<true> {
  // rows and checkpoint commit together, and a commit lost in a crash is made again from the log: no need to wait
  // for the disk, which would cost every busy second a flush of its own
  await query(tx, 'DigestAsyncCommit', 'set local synchronous_commit = off');
  const latest = (
    await query<DigestRow>(
      tx,
      'LatestDailyDigest',
      `select ${digestColumns} from daily_digests order by day desc limit 1`,
    )
  ).rows[0];
  let current: DigestDay | null = latest
    ? { day: latest.day, events: Number(latest.events), frontier: latest.frontier }
    : null;
  const changed: (DigestDay & { signed: boolean })[] = [];
  for (const e of events) {
    const next = addToDigest(current, e);
    if (next.closed) changed.push({ ...next.closed, signed: true });
    current = next.current;
  }
  if (current) changed.push({ ...current, signed: false });
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
  await saveCheckpoint(tx, subscriberName, last);
  return true;
}

/**
 * Not a reaction (src/sagas/reaction.ts): like a projection it folds whole batches of the log (every event, deleted
 * streams' too) into rows written with the checkpoint in one transaction, exactly once and paused between batches; a
 * reaction is handed one event at a time and its effects are at least once.
 *
 * The daily digests (DESIGN section 13): a subscriber of the whole log (every event, of any type, as stored) that keeps
 * each WIB day's Merkle tree (src/audit/digest-days.ts) and signs a day's root with the service's Ed25519 key when the
 * first event of a later day closes it. The rows and the checkpoint are written in one transaction: exactly once.
 */
export class DailyDigests {
  private readonly subscriber: Subscriber;

  constructor(
    private readonly deps: { pool: pg.Pool; store: EventStore; log: Logger },
    signer: DigestSigner,
  ) {
    this.subscriber = new Subscriber({
      name: subscriberName,
      pool: deps.pool,
      store: deps.store,
      log: deps.log,
      handleBatch: async (events, last) => {
        // the whole log, deleted streams' events included, as verify-digests reads it; the batch begins at the checkpoint
        const all = await wholeLogUpTo(deps, await readCheckpoint(deps.pool, subscriberName), last, events);
        await inTransaction(deps.pool, tx => digestBatch(tx, signer, all, last));
        // nobody waits for a digest: a pause lets the log gather, so a busy log is digested in few, large batches
        await new Promise<void>(resolve => {
          this.resumeNow = resolve;
          setTimeout(resolve, pauseMs).unref();
        });
        return true;
      },
    });
  }

  /** Ends the pause between batches (stopping does not wait for it). */
  private resumeNow: () => void = () => undefined;

  async start(): Promise<void> {
    await migrate(this.deps.pool, [checkpointMigration, dailyDigestsMigration]);
    await this.subscriber.start();
  }

  stop(): Promise<void> {
    const stopping = this.subscriber.stop();
    this.resumeNow();
    return stopping;
  }

  waitFor(position: Position, timeoutMs?: number): Promise<boolean> {
    return this.subscriber.waitFor(position, timeoutMs);
  }

  health(): { subscriber: string; health: SubscriberHealth }[] {
    return [{ subscriber: subscriberName, health: this.subscriber.health }];
  }
}
