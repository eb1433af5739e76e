import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { order } from '../../src/domain/payments-order.ts';
import { payment } from '../../src/domain/payments.ts';
import { Payables } from '../../src/domain/payments-payables.ts';
import {
  findPayable,
  heldAt,
  matchCredit,
  payablesOf,
  receiving,
  type Payable,
  type Receiving,
  type ReceivingCommand,
} from '../../src/domain/payments-receiving.ts';
import { DomainError } from '../../src/errors.ts';
import { OrderPaymentOpened } from '../../src/events/payments-order.ts';
import { PaymentCreated, PaymentExpired, PaymentMethodChosen } from '../../src/events/payments.ts';
import { PayableReleased, PayableReserved } from '../../src/events/payments-receiving.ts';
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

describe('receiving decider (virtual accounts)', () => {
  const given = specification(receiving);
  const number = (n: number) => `88810000000${String(n).padStart(5, '0')}`;
  const reserve = (id: string, vaNumber: string, now = at(0), amount = 50_000): ReceivingCommand => ({
    type: 'ReservePayable',
    accountId,
    paymentId: id,
    amount,
    vaNumber,
    expiresAt: at(60),
    now,
  });
  const onNumber = (id: string, vaNumber: string, expiresAt = at(60), reservedAt = t0, amount = 50_000) =>
    PayableReserved({
      accountId,
      paymentId: id,
      uniqueCode: 0,
      totalAmount: amount,
      vaNumber,
      expiresAt: expiresAt.toISOString(),
      reservedAt: reservedAt.toISOString(),
    });
  /** A unique-code bill as the receiving stream held them before claims: still folded, never reserved there now. */
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
  const released = (id: string) =>
    PayableReleased({ accountId, paymentId: id, reason: 'completed', releasedAt: t0.toISOString() });

  it("holds a virtual account's number: no code, the amount as its total", () => {
    given([])
      .when(reserve('a', number(1)))
      .then([onNumber('a', number(1))]);
  });

  it('appends nothing for a retried reservation', () => {
    given([onNumber('a', number(1))])
      .when(reserve('a', number(1)))
      .then([]);
  });

  it('refuses a VA number a pending payable holds', () => {
    given([onNumber('v', number(1))])
      .when(reserve('w', number(1)))
      .thenThrows('VA_NUMBER_TAKEN');
  });

  it('reuses a number once the payable holding it lapsed', () => {
    given([onNumber('a', number(1), at(30))])
      .when(reserve('b', number(1), at(30)))
      .then([onNumber('b', number(1), at(60), at(30))]);
  });

  it('reuses a number once the payable holding it was released', () => {
    given([onNumber('a', number(1)), released('a')])
      .when(reserve('b', number(1)))
      .then([onNumber('b', number(1))]);
  });

  it('folds the unique-code bills reserved before claims as it did: kept until released, holding no number', () => {
    const state = [reserved('a', 7), onNumber('b', number(1))].reduce(receiving.evolve, receiving.initialState());
    expect(findPayable(state, 'a')).toMatchObject({ uniqueCode: 7, totalAmount: 50_007, vaNumber: null });
    expect(findPayable(receiving.evolve(state, released('a')), 'a')).toBeUndefined();
    given([reserved('a', 7)])
      .when(reserve('c', number(7), at(0), 50_007))
      .then([onNumber('c', number(7), at(60), t0, 50_007)]);
  });

  describe('lapsed payables, dropped at most once a minute', () => {
    const seconds = (s: number) => new Date(t0.getTime() + s * 1000);
    const reservedAt = (id: string, n: number, when: Date, expiresAt: Date) => onNumber(id, number(n), expiresAt, when);
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

    it('hold no number while kept', () => {
      given([a, b, c])
        .when(reserve('x', number(2), seconds(640)))
        .then([onNumber('x', number(2), at(60), seconds(640))]);
    });

    it('are dropped by a reservation a minute after the last drop', () => {
      expect(ids([a, b, c, d])).toEqual(['c', 'd']);
    });
  });

  const decided = (state: Receiving, command: ReceivingCommand) => {
    try {
      return receiving.decide(state, command);
    } catch (err) {
      return err instanceof DomainError ? err.code : err;
    }
  };

  it("frees a released payable's number at once, on the state that reserved it", () => {
    let state = [onNumber('a', number(1)), onNumber('b', number(2))].reduce(receiving.evolve, receiving.initialState());
    expect(decided(state, reserve('x', number(1)))).toBe('VA_NUMBER_TAKEN'); // builds the lookups
    state = receiving.evolve(state, released('a'));
    expect(receiving.decide(state, reserve('x', number(1)))).toEqual([onNumber('x', number(1))]);
    expect(
      receiving.decide(state, { type: 'ReleasePayable', paymentId: 'a', reason: 'completed', now: at(1) }),
    ).toEqual([]);
  });

  it('is an immutable value: a state answers the same after a later state took its lookups over', () => {
    const before = [onNumber('a', number(1)), onNumber('b', number(2))].reduce(
      receiving.evolve,
      receiving.initialState(),
    );
    expect(findPayable(before, 'a')?.vaNumber).toBe(number(1)); // builds the lookups
    const after = receiving.evolve(before, released('a'));
    expect(findPayable(after, 'a')).toBeUndefined();
    expect(findPayable(before, 'a')?.vaNumber).toBe(number(1));
    expect(decided(before, reserve('x', number(1)))).toBe('VA_NUMBER_TAKEN');
    expect(receiving.decide(after, reserve('x', number(1)))).toEqual([onNumber('x', number(1))]);
  });

  it('keeps reservation order across its chunks, through releases that empty one', () => {
    const many = Array.from({ length: 130 }, (_, i) => onNumber(`p${i}`, number(i)));
    const events = [...many, ...many.slice(64, 128).map(e => released(e.data.paymentId)), reserved('last', 500)];
    const state = events.reduce(receiving.evolve, receiving.initialState());
    const expected = [...many.slice(0, 64), ...many.slice(128)].map(e => e.data.paymentId).concat('last');
    expect(payablesOf(state).map(p => p.paymentId)).toEqual(expected);
    expect(payablesOf(fromSnapshot(state)).map(p => p.paymentId)).toEqual(expected);
    // a released number is free again, a held one is not, whether the lookups were moved along or built afresh
    for (const on of [state, fromSnapshot(state)]) {
      expect(receiving.decide(on, reserve('x', number(65)))).toEqual([onNumber('x', number(65))]);
      expect(decided(on, reserve('y', number(63)))).toBe('VA_NUMBER_TAKEN');
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
        .map((id, i) => (i % 2 ? onNumber(id, number(i)) : reserved(id, (i % 999) + 1, 50_000 + Math.floor(i / 999))))
        .reduce(receiving.evolve, receiving.initialState());
      const held = new Set(ids);
      for (const i of releases) {
        state = receiving.evolve(state, released(ids[i]!));
        held.delete(ids[i]!);
        expect(findPayable(state, ids[i]!)).toBeUndefined();
      }
      expect(payablesOf(state).map(p => p.paymentId)).toEqual(ids.filter(id => held.has(id)));
    },
  );

  const step = fc.record({
    amount: fc.constantFrom(10_000, 10_001, 10_002, 25_000),
    advance: fc.integer({ min: 0, max: 10 }),
    lifetime: fc.constantFrom(5, 30, 600),
    // two lengths of number, so a credit's reference is looked up by the lengths still held
    va: fc.constantFrom(number(1), number(2), number(3), '7771', '7772'),
    release: fc.boolean(),
  });
  const references = [`VA ${number(1)}`, `${number(2)}`, `x${number(3)}y`, 'VA 7771', '7772 7771', null];
  test.prop([fc.array(step, { maxLength: 120 })])(
    'holds exactly the reserved, unreleased, unlapsed payables, never two with the same VA number, and decides and matches as it would from a snapshot',
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
                expiresAt: new Date(now.getTime() + s.lifetime * 60_000),
                now,
              };
        // the same decision from the state as a snapshot brings it back (no lookups carried over from earlier states)
        const events = decided(state, command);
        expect(decided(fromSnapshot(state), command)).toEqual(events);
        if (Array.isArray(events)) state = events.reduce(receiving.evolve, state);
        for (const e of Array.isArray(events) ? events : [])
          if (e.type === 'PayableReserved') model.set(e.data.paymentId, e.data.expiresAt);
          else model.delete(e.data.paymentId);
        const held = heldAt(state, now.toISOString());
        const modelHeld = [...model].filter(([, expiresAt]) => expiresAt > now.toISOString()).map(([id]) => id);
        expect(held.map(p => p.paymentId).sort()).toEqual(modelHeld.sort());
        const vaNumbers = held.map(p => p.vaNumber);
        expect(new Set(vaNumbers).size).toBe(vaNumbers.length);
        // a credit finds the same bill whether the lookups were moved along or built afresh
        for (const reference of references) {
          const credit = { amount: s.amount, reference, occurredAt: now.toISOString() };
          expect(matchCredit(state, credit)).toEqual(matchCredit(fromSnapshot(state), credit));
        }
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
  /** The matching as first written: a sorted copy, payables still held when the money was booked first; VA bills only. */
  const sortedMatch = (payables: Payable[], credit: Parameters<typeof matchCredit>[1]) => {
    const ordered = [...payables].sort(
      (a, b) => Number(b.expiresAt >= credit.occurredAt) - Number(a.expiresAt >= credit.occurredAt),
    );
    const reference = credit.reference ?? '';
    return (
      ordered.find(p => p.vaNumber !== null && reference.includes(p.vaNumber) && p.totalAmount === credit.amount) ??
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

  it('matches no unique-code bill the receiving stream holds from before claims (its claim is where it is found)', () => {
    expect(matchCredit(both(), { amount: 10_001, reference: null, occurredAt: t0.toISOString() })).toBeNull();
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
