import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountKinds } from '../../src/audit/gateway-reconciliation.ts';
import { accountSums, carried, type AccountSums } from '../../src/audit/gateway-carried-balances.ts';
import { monthBounds, periodOf, placement, type PeriodPosting } from '../../src/audit/ledger-periods.ts';
import { effectiveAt, type PostingEvent } from '../../src/domain/ledger-time.ts';
import { GatewayPaymentCredited, WithdrawalPaid } from '../../src/events/gateway.ts';
import { SuspenseCreditReceived } from '../../src/events/gateway-suspense.ts';
import { HoldingTransferRecorded } from '../../src/events/holding-transfers.ts';

/**
 * The reports' period rule and carried balances over random ledgers: payments, payouts, suspense credits and hand
 * transfers at random effective times (each recorded up to a day later, a hand transfer's DEBIT seen maybe later
 * still), cut into consecutive periods at random instants, some of them exactly a posting's time.
 */

const start = Date.parse('2025-10-01T00:00:00+07:00');
const end = Date.parse('2026-02-01T00:00:00+07:00');
const id = '00000000-0000-4000-8000-000000000001';
const accounts = ['a1', 'a2', 'a3'];
const merchants = ['m1', 'm2'];
const iso = (ms: number) => new Date(ms).toISOString();

const instant = fc.integer({ min: start, max: end - 1 });
const amount = fc.integer({ min: 1, max: 50_000_000 });
const delay = fc.integer({ min: 0, max: 86_400_000 });

/** One entry of the ledger as its event, and when it was recorded. */
type Entry = { event: PostingEvent; recordedAt: string };

const payment = fc
  .record({
    at: instant,
    late: delay,
    total: amount,
    fee: fc.nat(3_000),
    code: fc.nat(999),
    acc: fc.constantFrom(...accounts),
    m: fc.constantFrom(...merchants),
  })
  .filter(p => p.fee + p.code < p.total)
  .map((p): Entry => ({
    event: GatewayPaymentCredited({
      merchantId: id,
      paymentId: id,
      holdingAccountId: id,
      totalAmount: p.total,
      fee: p.fee,
      net: p.total - p.fee - p.code,
      completedAt: iso(p.at + p.late),
      paidAt: iso(p.at),
      uniqueCode: p.code,
      postings: [
        { account: `holding:${p.acc}`, amount: p.total },
        { account: `merchant:${p.m}:pending`, amount: -(p.total - p.fee - p.code) },
        { account: 'platform:fees', amount: -p.fee },
        { account: 'platform:unique-codes', amount: -p.code },
      ],
    }),
    recordedAt: iso(p.at + p.late),
  }));

const payout = fc
  .record({ at: instant, late: delay, amount, acc: fc.constantFrom(...accounts), m: fc.constantFrom(...merchants) })
  .map((p): Entry => ({
    event: WithdrawalPaid({
      merchantId: id,
      withdrawalId: id,
      amount: p.amount,
      reference: 'TRF',
      holdingAccountId: id,
      paidBy: id,
      paidAt: iso(p.at + p.late),
      transferredAt: iso(p.at),
      postings: [
        { account: `merchant:${p.m}:onHold`, amount: p.amount },
        { account: `holding:${p.acc}`, amount: -p.amount },
      ],
    }),
    recordedAt: iso(p.at + p.late),
  }));

const suspense = fc.record({ at: instant, late: delay, amount, acc: fc.constantFrom(...accounts) }).map((s): Entry => ({
  event: SuspenseCreditReceived({
    suspenseId: id,
    mutationId: id,
    accountId: id,
    providerCode: 'WALLET-D',
    amount: s.amount,
    senderName: 'X',
    reference: null,
    receivedAt: iso(s.at),
    postings: [
      { account: `holding:${s.acc}`, amount: s.amount },
      { account: 'platform:suspense', amount: -s.amount },
    ],
  }),
  recordedAt: iso(s.at + s.late),
}));

const handTransfer = fc
  .record({
    at: instant,
    debit: fc.option(fc.integer({ min: -86_400_000, max: 86_400_000 }), { nil: null }),
    amount,
    from: fc.constantFrom(...accounts),
    to: fc.constantFrom(...accounts),
  })
  .filter(t => t.from !== t.to)
  .map((t): Entry => {
    // the DEBIT seen before it was recorded dates it; one seen after (or never) leaves it at its recording
    const debitAt = t.debit === null ? null : Math.min(end - 1, Math.max(start, t.at + t.debit));
    return {
      event: HoldingTransferRecorded({
        transferId: id,
        fromAccountId: id,
        toAccountId: id,
        amount: t.amount,
        reference: 'HAND',
        note: null,
        recordedBy: id,
        recordedAt: iso(t.at),
        ...(debitAt !== null && debitAt <= t.at ? { transferredAt: iso(debitAt) } : {}),
        postings: [
          { account: `holding:${t.to}`, amount: t.amount },
          { account: `holding:${t.from}`, amount: -t.amount },
        ],
      }),
      recordedAt: iso(t.at),
    };
  });

const ledger = fc.array(fc.oneof(payment, payout, suspense, handTransfer), { minLength: 1, maxLength: 60 });

/** Every posting of the entries, placed at its entry's effective time. */
const postingsOf = (entries: Entry[]): PeriodPosting[] =>
  entries.flatMap(({ event, recordedAt }) =>
    event.data.postings.map(p => ({ ...p, effectiveAt: effectiveAt(event), recordedAt })),
  );

/** Consecutive periods from the window's start to its end, cut at random instants and at some postings' own times. */
const cutsFor = (postings: PeriodPosting[]) =>
  fc
    .tuple(
      fc.array(instant, { maxLength: 6 }),
      fc
        .array(fc.nat(), { maxLength: 4 })
        .map(picks => picks.map(i => Date.parse(postings[i % postings.length]!.effectiveAt))),
    )
    .map(([random, exact]) => {
      const cuts = [...new Set([start, ...random, ...exact, end])].sort((a, b) => a - b);
      return cuts.slice(1).map((to, i) => ({ startsAt: new Date(cuts[i]!), endsAt: new Date(to) }));
    });

const closingOf = (sums: AccountSums[], account: string) => sums.find(s => s.account === account)?.closing ?? 0;
const openingOf = (sums: AccountSums[], account: string) => sums.find(s => s.account === account)?.opening ?? 0;

describe('periods and carried balances over random ledgers', () => {
  it('each posting falls in exactly one of consecutive periods; each is balanced; every closing is the next opening', () => {
    fc.assert(
      fc.property(
        ledger.chain(entries => {
          const postings = postingsOf(entries);
          return fc.tuple(fc.constant(postings), cutsFor(postings));
        }),
        ([postings, periods]) => {
          for (const p of postings)
            expect(
              periods.filter(bounds => placement(p, bounds) === 'in'),
              p.effectiveAt,
            ).toHaveLength(1);
          const sums = periods.map(bounds => accountSums(postings, bounds));
          for (const s of sums) {
            const report = carried(s, accountKinds);
            expect(report.accounts.every(a => a.consistent)).toBe(true);
            expect(report.balanced).toBe(true);
            const kinds = report.kinds.reduce((t, k) => t + k.debits - k.credits, 0);
            expect(kinds).toBe(0);
          }
          for (let i = 0; i + 1 < sums.length; i++) {
            const names = new Set([...sums[i]!, ...sums[i + 1]!].map(s => s.account));
            for (const account of names)
              expect(openingOf(sums[i + 1]!, account), account).toBe(closingOf(sums[i]!, account));
          }
          // the last period's closing is every posting's sum: nothing lost between the cuts
          const everything = new Map<string, number>();
          for (const p of postings) everything.set(p.account, (everything.get(p.account) ?? 0) + p.amount);
          for (const [account, balance] of everything) expect(closingOf(sums.at(-1)!, account)).toBe(balance);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a month is reported by when the money moved: a payment by its paid time, a payout by its transfer, a hand transfer by a DEBIT seen before it was recorded', () => {
    fc.assert(
      fc.property(ledger, entries => {
        for (const { event, recordedAt } of entries) {
          const moved =
            event.type === 'GatewayPaymentCredited'
              ? event.data.paidAt!
              : event.type === 'WithdrawalPaid'
                ? event.data.transferredAt!
                : event.type === 'HoldingTransferRecorded'
                  ? (event.data.transferredAt ?? event.data.recordedAt)
                  : event.type === 'SuspenseCreditReceived'
                    ? event.data.receivedAt
                    : recordedAt;
          const month = periodOf({ effectiveAt: effectiveAt(event), recordedAt });
          const bounds = monthBounds(month);
          expect(Date.parse(moved)).toBeGreaterThanOrEqual(bounds.startsAt.getTime());
          expect(Date.parse(moved)).toBeLessThan(bounds.endsAt.getTime());
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a payment paid at 23:59:32 WIB on 31 October and recorded after midnight is October’s; an event from before paidAt keeps its completion', () => {
    const paid = GatewayPaymentCredited({
      merchantId: id,
      paymentId: id,
      holdingAccountId: id,
      totalAmount: 50_471,
      fee: 0,
      net: 50_471,
      completedAt: '2025-10-31T17:03:00.000Z',
      paidAt: '2025-10-31T16:59:32.000Z',
      postings: [],
    });
    expect(periodOf({ effectiveAt: effectiveAt(paid), recordedAt: paid.data.completedAt })).toBe('2025-10');
    const { paidAt: _, ...old } = paid.data;
    expect(effectiveAt({ ...paid, data: old })).toBe('2025-10-31T17:03:00.000Z');
    expect(monthBounds('2025-12')).toEqual({
      startsAt: new Date('2025-11-30T17:00:00.000Z'),
      endsAt: new Date('2025-12-31T17:00:00.000Z'),
    });
  });
});
