import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataOfStored, eventShapes, storedData } from '../../src/store/postgres-event-shapes.ts';

const occurredAt = '2026-11-29T20:05:19.081Z';
const paymentId = 'a0ee7e83-cca4-447d-9a5a-aca323c9c38f';
const streamId = `payment-${paymentId}`;

/** What a read gives back of what an append stored: through JSON, as es_events keeps it. */
const roundTrip = (e: { type: string; data: Record<string, unknown> }, stream = streamId, at = occurredAt) =>
  dataOfStored(
    JSON.parse(JSON.stringify(storedData({ ...e, metadata: { occurredAt: at } }, stream))),
    stream,
    () => at,
  );

const created = {
  paymentId,
  ownerId: '815f79d3-3e5a-4978-b2e3-6449bc2f1d84',
  orderId: 'shop-0',
  receivingAccountId: '6d218691-866f-472a-9ea1-83666bce044d',
  providerCode: 'WALLET-D',
  type: 'QRIS-DYNAMIC',
  methodSelection: 'fixed',
  amount: 10000,
  uniqueCode: 975,
  totalAmount: 10975,
  accountNumber: '081900100000',
  qrisPayload: '00020101021226560017ID.CO.SANDBOX.WWW0112081900100000',
  redirectUrl: 'https://shop.example/thanks',
  expiresAt: '2026-11-29T21:05:19.081Z',
  createdAt: occurredAt,
  requestHash: null,
  gateway: null,
};

// JSON values an event's data may hold, undefined included (JSON leaves its key out): uuids in any case, instants of
// any year in any form
const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(paymentId),
  fc.constant(occurredAt),
  fc.uuid(),
  fc.uuid().map(u => u.toUpperCase()),
  fc.date({ noInvalidDate: true }).map(d => d.toISOString()),
  fc.date({ noInvalidDate: true }).map(d => d.toISOString().replace('Z', '+00:00')),
  fc.jsonValue(),
  fc.string(),
);

// an instant of the years toISOString writes with four digits from 1000, as the service's are
const instant = fc
  .date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map(d => d.toISOString());

/** A value for a key of shape `n`, mostly of the form the shape keeps shorter or takes from the row. */
function valueFor(n: number, key: string, stream: string, at: string): fc.Arbitrary<unknown> {
  const s = eventShapes[n]!;
  const kind =
    key === s.fromStream
      ? fc.constant(stream.slice(-36))
      : key === s.fromOccurredAt
        ? fc.constant(at)
        : s.uuids?.includes(key)
          ? fc.oneof(fc.uuid(), fc.constant(null))
          : s.instants?.includes(key)
            ? fc.oneof(instant, fc.constant(null))
            : value;
  return fc.oneof({ arbitrary: kind, weight: 9 }, { arbitrary: value, weight: 1 });
}

/** Undefined nine times in ten. */
const rarely = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: a, weight: 1 });

// data of a shaped type, with the stream it is in and the time of its event: its keys in its order or the other way
// round, maybe a key more or less
const shapedEvent = fc
  .record({ n: fc.integer({ min: 1, max: eventShapes.length - 1 }), id: fc.uuid(), at: instant })
  .chain(({ n, id, at }) => {
    const stream = `stream-${id}`;
    const keys = eventShapes[n]!.keys;
    return fc
      .tuple(
        fc.tuple(...keys.map(k => valueFor(n, k, stream, at))),
        rarely(fc.tuple(fc.string(), value)),
        rarely(fc.integer({ min: 0, max: keys.length - 1 })),
        fc.integer({ min: 0, max: 9 }),
      )
      .map(([values, extra, dropped, order]) => {
        const data: Record<string, unknown> = {};
        const entries = keys.map((k, i) => [k, values[i]] as const).filter((_, i) => i !== dropped);
        for (const [k, v] of order === 0 ? entries.reverse() : entries) data[k] = v;
        if (extra) data[extra[0]] = extra[1];
        return { e: { type: eventShapes[n]!.type, data }, stream, at };
      });
  });

describe('event data as es_events stores it', () => {
  it('a payment as the service creates it is stored as its shape, without its keys, id or time', () => {
    const stored = storedData({ type: 'PaymentCreated', data: created, metadata: { occurredAt } }, streamId);
    expect(stored).toEqual([
      1,
      'gV950z5aSXiy42RJvC8dhA', // ownerId: its 16 bytes
      'shop-0',
      'bSGGkYZvRyqeoYNma84ETQ', // receivingAccountId
      'WALLET-D',
      'QRIS-DYNAMIC',
      'fixed',
      10000,
      975,
      10975,
      '081900100000',
      created.qrisPayload,
      'https://shop.example/thanks',
      Date.parse(created.expiresAt),
      null,
      null,
    ]);
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(created).length * 0.5);
    expect(roundTrip({ type: 'PaymentCreated', data: created })).toEqual(created);
  });

  it('keeps the data as it is when a value is not what the row holds already', () => {
    const otherId = { ...created, paymentId: '00000000-0000-4000-8000-000000000000' };
    expect(storedData({ type: 'PaymentCreated', data: otherId, metadata: { occurredAt } }, streamId)).toEqual(otherId);
    const otherTime = { ...created, createdAt: '2026-11-29T20:05:19.082Z' };
    expect(storedData({ type: 'PaymentCreated', data: otherTime, metadata: { occurredAt } }, streamId)).toEqual(
      otherTime,
    );
  });

  it('keeps the keys in the order they came, whatever the shape', () => {
    const { paymentId: id, ...rest } = created;
    const reordered = { ...rest, paymentId: id };
    expect(storedData({ type: 'PaymentCreated', data: reordered, metadata: { occurredAt } }, streamId)).toEqual(
      reordered,
    );
    expect(Object.keys(roundTrip({ type: 'PaymentCreated', data: reordered }))).toEqual(Object.keys(reordered));
  });

  it('reads back every data as appended, shaped or not (fast-check)', () => {
    let shaped = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          { arbitrary: shapedEvent, weight: 4 },
          fc.record({
            e: fc.record({ type: fc.string(), data: fc.dictionary(fc.string(), value) }),
            stream: fc.constantFrom(streamId, 'payment-x'),
            at: instant,
          }),
        ),
        ({ e, stream, at }) => {
          const asJson = JSON.parse(JSON.stringify(e.data));
          const back = roundTrip(e, stream, at);
          expect(back).toEqual(asJson);
          expect(Object.keys(back)).toEqual(Object.keys(asJson));
          if (Array.isArray(storedData({ ...e, metadata: { occurredAt: at } }, stream))) shaped++;
        },
      ),
      { numRuns: 3000 },
    );
    // most of the shaped types' data fits its shape
    expect(shaped).toBeGreaterThan(500);
  });

  it('keeps data that is an array as it is', () => {
    const data = [1, 'two'] as unknown as Record<string, unknown>;
    expect(roundTrip({ type: 'PaymentCreated', data })).toEqual([1, 'two']);
  });

  it('refuses a stored shape it does not know, or values that do not fit it', () => {
    expect(() => dataOfStored([eventShapes.length, 1], streamId, () => occurredAt)).toThrow(/unknown shape/);
    expect(() => dataOfStored([3, 'gV950z5aSXiy42RJvC8dhA'], streamId, () => occurredAt)).toThrow(/with 1 values/);
    // a value of another form (changed in the database) is read as it is, for the audit's verification to find
    expect(dataOfStored([3, 5, 'not a uuid'], streamId, () => occurredAt)).toEqual({
      paymentId,
      ownerId: 5,
      receivingAccountId: 'not a uuid',
      expiredAt: occurredAt,
    });
  });

  it('a released shape never changes: stored rows name it by its number', () => {
    // add new shapes at the end; these are the shapes released so far
    const released = 10;
    const digest = createHash('sha256')
      .update(JSON.stringify(eventShapes.slice(0, released)))
      .digest('hex');
    expect(eventShapes.length).toBeGreaterThanOrEqual(released);
    expect(digest).toBe('c8073a4f48260fccdfa168485d4c9fd76e80291c0f9753d0b24b044824b0c75d');
  });
});
