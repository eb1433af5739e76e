import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  gatewayLedger,
  ledgerAccount,
  merchantBalance,
  type GatewayLedger,
  type GatewayLedgerCommand,
} from '../../src/domain/gateway-ledger.ts';
import { DomainError } from '../../src/errors.ts';
import { serialise } from '../../src/events/event.ts';
import {
  BalanceSettled,
  GatewayPaymentCredited,
  WithdrawalPaid,
  WithdrawalRejected,
  WithdrawalRequested,
  type GatewayLedgerEvent,
} from '../../src/events/gateway.ts';
import { specification } from '../support/decider.ts';

const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (hours: number) => new Date(t0.getTime() + hours * 3_600_000);
const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const adminId = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const holdingId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const pending = ledgerAccount.pending(merchantId);
const settled = ledgerAccount.settled(merchantId);
const onHold = ledgerAccount.onHold(merchantId);

type Command<T extends GatewayLedgerCommand['type']> = Extract<GatewayLedgerCommand, { type: T }>;
const credit = (
  n: number,
  totalAmount: number,
  fee: number,
  completedAt: Date,
  uniqueCode = 0,
): Command<'CreditGatewayPayment'> => ({
  type: 'CreditGatewayPayment',
  merchantId,
  paymentId: uuid(n),
  holdingAccountId: holdingId,
  totalAmount,
  fee,
  uniqueCode,
  completedAt,
  now: completedAt,
});
/** A credit as the ledger books it: the bill's amount (totalAmount less the code) less its fee owed to the merchant. */
const credited = (n: number, totalAmount: number, fee: number, completedAt: Date, uniqueCode = 0) =>
  GatewayPaymentCredited({
    merchantId,
    paymentId: uuid(n),
    holdingAccountId: holdingId,
    totalAmount,
    fee,
    net: totalAmount - fee - uniqueCode,
    completedAt: completedAt.toISOString(),
    postings: [
      { account: ledgerAccount.holding(holdingId), amount: totalAmount },
      { account: pending, amount: -(totalAmount - fee - uniqueCode) },
      ...(fee > 0 ? [{ account: ledgerAccount.fees, amount: -fee }] : []),
      ...(uniqueCode > 0 ? [{ account: ledgerAccount.uniqueCodes, amount: -uniqueCode }] : []),
    ],
    uniqueCode,
  });
const settledEvent = (paymentIds: string[], amount: number, cutoff: Date, settledAt: Date) =>
  BalanceSettled({
    merchantId,
    paymentIds,
    amount,
    cutoff: cutoff.toISOString(),
    settledAt: settledAt.toISOString(),
    postings: [
      { account: pending, amount },
      { account: settled, amount: -amount },
    ],
  });
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Toko Maju' };
const request = (n: number, amount: number, now = at(30)): Command<'RequestWithdrawal'> => ({
  type: 'RequestWithdrawal',
  merchantId,
  withdrawalId: uuid(1000 + n),
  amount,
  ...bank,
  requestedBy: merchantId,
  minWithdrawal: 50_000,
  now,
});
const requested = (n: number, amount: number, now = at(30)) =>
  WithdrawalRequested({
    merchantId,
    withdrawalId: uuid(1000 + n),
    amount,
    ...bank,
    requestedBy: merchantId,
    requestedAt: now.toISOString(),
    postings: [
      { account: settled, amount },
      { account: onHold, amount: -amount },
    ],
  });

// 200,000 paid, 3,000 fee: 197,000 owed, settled at the cutoff of the next working day
const paid = credited(1, 200_000, 3_000, at(0));
const settledAll = settledEvent([uuid(1)], 197_000, at(21), at(21));

describe('gateway ledger decider', () => {
  const given = specification(gatewayLedger);

  it('credits a completed payment to holding, the net to pending and the fee to platform:fees', () => {
    given([])
      .when(credit(1, 200_000, 3_000, at(0)))
      .then([paid]);
  });

  it('credits a payment once: crediting it again records nothing', () => {
    given([paid])
      .when(credit(1, 200_000, 3_000, at(0)))
      .then([]);
  });

  it('settles every credit completed before the cutoff in one entry', () => {
    const second = credited(2, 100_000, 3_000, at(2));
    const third = credited(3, 50_000, 1_000, at(22));
    given([paid, second, third])
      .when({ type: 'SettleDue', merchantId, cutoff: at(21), now: at(21) })
      .then([settledEvent([uuid(1), uuid(2)], 294_000, at(21), at(21))]);
  });

  it('settles nothing when no credit is due', () => {
    given([paid, settledAll])
      .when({ type: 'SettleDue', merchantId, cutoff: at(45), now: at(45) })
      .then([]);
  });

  it('leaves a credit completed exactly at the cutoff for the next one', () => {
    given([credited(4, 60_000, 0, at(21))])
      .when({ type: 'SettleDue', merchantId, cutoff: at(21), now: at(21) })
      .then([]);
  });

  describe('names on the settlement the years it judged without their decree, from the day after the earliest credit to today', () => {
    const wib = (local: string) => new Date(`${local}+07:00`);
    const newYearsEve = credited(5, 100_000, 3_000, wib('2026-12-31T12:00:00'));
    const monday = wib('2027-01-04T00:00:00');
    const settle = (yearsWithoutDecree: number[]) =>
      ({ type: 'SettleDue', merchantId, cutoff: monday, now: monday, yearsWithoutDecree }) as const;
    const entry = (calendarMissingYears: number[]) =>
      BalanceSettled({ ...settledEvent([uuid(5)], 97_000, monday, monday).data, calendarMissingYears });

    it('a missing year judged is named', () => {
      given([newYearsEve])
        .when(settle([2027]))
        .then([entry([2027])]);
    });

    it('no year is named when every decree is there', () => {
      given([newYearsEve])
        .when(settle([]))
        .then([entry([])]);
    });

    it('a missing year not judged is not named: no day of 2026 was judged for a payment of its last day', () => {
      given([newYearsEve])
        .when(settle([2026]))
        .then([entry([])]);
    });

    it('a credit of 30 December settled on 31 December judged 2026 alone', () => {
      const thursday = wib('2026-12-31T00:00:00');
      given([credited(6, 50_000, 0, wib('2026-12-30T09:00:00'))])
        .when({ ...settle([2027]), cutoff: thursday, now: thursday })
        .then([
          BalanceSettled({ ...settledEvent([uuid(6)], 50_000, thursday, thursday).data, calendarMissingYears: [] }),
        ]);
    });
  });

  describe('names on a late settlement each credit’s own due day: the working day after the day its money moved', () => {
    const wib = (local: string) => new Date(`${local}+07:00`);
    const wednesday = credited(7, 100_000, 1_000, wib('2026-01-14T10:00:00'));
    // paid on Thursday 23:59, seen after midnight: due by the day it was paid
    const thursday = GatewayPaymentCredited({
      ...credited(8, 50_000, 500, wib('2026-01-16T00:02:00')).data,
      paidAt: wib('2026-01-15T23:59:00').toISOString(),
    });
    const israMikraj = { date: '2026-01-16', name: 'Isra Mikraj', kind: 'libur-nasional' as const };
    const calendar = { years: { '2026': { source: 'SKB', days: [israMikraj] } } };
    // the settler down from Thursday to Tuesday: one run on Wednesday 21 January settles both
    const run = wib('2026-01-21T00:00:00');
    const settle = { type: 'SettleDue', merchantId, cutoff: run, now: run, yearsWithoutDecree: [], calendar } as const;
    const entry = (dueDates: string[]) =>
      BalanceSettled({
        ...settledEvent([uuid(7), uuid(8)], 148_500, run, run).data,
        calendarMissingYears: [],
        dueDates,
      });

    it("Thursday's payment is due on Monday: Friday is Isra Mikraj, then the weekend", () => {
      given([wednesday, thursday])
        .when(settle)
        .then([entry(['2026-01-15', '2026-01-19'])]);
    });

    it('the calendar the command brings decides: without the holiday, Friday', () => {
      given([wednesday, thursday])
        .when({ ...settle, calendar: { years: { '2026': { source: 'SKB', days: [] } } } })
        .then([entry(['2026-01-15', '2026-01-16'])]);
    });

    it('a run that brings no calendar records no due days', () => {
      given([wednesday, thursday])
        .when({ type: 'SettleDue', merchantId, cutoff: run, now: run })
        .then([settledEvent([uuid(7), uuid(8)], 148_500, run, run)]);
    });
  });

  it('holds a withdrawal of the whole settled balance', () => {
    given([paid, settledAll])
      .when(request(1, 197_000))
      .then([requested(1, 197_000)]);
  });

  it('refuses a withdrawal of what is still pending', () => {
    given([paid]).when(request(1, 50_000)).thenThrows('INSUFFICIENT_BALANCE');
  });

  it('refuses a withdrawal beyond the settled balance', () => {
    given([paid, settledAll]).when(request(1, 197_001)).thenThrows('INSUFFICIENT_BALANCE');
  });

  it('refuses a withdrawal of what another withdrawal holds', () => {
    given([paid, settledAll, requested(1, 150_000)])
      .when(request(2, 50_000))
      .thenThrows('INSUFFICIENT_BALANCE');
  });

  it('holds a second withdrawal within what the first leaves', () => {
    given([paid, settledAll, requested(1, 147_000)])
      .when(request(2, 50_000))
      .then([requested(2, 50_000)]);
  });

  it('refuses a withdrawal below the minimum', () => {
    given([paid, settledAll]).when(request(1, 49_999)).thenThrows('WITHDRAWAL_BELOW_MINIMUM');
  });

  it('takes the same request twice as once', () => {
    given([paid, settledAll, requested(1, 60_000)])
      .when(request(1, 60_000))
      .then([]);
  });

  describe('paying a requested withdrawal', () => {
    const source = uuid(2001);
    const pay = {
      type: 'PayWithdrawal',
      merchantId,
      withdrawalId: uuid(1001),
      reference: 'TRF-1',
      holdingAccountId: source,
      paidBy: adminId,
      now: at(40),
    } as const;
    const paidOut = WithdrawalPaid({
      merchantId,
      withdrawalId: uuid(1001),
      amount: 60_000,
      reference: 'TRF-1',
      holdingAccountId: source,
      paidBy: adminId,
      paidAt: at(40).toISOString(),
      postings: [
        { account: onHold, amount: 60_000 },
        { account: ledgerAccount.holding(source), amount: -60_000 },
      ],
    });

    it('pays it out of the platform account it left', () => {
      given([paid, settledAll, requested(1, 60_000)])
        .when(pay)
        .then([paidOut]);
    });

    it('is refused to its requester', () => {
      given([paid, settledAll, requested(1, 60_000)])
        .when({ ...pay, paidBy: merchantId })
        .thenThrows('WITHDRAWAL_OWN_PAYOUT');
    });

    it('is refused once it is paid', () => {
      given([paid, settledAll, requested(1, 60_000), paidOut])
        .when(pay)
        .thenThrows('WITHDRAWAL_NOT_REQUESTED');
    });

    it('is refused for a withdrawal never requested', () => {
      given([paid, settledAll]).when(pay).thenThrows('WITHDRAWAL_NOT_FOUND');
    });
  });

  describe('rejecting a requested withdrawal', () => {
    const reject = {
      type: 'RejectWithdrawal',
      merchantId,
      withdrawalId: uuid(1001),
      note: 'wrong account',
      rejectedBy: adminId,
      now: at(40),
    } as const;
    const rejected = WithdrawalRejected({
      merchantId,
      withdrawalId: uuid(1001),
      amount: 60_000,
      note: 'wrong account',
      rejectedBy: adminId,
      rejectedAt: at(40).toISOString(),
      postings: [
        { account: onHold, amount: 60_000 },
        { account: settled, amount: -60_000 },
      ],
    });

    it('gives its amount back to settled', () => {
      given([paid, settledAll, requested(1, 60_000)])
        .when(reject)
        .then([rejected]);
    });

    it('is refused once it is rejected', () => {
      given([paid, settledAll, requested(1, 60_000), rejected])
        .when(reject)
        .thenThrows('WITHDRAWAL_NOT_REQUESTED');
    });

    it('leaves nothing to pay', () => {
      given([paid, settledAll, requested(1, 60_000), rejected])
        .when({
          type: 'PayWithdrawal',
          merchantId,
          withdrawalId: uuid(1001),
          reference: 'x',
          holdingAccountId: uuid(2001),
          paidBy: adminId,
          now: at(41),
        })
        .thenThrows('WITHDRAWAL_NOT_REQUESTED');
    });

    it('makes the whole settled balance available again', () => {
      given([paid, settledAll, requested(1, 60_000), rejected])
        .when(request(2, 197_000))
        .then([requested(2, 197_000)]);
    });
  });

  it('shows settled as what withdrawals hold plus what is available', () => {
    const state = [paid, settledAll, requested(1, 60_000), credited(2, 10_000, 1_000, at(25))].reduce(
      gatewayLedger.evolve,
      gatewayLedger.initialState(),
    );
    expect(merchantBalance(state, merchantId)).toEqual({
      settled: 197_000,
      pending: 9_000,
      onHold: 60_000,
      available: 137_000,
    });
  });

  it('refuses to store an entry that does not balance', () => {
    const unbalanced = {
      ...paid,
      data: {
        ...paid.data,
        postings: [
          { account: pending, amount: -1 },
          { account: settled, amount: 2 },
        ],
      },
    };
    expect(() => serialise(unbalanced)).toThrow('postings must sum to zero');
  });
});

/** The state as a snapshot gives it back: through JSON, then revived. */
const fromSnapshot = (state: GatewayLedger): GatewayLedger =>
  gatewayLedger.snapshot!.revive!(JSON.parse(JSON.stringify(state)));

type Step =
  | { kind: 'credit'; total: number; fee: number; minutes: number }
  | { kind: 'settle'; minutes: number }
  | { kind: 'request'; amount: number }
  | { kind: 'pay' | 'reject'; which: number; byMerchant: boolean }
  | { kind: 'recredit'; which: number }
  | { kind: 'snapshot' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('credit' as const),
    total: fc.integer({ min: 1_000, max: 2_000_000 }),
    fee: fc.integer({ min: 0, max: 5_000 }),
    minutes: fc.integer({ min: 0, max: 120 }),
  }),
  fc.record({ kind: fc.constant('settle' as const), minutes: fc.integer({ min: 0, max: 240 }) }),
  fc.record({ kind: fc.constant('request' as const), amount: fc.integer({ min: 1, max: 3_000_000 }) }),
  fc.record({ kind: fc.constantFrom('pay' as const, 'reject' as const), which: fc.nat(20), byMerchant: fc.boolean() }),
  fc.record({ kind: fc.constant('recredit' as const), which: fc.nat(50) }),
  fc.constant({ kind: 'snapshot' as const }),
);

describe('gateway ledger, any sequence of commands', () => {
  test.prop([fc.array(step, { maxLength: 80 })], { numRuns: 300 })(
    'every entry balances, available never goes below zero, the balances are the fold of the postings and match a plain model',
    steps => {
      let state = gatewayLedger.initialState();
      const history: GatewayLedgerEvent[] = [];
      // the plain model: what the merchant was credited, when, and what became of it
      const credits: { id: string; net: number; completedAt: number; settled: boolean }[] = [];
      const withdrawals: { id: string; amount: number; status: string }[] = [];
      let minute = 0;
      let n = 0;
      for (const s of steps) {
        minute += 10;
        const now = new Date(t0.getTime() + minute * 60_000);
        let command: GatewayLedgerCommand | null = null;
        if (s.kind === 'credit') {
          const fee = Math.min(s.fee, s.total);
          command = { ...credit(++n, s.total, fee, new Date(now.getTime() - s.minutes * 60_000)), now };
        } else if (s.kind === 'recredit' && credits.length > 0) {
          const again = credits[s.which % credits.length]!;
          command = { ...credit(0, 5_000, 0, now), paymentId: again.id };
        } else if (s.kind === 'settle')
          command = { type: 'SettleDue', merchantId, cutoff: new Date(now.getTime() - s.minutes * 60_000), now };
        else if (s.kind === 'request') command = { ...request(++n, s.amount, now), withdrawalId: uuid(n) };
        else if ((s.kind === 'pay' || s.kind === 'reject') && withdrawals.length > 0) {
          const w = withdrawals[s.which % withdrawals.length]!;
          const by = s.byMerchant ? merchantId : adminId;
          command =
            s.kind === 'pay'
              ? {
                  type: 'PayWithdrawal',
                  merchantId,
                  withdrawalId: w.id,
                  reference: 'TRF',
                  holdingAccountId: uuid(2001),
                  paidBy: by,
                  now,
                }
              : { type: 'RejectWithdrawal', merchantId, withdrawalId: w.id, note: 'no', rejectedBy: by, now };
        } else if (s.kind === 'snapshot') state = fromSnapshot(state);
        if (!command) continue;

        const before = merchantBalance(state, merchantId);
        let events: GatewayLedgerEvent[] = [];
        try {
          events = gatewayLedger.decide(state, command);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
          const code = (err as DomainError).code;
          // a refusal is always one the rules name
          if (command.type === 'RequestWithdrawal')
            expect(code).toBe(command.amount < 50_000 ? 'WITHDRAWAL_BELOW_MINIMUM' : 'INSUFFICIENT_BALANCE');
          else expect(['WITHDRAWAL_OWN_PAYOUT', 'WITHDRAWAL_NOT_REQUESTED']).toContain(code);
        }
        if (command.type === 'RequestWithdrawal' && command.amount >= 50_000 && command.amount <= before.available)
          expect(events).toHaveLength(1);
        for (const e of events) {
          serialise(e); // the schema refuses an unbalanced entry
          expect(e.data.postings.reduce((sum, p) => sum + p.amount, 0)).toBe(0);
          state = gatewayLedger.evolve(state, e);
          history.push(e);
          if (e.type === 'GatewayPaymentCredited')
            credits.push({
              id: e.data.paymentId,
              net: e.data.net,
              completedAt: Date.parse(e.data.completedAt),
              settled: false,
            });
          if (e.type === 'BalanceSettled') {
            const cutoff = Date.parse(e.data.cutoff);
            expect(new Set(e.data.paymentIds)).toEqual(
              new Set(credits.filter(c => !c.settled && c.completedAt < cutoff).map(c => c.id)),
            );
            for (const c of credits) if (c.completedAt < cutoff) c.settled = true;
          }
          if (e.type === 'WithdrawalRequested')
            withdrawals.push({ id: e.data.withdrawalId, amount: e.data.amount, status: 'REQUESTED' });
          if (e.type === 'WithdrawalPaid' || e.type === 'WithdrawalRejected') {
            const w = withdrawals.find(x => x.id === e.data.withdrawalId)!;
            expect(w.status).toBe('REQUESTED');
            w.status = e.type === 'WithdrawalPaid' ? 'PAID' : 'REJECTED';
          }
        }

        const balance = merchantBalance(state, merchantId);
        expect(balance.available).toBeGreaterThanOrEqual(0);
        // the balances are exactly the fold of every posting so far
        const folded: Record<string, number> = {};
        for (const e of history)
          for (const p of e.data.postings) folded[p.account] = (folded[p.account] ?? 0) + p.amount;
        expect(state.balances).toEqual(folded);
        expect(Object.values(folded).reduce((a, b) => a + b, 0)).toBe(0);
        // and they say what the plain model says
        const sum = (xs: { net?: number; amount?: number }[]) => xs.reduce((a, x) => a + (x.net ?? x.amount ?? 0), 0);
        const held = sum(withdrawals.filter(w => w.status === 'REQUESTED'));
        const paidOut = sum(withdrawals.filter(w => w.status === 'PAID'));
        expect(balance.pending).toBe(sum(credits.filter(c => !c.settled)));
        expect(balance.onHold).toBe(held);
        expect(balance.settled).toBe(sum(credits.filter(c => c.settled)) - paidOut);
        expect(balance.available).toBe(balance.settled - held);
        expect(state.credits.unsettledTotal).toBe(balance.pending);
      }
    },
  );
});
