import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { order } from '../../src/domain/payments-order.ts';
import { payment } from '../../src/domain/payments.ts';
import { Payables } from '../../src/domain/payments-payables.ts';
import {
  findPayable,
  heldAt,
  matchCredit,
  maxUniqueCode,
  payablesOf,
  receiving,
  type Payable,
  type Receiving,
  type ReceivingCommand,
} from '../../src/domain/payments-receiving.ts';
import { DomainError } from '../../src/errors.ts';
import { OrderPaymentOpened } from '../../src/events/order.ts';
import { PaymentCreated, PaymentExpired, PaymentMethodChosen } from '../../src/events/payment.ts';
import { PayableReleased, PayableReserved } from '../../src/events/receiving.ts';
import { specification } from '../support/decider.ts';
import {
  accountId,
  mutationId,
  ownerId,
  paymentCompleted,
  paymentDetails,
  paymentId,
} from '../support/payment-fixtures.ts';

const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const details = paymentDetails();
const created = PaymentCreated(details);
const expiredAt60 = PaymentExpired({
  paymentId,
  ownerId,
  receivingAccountId: accountId,
  expiredAt: at(60).toISOString(),
});
/** The state as a snapshot gives it back: through JSON, then revived (its lookups built again). */
const fromSnapshot = (state: Receiving): Receiving => receiving.snapshot!.revive!(JSON.parse(JSON.stringify(state)));

describe('payment decider', () => {
  const given = specification(payment);

  it('completes a pending payment with a credit booked before it expired', () => {
    given([created])
      .when({ type: 'CompletePayment', mutationId, paidAt: at(59), now: at(70) })
      .then([paymentCompleted({ paidAt: at(59).toISOString(), completedAt: at(70).toISOString() })]);
  });

  it('ignores a credit booked after expiresAt', () => {
    given([created])
      .when({ type: 'CompletePayment', mutationId, paidAt: at(61), now: at(62) })
      .then([]);
  });

  it('does not expire a payment before expiresAt', () => {
    given([created])
      .when({ type: 'ExpirePayment', now: at(59) })
      .then([]);
  });

  it('expires a payment once expiresAt has passed', () => {
    given([created])
      .when({ type: 'ExpirePayment', now: at(60) })
      .then([PaymentExpired({ paymentId, ownerId, receivingAccountId: accountId, expiredAt: at(60).toISOString() })]);
  });

  it('keeps a completed payment completed: no expiry follows', () => {
    given([created, paymentCompleted({ paidAt: at(1).toISOString(), completedAt: at(2).toISOString() })])
      .when({ type: 'ExpirePayment', now: at(90) })
      .then([]);
  });

  it('keeps an expired payment expired: no completion follows', () => {
    given([created, expiredAt60])
      .when({ type: 'CompletePayment', mutationId, paidAt: at(1), now: at(90) })
      .then([]);
  });

  it('creates a payment once: creating it again records nothing', () => {
    given([created]).when({ type: 'CreatePayment', payment: details }).then([]);
  });

  describe('a payment created without a type (the payer chooses)', () => {
    const open = PaymentCreated({
      ...details,
      type: null,
      methodSelection: 'payer',
      uniqueCode: null,
      totalAmount: null,
      qrisPayload: null,
      gateway: null,
    });
    const method = {
      type: 'VA-BANK1' as const,
      uniqueCode: 0,
      totalAmount: 50_000,
      accountNumber: '8881000000000001',
      qrisPayload: null,
      gateway: null,
    };
    const chosen = PaymentMethodChosen({ paymentId, ...method, chosenAt: at(1).toISOString() });

    it('is billed once the payer chooses the method', () => {
      given([open])
        .when({ type: 'ChoosePaymentMethod', method, now: at(1) })
        .then([chosen]);
    });

    it('records nothing when the same method is chosen again', () => {
      given([open, chosen])
        .when({ type: 'ChoosePaymentMethod', method, now: at(2) })
        .then([]);
    });

    it('refuses another method once one is chosen', () => {
      given([open, chosen])
        .when({ type: 'ChoosePaymentMethod', method: { ...method, type: 'DIRECT' }, now: at(2) })
        .thenThrows('PAYMENT_METHOD_CHOSEN');
    });

    it('refuses a choice after it expired', () => {
      given([open])
        .when({ type: 'ChoosePaymentMethod', method, now: at(60) })
        .thenThrows('PAYMENT_NOT_PENDING');
    });

    it('is not completed by a credit before the method is chosen: nothing to pay yet', () => {
      given([open])
        .when({ type: 'CompletePayment', mutationId, paidAt: at(1), now: at(2) })
        .then([]);
    });
  });

  test.prop([
    fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant('pay' as const),
          paidAt: fc.integer({ min: 0, max: 120 }),
          now: fc.integer({ min: 0, max: 120 }),
        }),
        fc.record({ kind: fc.constant('expire' as const), now: fc.integer({ min: 0, max: 120 }) }),
      ),
      { maxLength: 12 },
    ),
  ])('ends in exactly one of COMPLETED or EXPIRED, whatever the interleaving', steps => {
    let state = payment.evolve(payment.initialState(), created);
    const ends: string[] = [];
    for (const step of steps) {
      const events =
        step.kind === 'pay'
          ? payment.decide(state, { type: 'CompletePayment', mutationId, paidAt: at(step.paidAt), now: at(step.now) })
          : payment.decide(state, { type: 'ExpirePayment', now: at(step.now) });
      ends.push(...events.map(e => e.type));
      state = events.reduce(payment.evolve, state);
    }
    expect(ends.length).toBeLessThanOrEqual(1);
    if (ends[0] === 'PaymentCompleted')
      expect(state.status === 'COMPLETED' && state.paidAt < details.expiresAt).toBe(true);
  });
});

describe('receiving decider (unique payable amounts)', () => {
  const given = specification(receiving);
  const reserve = (
    id: string,
    amount: number,
    firstCode: number,
    now = at(0),
    vaNumber: string | null = null,
  ): ReceivingCommand => ({
    type: 'ReservePayable',
    accountId,
    paymentId: id,
    amount,
    vaNumber,
    firstCode,
    expiresAt: at(60),
    now,
  });
  const reserved = (id: string, uniqueCode: number, amount = 50_000, expiresAt = at(60)) =>
    PayableReserved({
      accountId,
      paymentId: id,
      uniqueCode,
      totalAmount: amount + uniqueCode,
      vaNumber: null,
      expiresAt: expiresAt.toISOString(),
      reservedAt: t0.toISOString(),
    });

  it('skips a code whose total a pending payment holds', () => {
    given([reserved('a', 7)])
      .when(reserve('b', 50_000, 7))
      .then([reserved('b', 8)]);
  });

  it('reuses a code once the payable holding it lapsed', () => {
    given([reserved('a', 7, 50_000, at(30))])
      .when(reserve('b', 50_000, 7, at(30)))
      .then([
        PayableReserved({
          accountId,
          paymentId: 'b',
          uniqueCode: 7,
          totalAmount: 50_007,
          vaNumber: null,
          expiresAt: at(60).toISOString(),
          reservedAt: at(30).toISOString(),
        }),
      ]);
  });

  it('reuses a code once the payable holding it was released', () => {
    given([
      reserved('a', 7),
      PayableReleased({ accountId, paymentId: 'a', reason: 'completed', releasedAt: t0.toISOString() }),
    ])
      .when(reserve('b', 50_000, 7))
      .then([reserved('b', 7)]);
  });

  it('refuses when all 999 codes of an amount are held', () => {
    const full = Array.from({ length: maxUniqueCode }, (_, i) => reserved(`p${i}`, i + 1));
    given(full)
      .when(reserve('x', 50_000, 1))
      .thenThrows('NO_UNIQUE_CODE');
  });

  it('refuses a VA number a pending payable holds', () => {
    const va = PayableReserved({
      accountId,
      paymentId: 'v',
      uniqueCode: 0,
      totalAmount: 10_000,
      vaNumber: '8881000000000001',
      expiresAt: at(60).toISOString(),
      reservedAt: t0.toISOString(),
    });
    given([va])
      .when(reserve('w', 10_000, 1, at(0), '8881000000000001'))
      .thenThrows('VA_NUMBER_TAKEN');
  });

  describe('lapsed payables, dropped at most once a minute', () => {
    const seconds = (s: number) => new Date(t0.getTime() + s * 1000);
    const reservedAt = (id: string, code: number, when: Date, expiresAt: Date) =>
      PayableReserved({
        accountId,
        paymentId: id,
        uniqueCode: code,
        totalAmount: 50_000 + code,
        vaNumber: null,
        expiresAt: expiresAt.toISOString(),
        reservedAt: when.toISOString(),
      });
    const ids = (events: ReturnType<typeof reservedAt>[]) =>
      payablesOf(events.reduce(receiving.evolve, receiving.initialState())).map(p => p.paymentId);
    const a = reservedAt('a', 1, seconds(0), seconds(300));
    const b = reservedAt('b', 2, seconds(600), seconds(605));
    const c = reservedAt('c', 3, seconds(630), seconds(3600));
    const d = reservedAt('d', 4, seconds(661), seconds(3600));

    it('are dropped by a reservation ten minutes after the last drop', () => {
      expect(ids([a, b])).toEqual(['b']);
    });

    it('are kept by a reservation 30 s after the last drop', () => {
      expect(ids([a, b, c])).toEqual(['b', 'c']);
    });

    it('hold no code while kept', () => {
      given([a, b, c])
        .when(reserve('x', 50_000, 2, seconds(640)))
        .then([reservedAt('x', 2, seconds(640), at(60))]);
    });

    it('are dropped by a reservation a minute after the last drop', () => {
      expect(ids([a, b, c, d])).toEqual(['c', 'd']);
    });
  });

  it("frees a released payable's code at once, on the state that reserved it", () => {
    let state = [reserved('a', 7), reserved('b', 8)].reduce(receiving.evolve, receiving.initialState());
    expect(receiving.decide(state, reserve('x', 50_000, 7))).toEqual([reserved('x', 9)]); // builds the lookups
    state = receiving.evolve(
      state,
      PayableReleased({ accountId, paymentId: 'a', reason: 'completed', releasedAt: t0.toISOString() }),
    );
    expect(receiving.decide(state, reserve('x', 50_000, 7))).toEqual([reserved('x', 7)]);
    expect(
      receiving.decide(state, { type: 'ReleasePayable', paymentId: 'a', reason: 'completed', now: at(1) }),
    ).toEqual([]);
  });

  it('is an immutable value: a state answers the same after a later state took its lookups over', () => {
    const before = [reserved('a', 7), reserved('b', 8)].reduce(receiving.evolve, receiving.initialState());
    expect(findPayable(before, 'a')?.uniqueCode).toBe(7); // builds the lookups
    const after = receiving.evolve(
      before,
      PayableReleased({ accountId, paymentId: 'a', reason: 'completed', releasedAt: t0.toISOString() }),
    );
    expect(findPayable(after, 'a')).toBeUndefined();
    expect(findPayable(before, 'a')?.uniqueCode).toBe(7);
    expect(receiving.decide(before, reserve('x', 50_000, 7))).toEqual([reserved('x', 9)]);
    expect(receiving.decide(after, reserve('x', 50_000, 7))).toEqual([reserved('x', 7)]);
  });

  it('keeps reservation order across its chunks, through releases that empty one', () => {
    const many = Array.from({ length: 130 }, (_, i) => reserved(`p${i}`, (i % 999) + 1, 50_000 + Math.floor(i / 999)));
    const released = (id: string) =>
      PayableReleased({ accountId, paymentId: id, reason: 'completed', releasedAt: t0.toISOString() });
    const events = [
      ...many,
      ...many.slice(64, 128).map(e => released(e.data.paymentId)),
      reserved('last', 500, 60_000),
    ];
    const state = events.reduce(receiving.evolve, receiving.initialState());
    const expected = [...many.slice(0, 64), ...many.slice(128)].map(e => e.data.paymentId).concat('last');
    expect(payablesOf(state).map(p => p.paymentId)).toEqual(expected);
    expect(payablesOf(fromSnapshot(state)).map(p => p.paymentId)).toEqual(expected);
    // a released code is free again, a held one is not, whether the lookups were moved along or built afresh
    for (const on of [state, fromSnapshot(state)]) {
      expect(receiving.decide(on, reserve('x', 50_000, 65))).toEqual([reserved('x', 65)]);
      expect(receiving.decide(on, reserve('y', 50_000, 64))).toEqual([reserved('y', 65)]);
    }
  });

  test.prop([
    fc
      .integer({ min: 1, max: 400 })
      .chain(n => fc.tuple(fc.constant(n), fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i)))),
  ])(
    'releases any payable, in any order, from any of many chunks, and keeps the others in reservation order',
    ([n, releases]) => {
      const ids = Array.from({ length: n }, (_, i) => `p${i}`);
      let state = ids
        .map((id, i) => reserved(id, (i % 999) + 1, 50_000 + Math.floor(i / 999)))
        .reduce(receiving.evolve, receiving.initialState());
      const held = new Set(ids);
      for (const i of releases) {
        state = receiving.evolve(
          state,
          PayableReleased({ accountId, paymentId: ids[i]!, reason: 'completed', releasedAt: t0.toISOString() }),
        );
        held.delete(ids[i]!);
        expect(findPayable(state, ids[i]!)).toBeUndefined();
      }
      expect(payablesOf(state).map(p => p.paymentId)).toEqual(ids.filter(id => held.has(id)));
    },
  );

  const step = fc.record({
    amount: fc.constantFrom(10_000, 10_001, 10_002, 25_000),
    firstCode: fc.oneof(fc.integer({ min: 1, max: 999 }), fc.constantFrom(1, 2, 999)),
    advance: fc.integer({ min: 0, max: 10 }),
    lifetime: fc.constantFrom(5, 30, 600),
    va: fc.option(fc.constantFrom('8881000000000001', '8881000000000002'), { freq: 4 }),
    release: fc.boolean(),
  });
  test.prop([fc.array(step, { maxLength: 120 })])(
    'holds exactly the reserved, unreleased, unlapsed payables, never two with the same total (or VA number), and decides as it would from a snapshot',
    steps => {
      let state: Receiving = receiving.initialState();
      const model = new Map<string, string>(); // payment id -> expiresAt: reserved and not released
      let minute = 0; // time moves on, as the commands of one stream see it
      steps.forEach((s, i) => {
        const now = at((minute += s.advance));
        const payables = payablesOf(state);
        const command: ReceivingCommand =
          s.release && payables.length > 0
            ? { type: 'ReleasePayable', paymentId: payables[i % payables.length]!.paymentId, reason: 'completed', now }
            : {
                type: 'ReservePayable',
                accountId,
                paymentId: `p${i}`,
                amount: s.amount,
                vaNumber: s.va,
                firstCode: s.firstCode,
                expiresAt: new Date(now.getTime() + s.lifetime * 60_000),
                now,
              };
        const decideOn = (on: Receiving) => {
          try {
            return receiving.decide(on, command);
          } catch (err) {
            return err instanceof DomainError ? err.code : err;
          }
        };
        // the same decision from the state as a snapshot brings it back (no lookups carried over from earlier states)
        const events = decideOn(state);
        expect(decideOn(fromSnapshot(state))).toEqual(events);
        if (Array.isArray(events)) state = events.reduce(receiving.evolve, state);
        for (const e of Array.isArray(events) ? events : [])
          if (e.type === 'PayableReserved') model.set(e.data.paymentId, e.data.expiresAt);
          else model.delete(e.data.paymentId);
        const held = heldAt(state, now.toISOString());
        const modelHeld = [...model].filter(([, expiresAt]) => expiresAt > now.toISOString()).map(([id]) => id);
        expect(held.map(p => p.paymentId).sort()).toEqual(modelHeld.sort());
        const totals = held.filter(p => p.vaNumber === null).map(p => p.totalAmount);
        const vaNumbers = held.filter(p => p.vaNumber !== null).map(p => p.vaNumber);
        expect(new Set(totals).size).toBe(totals.length);
        expect(new Set(vaNumbers).size).toBe(vaNumbers.length);
      });
    },
  );
});

describe('order decider', () => {
  const given = specification(order);
  const opened = OrderPaymentOpened({ ownerId, orderId: 'INV-1', paymentId, openedAt: t0.toISOString() });
  const open = (id: string, previous: 'pending' | 'paid' | 'unpaid') => ({
    type: 'OpenOrderPayment' as const,
    ownerId,
    orderId: 'INV-1',
    paymentId: id,
    previous,
    now: at(1),
  });

  it('refuses a second payment while the order has one pending', () => {
    given([opened]).when(open(mutationId, 'pending')).thenThrows('ORDER_PENDING');
  });

  it('opens a new payment once the last ended unpaid', () => {
    given([opened])
      .when(open(mutationId, 'unpaid'))
      .then([OrderPaymentOpened({ ownerId, orderId: 'INV-1', paymentId: mutationId, openedAt: at(1).toISOString() })]);
  });

  it('opens the same payment again idempotently: nothing new recorded', () => {
    given([opened]).when(open(paymentId, 'pending')).then([]);
  });

  it('never bills a paid order again', () => {
    given([opened]).when(open(mutationId, 'paid')).thenThrows('ORDER_ALREADY_PAID');
  });
});

describe('credit matching', () => {
  /** An account holding these payables, in chunks of `size`. */
  const holding = (payables: Payable[], size = 64): Receiving => ({
    accountId,
    payables: Payables.fromJSON({
      chunks: Array.from({ length: Math.ceil(payables.length / size) }, (_, i) =>
        payables.slice(i * size, (i + 1) * size),
      ),
      droppedAt: null,
    }),
  });
  /** The matching as first written: a sorted copy, payables still held when the money was booked first. */
  const sortedMatch = (payables: Payable[], credit: Parameters<typeof matchCredit>[1]) => {
    const ordered = [...payables].sort(
      (a, b) => Number(b.expiresAt >= credit.occurredAt) - Number(a.expiresAt >= credit.occurredAt),
    );
    const reference = credit.reference ?? '';
    return (
      ordered.find(p => p.vaNumber !== null && reference.includes(p.vaNumber) && p.totalAmount === credit.amount) ??
      ordered.find(p => p.vaNumber === null && p.totalAmount === credit.amount) ??
      null
    );
  };
  const payableArb = fc.record({
    paymentId: fc.uuid(),
    uniqueCode: fc.integer({ min: 0, max: 3 }),
    totalAmount: fc.constantFrom(10_000, 10_001, 10_002),
    vaNumber: fc.option(fc.constantFrom('8881000000000001', '8881000000000002')),
    expiresAt: fc.constantFrom(at(-1), at(0), at(1)).map(d => d.toISOString()),
  });
  const creditArb = fc.record({
    amount: fc.constantFrom(10_000, 10_001, 10_002, 10_003),
    reference: fc.option(fc.constantFrom('VA 8881000000000001', '8881000000000002', 'transfer')),
    occurredAt: fc.constant(t0.toISOString()),
  });
  test.prop([fc.array(payableArb, { maxLength: 12 }), creditArb, fc.integer({ min: 1, max: 5 })])(
    'picks, from its lookups, the payable a pass over a sorted copy picked',
    (payables, credit, size) => {
      expect(matchCredit(holding(payables, size), credit)).toBe(sortedMatch(payables, credit));
    },
  );

  const payable = (
    paymentId: string,
    totalAmount: number,
    vaNumber: string | null = null,
    expiresAt = at(60).toISOString(),
  ) => ({ paymentId, uniqueCode: 1, totalAmount, vaNumber, expiresAt });

  const both = () => holding([payable('qr', 10_001), payable('va', 10_001, '8882000000000009')]);

  it('matches a virtual account by its number in the reference and its total', () => {
    const payables = both();
    expect(
      matchCredit(payables, { amount: 10_001, reference: 'VA 8882000000000009', occurredAt: t0.toISOString() })
        ?.paymentId,
    ).toBe('va');
  });

  it('matches a payment without a VA number by its total alone', () => {
    expect(matchCredit(both(), { amount: 10_001, reference: null, occurredAt: t0.toISOString() })?.paymentId).toBe(
      'qr',
    );
  });

  it('matches nothing for a total no payable holds', () => {
    expect(matchCredit(both(), { amount: 10_002, reference: null, occurredAt: t0.toISOString() })).toBeNull();
  });

  it("matches no virtual account whose number is named but whose total is not the credit's", () => {
    expect(
      matchCredit(holding([payable('va', 5_000, '8882000000000009')]), {
        amount: 5_001,
        reference: '8882000000000009',
        occurredAt: t0.toISOString(),
      }),
    ).toBeNull();
  });
});
