import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/commands/deps.ts';
import { PaymentCompleted, PaymentExpired } from '../../src/events/payments.ts';
import { projections } from '../../src/projections/all.ts';
import { paymentsProjection } from '../../src/projections/payments.ts';
import { projection, type Handler } from '../../src/projections/projection.ts';
import { stored } from '../sagas/reaction-specification.ts';

const paymentId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const at = { streamId: `payment-${paymentId}`, revision: 1 };
const expired = stored(
  PaymentExpired({ paymentId, ownerId, receivingAccountId: null, expiredAt: '2026-03-02T03:00:00.000Z' }),
  at,
);
const completed = stored(
  PaymentCompleted({
    paymentId,
    ownerId,
    orderId: 'order-1',
    type: 'QRIS',
    amount: 10_000,
    totalAmount: 10_123,
    receivingAccountId: ownerId,
    mutationId: paymentId,
    paidAt: '2026-03-02T03:00:00.000Z',
    completedAt: '2026-03-02T03:00:00.000Z',
    gateway: null,
  }),
  at,
);
// no handler here reads or writes: the transaction is never asked
const tx = {} as pg.PoolClient;

const onCompleted: Handler<'PaymentCompleted'> = async () => undefined;

describe('a projection', () => {
  it('handles the event types it has a handler for, and no other', () => {
    const p = projection({
      name: 'test',
      tables: [],
      schema: [''],
      on: { PaymentCompleted: onCompleted, PaymentExpired: async () => undefined },
    });
    expect(p.handles).toEqual(['PaymentCompleted', 'PaymentExpired']);
  });

  it("applies an event with its type's handler, and an event of a type it has none for not at all", async () => {
    const seen: string[] = [];
    const p = projection({
      name: 'test',
      tables: [],
      schema: [''],
      on: { PaymentExpired: async (_, event) => void seen.push(event.data.expiredAt) },
    });
    await p.apply(tx, expired);
    await p.apply(tx, completed);
    expect(seen).toEqual([expired.data.expiredAt]);
  });

  it("refuses at compile time a handler under another event type's key", () => {
    // @ts-expect-error PaymentCompleted's handler reads data PaymentExpired does not have
    const mismatched = projection({ name: 'test', tables: [], schema: [''], on: { PaymentExpired: onCompleted } });
    expect(mismatched.handles).toEqual(['PaymentExpired']);
  });

  it('refuses at compile time an event type that does not exist, and a run of a type it has no handler for', () => {
    const unknown = projection({
      name: 'test',
      tables: [],
      schema: [''],
      // @ts-expect-error no event is called PaymentExpird
      on: { PaymentExpird: async () => undefined },
    });
    const strayRun = projection({
      name: 'test',
      tables: [],
      schema: [''],
      on: { PaymentCompleted: onCompleted },
      // @ts-expect-error PaymentExpired has no handler in `on`
      applyRun: { PaymentExpired: () => ({ name: 'Nothing', sql: 'select 1', params: [] }) },
    });
    // the compiler is the guard: at run time a projection takes what it is given
    expect(unknown.handles).toEqual(['PaymentExpird']);
    expect(Object.keys(strayRun.applyRun!)).toEqual(['PaymentExpired']);
  });
});

describe("the service's read models", () => {
  it('each handles exactly the event types of its handlers', () => {
    for (const p of projections.filter(p => p.on))
      expect({ [p.name]: p.handles }).toEqual({ [p.name]: Object.keys(p.on!) });
  });

  it('are each declared by their handlers, none written by hand', () => {
    expect(projections.filter(p => !p.on).map(p => p.name)).toEqual([]);
  });

  it('batch runs only of event types they have a handler for', () => {
    for (const p of projections.filter(p => p.applyRun && p.on))
      for (const type of Object.keys(p.applyRun!)) expect({ [p.name]: type in p.on! }).toEqual({ [p.name]: true });
  });
});

describe('waiting for read models', () => {
  it('names them by their projections, so a misspelt one is a compile error, not a wait for nothing', async () => {
    const readModels: CommandDeps['readModels'] = { waitFor: async () => true };
    expect(await readModels.waitFor(null, undefined, [paymentsProjection])).toBe(true);
    // @ts-expect-error a read model's name is not the read model
    await readModels.waitFor(null, undefined, ['payments']);
  });
});
