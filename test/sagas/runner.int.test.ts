import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decider } from '../../src/domain/decider.ts';
import { handleCommand } from '../../src/store/commands/handle.ts';
import { query } from '../../src/db/pool.ts';
import { event, type EventOf } from '../../src/events/event.ts';
import { createLogger } from '../../src/logger.ts';
import { sagaEventId } from '../../src/ids.ts';
import { SagaRunner, type Saga } from '../../src/sagas/runner.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const OrderPlaced = event('TestOrderPlaced', 1, z.object({ orderId: z.string() }));
const ReceiptIssued = event('TestReceiptIssued', 1, z.object({ orderId: z.string() }));
type ReceiptEvent = EventOf<typeof ReceiptIssued>;
const receipt: Decider<{ issued: boolean }, { type: 'IssueReceipt'; orderId: string }, ReceiptEvent> = {
  initialState: () => ({ issued: false }),
  evolve: () => ({ issued: true }),
  decide: (s, c) => (s.issued ? [] : [ReceiptIssued({ orderId: c.orderId })]),
};

let pool: Awaited<ReturnType<typeof freshPool>>;
let store: PostgresEventStore;
const log = createLogger('silent');
const now = new Date('2026-01-05T03:00:00.000Z');

/** The receipts saga; `handled` records each order it was handed (a runner of its own, as in a process of its own). */
const receiptsSaga = (handled: string[] = []): Saga => ({
  name: 'test-receipts',
  handles: ['TestOrderPlaced'],
  async handle(e) {
    const { orderId } = e.data as unknown as { orderId: string };
    handled.push(orderId);
    await handleCommand(
      { store },
      `receipt-${orderId}`,
      receipt,
      { type: 'IssueReceipt', orderId },
      {
        actor: 'system:test-receipts',
        now,
        causationId: e.metadata.eventId,
        correlationId: e.metadata.correlationId,
        eventId: i => sagaEventId('test-receipts', e.metadata.eventId, i),
      },
    );
  },
});

beforeAll(async () => {
  pool = await freshPool();
  store = await PostgresEventStore.create(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
});

async function receiptsFor(orderIds: string[]) {
  const counts = await Promise.all(orderIds.map(async id => (await store.readStream(`receipt-${id}`)).length));
  return counts;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise(r => setTimeout(r, 20));
  }
}

describe('saga runner', () => {
  it('reacts to each event once, and a re-delivery after a lost checkpoint appends nothing new', async () => {
    const runner = new SagaRunner({ pool, store, log }, [receiptsSaga()]);
    await runner.start();
    const orderIds = Array.from({ length: 10 }, () => nextUuid());
    for (const orderId of orderIds)
      await store.append(`order-${orderId}`, [{ ...OrderPlacedEvent(orderId) }], 'no_stream');
    await eventually(async () => (await receiptsFor(orderIds)).every(n => n === 1));
    await runner.stop();

    // the checkpoint is lost (as after a crash between effect and checkpoint): everything is delivered again
    await query(pool, 'ForgetCheckpoint', `delete from subscriber_checkpoints where name = 'saga:test-receipts'`);
    const again = new SagaRunner({ pool, store, log }, [receiptsSaga()]);
    await again.start();
    const head = await store.headPosition();
    await eventually(async () => {
      const r = await query<{ commit_position: string }>(
        pool,
        'ReadCheckpointForTest',
        `select commit_position::text from subscriber_checkpoints where name = 'saga:test-receipts'`,
      );
      return r.rows[0] !== undefined && BigInt(r.rows[0].commit_position) >= head.commit;
    });
    await again.stop();
    expect(await receiptsFor(orderIds)).toEqual(orderIds.map(() => 1));
    const receiptEvents = await store.readStream(`receipt-${orderIds[0]}`);
    expect(receiptEvents[0]!.metadata.actor).toBe('system:test-receipts');
  });

  it('lets only one runner of a saga lead at a time; the other takes over when it stops', async () => {
    // two runners of one saga on one database, as two processes would have: each hands events to a saga of its own
    const handledBy = { first: [] as string[], second: [] as string[] };
    const first = new SagaRunner({ pool, store, log }, [receiptsSaga(handledBy.first)]);
    const second = new SagaRunner({ pool, store, log }, [receiptsSaga(handledBy.second)]);
    const leading = () =>
      Object.entries({ first, second })
        .filter(([, r]) => r.health()[0]!.health.state === 'leading')
        .map(([name]) => name);
    await first.start();
    await second.start();
    expect(leading()).toEqual(['first']);
    expect(second.health()[0]!.health.state).toBe('standby');

    const early = Array.from({ length: 5 }, () => nextUuid());
    for (const orderId of early) await store.append(`order-${orderId}`, [OrderPlacedEvent(orderId)], 'no_stream');
    await eventually(async () => (await receiptsFor(early)).every(n => n === 1));
    expect(await first.waitFor(await store.headPosition())).toBe(true);
    expect(handledBy).toEqual({ first: early, second: [] }); // each event handed to the saga once, by the leader alone

    await first.stop();
    await eventually(async () => leading().length === 1, 15_000);
    expect(leading()).toEqual(['second']);
    const later = Array.from({ length: 5 }, () => nextUuid());
    for (const orderId of later) await store.append(`order-${orderId}`, [OrderPlacedEvent(orderId)], 'no_stream');
    await eventually(async () => (await receiptsFor(later)).every(n => n === 1));
    expect(await second.waitFor(await store.headPosition())).toBe(true);
    await second.stop();
    expect(handledBy).toEqual({ first: early, second: later });
  });
});

function OrderPlacedEvent(orderId: string) {
  const id = nextUuid();
  return {
    type: OrderPlaced.type,
    version: 1,
    data: { orderId },
    metadata: { eventId: id, correlationId: id, causationId: null, actor: 'test', occurredAt: now.toISOString() },
  };
}
