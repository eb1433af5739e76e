import type pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { query, type Queryable } from '../../src/db/pool.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import { definitionOf, parseRecorded, type DomainEvent, type StoredEvent } from '../../src/events/event.ts';
import { applyEvents, handlesType, type Projection } from '../../src/projections/projection.ts';
import { PrivateSchema } from '../../src/projections/replay.ts';
import type { EventMetadata, RecordedEvent } from '../../src/store/event-store.ts';
import { freshPool } from './database.ts';

/**
 * An event of a scenario: a typed domain event, optionally with the stream it was appended to (one stream per scenario
 * if not said) and metadata of its own (a fixed `occurredAt`, an `eventId` to deliver it again).
 */
export type SpecEvent = AnyEvent & { streamId?: string; metadata?: Partial<EventMetadata> };

/** A read function of the service's (findPayment, listMutations, ...), asked on the scenario's read model. */
export type ReadFunction<T> = (db: Queryable) => Promise<T>;

export type Outcome = {
  /** The SQL answers exactly these rows (as pg returns them: dates as Date, bigint as number). */
  then(sql: string, expected: Record<string, unknown>[]): Promise<void>;
  /** The read function answers exactly `expected`. */
  then<T>(read: ReadFunction<T>, expected: T): Promise<void>;
};

const recordedAt = '2026-03-02T03:00:00.000Z';

/**
 * given(past events).when(new events).then(a query of the read model, what it answers) for a projection, against
 * embedded PostgreSQL: each scenario in a schema of its own (the replay's PrivateSchema, on one database per test file),
 * its tables made by the projection's own migration steps, its events stored as the log hands them over (serialized,
 * then parsed and upcast by their declarations) and applied through `applyEvents`, each list in a transaction of its
 * own as the live runner applies a batch, only the types the projection handles. Registers the beforeAll and afterAll
 * of a database of its own: call it at the top of a describe (or of the file), not inside a test.
 */
export function projectionSpec(projection: Projection) {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = await freshPool(4);
  });
  afterAll(() => pool?.end());

  const run = async <T>(batches: SpecEvent[][], look: (db: pg.PoolClient) => Promise<T>): Promise<T> => {
    const schema = await PrivateSchema.open(pool, 'verify');
    try {
      const db = schema.client;
      for (const [i, step] of projection.schema.entries())
        await query(db, `CreateReadModel:${projection.name}:${i + 1}`, step);
      for (const batch of stored(batches)) {
        await query(db, 'BeginSpecBatch', 'begin');
        try {
          await applyEvents(
            db,
            projection,
            batch.filter(e => handlesType(projection, e.type)),
          );
          await query(db, 'CommitSpecBatch', 'commit');
        } catch (err) {
          await query(db, 'RollbackSpecBatch', 'rollback');
          throw err;
        }
      }
      return await look(db);
    } finally {
      await schema.close();
    }
  };

  const outcome = (given: SpecEvent[], when: SpecEvent[]): Outcome => ({
    then: <T>(read: string | ReadFunction<T>, expected: T | Record<string, unknown>[]) =>
      run<unknown>([given, when], db => (typeof read === 'string' ? rowsOf(db, read) : read(db))).then(actual =>
        expect(actual).toEqual(expected),
      ),
  });

  return {
    given: (given: SpecEvent[]) => ({ when: (when: SpecEvent[]) => outcome(given, when) }),
  };
}

const rowsOf = async (db: Queryable, sql: string) => (await db.query(sql)).rows as Record<string, unknown>[];

/**
 * The batches' events as the store hands them over: numbered in the log in order, each stream's revisions counted from
 * 0, the payload through JSON and parsed by its declaration. An event whose metadata repeats an earlier event's
 * `eventId` is that event delivered again: same position, stream and revision, as a redelivery brings it.
 */
function stored(batches: SpecEvent[][]): StoredEvent<AnyEvent>[][] {
  const revisions = new Map<string, number>();
  const delivered = new Map<string, RecordedEvent>();
  let commit = 0n;
  return batches.map(batch =>
    batch.map(({ streamId = 'spec-stream', metadata, ...event }) => {
      const again = metadata?.eventId ? delivered.get(metadata.eventId) : undefined;
      const recorded = again ?? record(event, streamId, metadata, ++commit, revisions);
      delivered.set(recorded.metadata.eventId, recorded);
      return parseRecorded(recorded) as StoredEvent<AnyEvent>;
    }),
  );
}

function record(
  event: DomainEvent,
  streamId: string,
  metadata: Partial<EventMetadata> | undefined,
  commit: bigint,
  revisions: Map<string, number>,
): RecordedEvent {
  const definition = definitionOf(event.type);
  if (!definition) throw new Error(`${event.type} is not a declared event`);
  const revision = revisions.get(streamId) ?? 0;
  revisions.set(streamId, revision + 1);
  return {
    type: event.type,
    version: definition.version,
    data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>,
    metadata: {
      eventId: `00000000-0000-4000-a000-${commit.toString(16).padStart(12, '0')}`,
      correlationId: '00000000-0000-4000-b000-000000000000',
      causationId: null,
      actor: 'test',
      occurredAt: recordedAt,
      ...metadata,
    },
    streamId,
    revision,
    position: { commit, prepare: commit },
  };
}
