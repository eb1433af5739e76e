import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { migrate, type Migration } from '../db/migrations.ts';
import { jsonAsText, preparedQuery, query, type Queryable } from '../db/pool.ts';
import {
  START,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamWrite,
} from './event-store.ts';
import { PostgresAppends } from './postgres-append.ts';
import { pollingSubscription, type TailRead } from './polling-subscription.ts';
import { metadataColumnsSql, metadataOfRow } from './postgres-event-metadata.ts';
import { dataOfStored } from './postgres-event-shapes.ts';
import { longIds, streamIdForms } from './postgres-stream-ids.ts';
import { eventLogMigration, eventStreamsMigration } from './postgres-schema.ts';

const CHANNEL = 'es_events';

type EventRow = {
  pos: string;
  xid: string;
  stream_id: string;
  revision: number;
  eid: string;
  type: string;
  version: number;
  data: string;
  metadata: string | null;
  correlation: string | null;
  causation: string | null;
  actor: string | null;
  occurred: string | null;
};

// Output names differ from column names, so that ORDER BY always means the typed columns. Data and metadata come as
// JSON text (the json columns as stored, kept as text by jsonAsText), parsed when first read: most readers of "all"
// look at the type of most events and pass them by. Metadata is either that JSON or the typed columns as text.
const eventColumns = `position::text as pos, transaction_id::text as xid, stream_id, revision, event_id::text as eid, type, version, data, ${metadataColumnsSql('es_events')}`;

/** The event's stream is not deleted: a deleted stream keeps its events in the log (append-only), unseen by readers. */
const liveStream = (streamIdSql: string) =>
  `not exists (select 1 from es_streams gone where gone.stream_id = ${streamIdSql} and gone.deleted)`;

/**
 * The event store's DDL this role may run: the log's owner alone (re)defines it; the service's role, when it is not,
 * sees to what it owns (or nothing).
 */
export async function eventStoreMigrations(db: Queryable): Promise<Migration[]> {
  const owner = await query<{ log: boolean; streams: boolean }>(
    db,
    'FindEventStoreOwner',
    `select coalesce((select pg_has_role(current_user, c.relowner, 'usage') from pg_class c where c.oid = to_regclass('es_events')), true) as log,
            coalesce((select pg_has_role(current_user, c.relowner, 'usage') from pg_class c where c.oid = to_regclass('es_streams')), true) as streams`,
  );
  const { log, streams } = owner.rows[0]!;
  return [...(log ? [eventLogMigration] : []), ...(log || streams ? [eventStreamsMigration] : [])];
}

/**
 * Events of "all" after a position ($1, $2), at most $3, with any further columns; `withDeleted` for auditors, who read
 * the whole log. Only transactions older than every running one are final: an event of a later transaction can still
 * be joined by one with a lower position that commits late. Readers of "all" therefore stop at the snapshot's xmin.
 */
const finalEventsAfter = (columns = '', withDeleted = false) => `select ${eventColumns}${columns} from es_events
  where (transaction_id, position) > ($1::text::xid8, $2::bigint)
    and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
    ${withDeleted ? '' : `and ${liveStream('es_events.stream_id')}`}
  order by es_events.transaction_id, es_events.position limit $3`;

const positionParams = (after: Position, maxCount: number) => [
  String(after.commit < 0n ? 0n : after.commit),
  String(after.prepare),
  maxCount,
];

function toRecorded(row: EventRow): RecordedEvent {
  const streamId = longIds(row.stream_id);
  let data: Record<string, unknown> | undefined;
  let metadata: EventMetadata | undefined;
  const metadataOf = () =>
    (metadata ??= metadataOfRow(
      row.eid,
      row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
      row.correlation,
      row.causation,
      row.actor,
      row.occurred,
    ));
  return {
    streamId,
    revision: row.revision,
    position: { commit: BigInt(row.xid), prepare: BigInt(row.pos) },
    type: row.type,
    version: row.version,
    get data() {
      return (data ??= dataOfStored(JSON.parse(row.data), streamId, () => metadataOf().occurredAt));
    },
    get metadata() {
      return metadataOf();
    },
  };
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly wakeups = new EventEmitter();
  private listener: pg.PoolClient | null = null;
  private notifyTimer: NodeJS.Timeout | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Names this store in its NOTIFY payloads, so that it does not wake its own subscribers twice. */
  private readonly instanceId = randomUUID();
  /** Moves on with every wake-up; reads started in one generation can be shared, never across one. */
  private wakeGeneration = 0;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly appends: PostgresAppends;

  private constructor(private readonly pool: pg.Pool) {
    this.appends = new PostgresAppends(pool, {
      written: () => this.announceAppend(),
      headPosition: () => this.headPosition(),
    });
    this.wakeups.setMaxListeners(0);
    this.wakeups.on('wake', () => this.wakeGeneration++); // first listener: counted before any subscriber reads
  }

  /**
   * The subscribers of this process (projections, sagas) are woken together and read "all" from the same
   * position: one query answers all of them. Only reads started after the same wake-up are shared, so none gets
   * an answer older than the append that woke it.
   */
  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const k = `${this.wakeGeneration}:${key}`;
    const running = this.inFlight.get(k);
    if (running) return running as Promise<T>;
    const started = read().finally(() => this.inFlight.delete(k));
    this.inFlight.set(k, started);
    return started;
  }

  static async create(pool: pg.Pool, opts: { listen?: boolean } = {}): Promise<PostgresEventStore> {
    await migrate(pool, await eventStoreMigrations(pool));
    const store = new PostgresEventStore(pool);
    if (opts.listen !== false) await store.listen();
    return store;
  }

  private async listen(): Promise<void> {
    const client = await this.pool.connect();
    // this store's own appends woke its subscribers already, when they were written
    client.on('notification', message => {
      if (message.payload !== this.instanceId) this.wakeups.emit('wake');
    });
    client.on('error', () => {
      if (this.listener !== client) return; // said already, or not listening yet
      this.listener = null;
      client.release(true);
      this.listenAgain();
    });
    try {
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      client.release(true);
      throw err;
    }
    this.listener = client;
  }

  /**
   * The listening connection broke (the database went away): listen on a new one once the database answers again,
   * then wake the subscribers, since notifications sent meanwhile are lost. Until then they poll.
   */
  private listenAgain(attempt = 1): void {
    if (this.closed) return;
    this.relistenTimer = setTimeout(
      () => {
        this.relistenTimer = null;
        if (this.closed) return;
        this.listen().then(
          () => this.wakeups.emit('wake'),
          () => this.listenAgain(attempt + 1),
        );
      },
      Math.min(250 * 2 ** attempt, 5000),
    );
  }

  /** Wakes local subscribers now, and other processes through one NOTIFY per 10 ms at most. */
  private announceAppend(): void {
    this.wakeups.emit('wake');
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = null;
      query(this.pool, 'NotifyAppend', `select pg_notify('${CHANNEL}', $1)`, [this.instanceId]).catch(() => undefined);
    }, 10);
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.appends.append(streamId, events, expected);
  }

  appendToStreams(writes: StreamWrite[]): Promise<AppendResult[]> {
    return this.appends.appendToStreams(writes);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const { stored, legacy } = streamIdForms(streamId);
    const order = `revision ${backwards ? 'desc' : 'asc'}`;
    const inForm = (id: string) =>
      `(select ${eventColumns} from es_events where stream_id = ${id} and revision ${backwards ? '<=' : '>='} $2
        order by es_events.${order} limit $3)`;
    // the stream's events under either id (postgres-stream-ids.ts), each form read in order by its index
    const result = await preparedQuery<EventRow>(
      this.pool,
      backwards ? 'ReadStreamBackwards' : 'ReadStreamForwards',
      `select * from (${inForm('$1')} union all ${inForm('$4')}) e
       where ${liveStream('any(array[$1::text, $4::text])')} order by ${order} limit $3`,
      [stored, from, options.maxCount ?? null, legacy],
      jsonAsText,
    );
    return result.rows.map(toRecorded);
  }

  async readAll(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const result = await preparedQuery<EventRow>(
      this.pool,
      'ReadAll',
      finalEventsAfter(),
      positionParams(after, maxCount),
      jsonAsText,
    );
    return result.rows.map(toRecorded);
  }

  /** Every event of the log after `after`, deleted streams' included, in the order of "all": what auditors chain and sign. */
  async readLog(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const result = await preparedQuery<EventRow>(
      this.pool,
      'ReadLog',
      finalEventsAfter('', true),
      positionParams(after, maxCount),
      jsonAsText,
    );
    return result.rows.map(toRecorded);
  }

  /**
   * The next events of "all" for a subscriber, and whether later ones are committed but held back behind an open older
   * transaction (one that may still commit an event before them), in one statement: the final events as readAll reads
   * them, and a marker row (nothing but `final = false`) when a held-back event exists. That one is looked up from the
   * snapshot's xmin alone (one index probe, where a bound on the position too would scan from it): a position a
   * subscriber holds is of a final event, whose transaction is below an earlier xmin, and xmin only moves forward, so
   * whatever is at or above it lies after.
   */
  private async readTail(after: Position, maxCount: number): Promise<TailRead> {
    const result = await preparedQuery<EventRow & { final: boolean }>(
      this.pool,
      'ReadAllTail',
      `(${finalEventsAfter(', true as final')})
       union all
       (select null, null, null, null, null, null, null, null, null, null, null, null, null, false from es_events
        where transaction_id >= pg_snapshot_xmin(pg_current_snapshot())
        order by es_events.transaction_id, es_events.position limit 1)`,
      positionParams(after, maxCount),
      jsonAsText,
    );
    const final = result.rows.filter(row => row.final);
    return {
      events: final.map(toRecorded),
      more: final.length === maxCount,
      heldBack: final.length < result.rows.length,
    };
  }

  subscribe(after: Position, handler: (events: RecordedEvent[]) => Promise<void>, onError: (err: unknown) => void) {
    return pollingSubscription({
      after,
      batchSize: 500,
      pollIntervalMs: 500,
      read: (p, n) => this.shared(`tail:${p.commit}:${p.prepare}:${n}`, () => this.readTail(p, n)),
      onWake: listener => {
        this.wakeups.on('wake', listener);
        return () => this.wakeups.off('wake', listener);
      },
      handler,
      onError,
    });
  }

  /** A tombstone: the events stay in the (append-only) log, and every read path above passes them by. */
  async deleteStream(streamId: string): Promise<void> {
    const { stored, legacy } = streamIdForms(streamId);
    await query(
      this.pool,
      'DeleteStream',
      // a stream without a row (short-lived) gets one, at its last event's revision; under each of its ids, so that
      // readers pass by its events of either form (liveStream)
      `insert into es_streams (stream_id, revision, deleted)
       select f.id, coalesce(h.revision, -1), true
       from es_stream_head($1, $2) h, unnest(array_remove(array[$1, $2], null)) as f(id)
       on conflict (stream_id) do update set deleted = true`,
      [stored, legacy],
    );
  }

  async streamIds(prefix: string): Promise<string[]> {
    const result = await query<{ stream_id: string }>(
      this.pool,
      'ReadStreamIds',
      'select stream_id from es_streams where starts_with(stream_id, $1) and not deleted and revision >= 0',
      [prefix],
    );
    return result.rows.map(r => longIds(r.stream_id));
  }

  async headPosition(): Promise<Position> {
    const result = await preparedQuery<{ position: string; transaction_id: string }>(
      this.pool,
      'ReadHeadPosition',
      `select position::text, transaction_id::text from es_events where ${liveStream('es_events.stream_id')}
       order by es_events.transaction_id desc, es_events.position desc limit 1`,
    );
    const row = result.rows[0];
    return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) } : START;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    this.wakeups.removeAllListeners();
    if (this.listener) {
      await this.listener.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
      this.listener.release();
      this.listener = null;
    }
  }
}
