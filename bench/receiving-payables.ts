/**
 * What a busy receiving account's payables cost a payment in memory, at a steady state: payments keep arriving at a
 * rate per account, each pending for an hour, so the oldest lapse as fast as new ones are reserved. Per payment:
 * reserving a virtual account's number (decide and evolve, on the request path, one at a time per account), and
 * completing one (matching a credit to a payable by the number its reference carries, then releasing it). Compared with a quiet account of the same run (360 pending): the
 * ratio shows how the cost grows with the pending payables.
 */
import { randomUUID } from 'node:crypto';
import { matchCredit, payablesOf, receiving, type Receiving } from '../src/domain/payments-receiving.ts';
import type { ReceivingEvent } from '../src/events/payments-receiving.ts';
import '../src/events/all.ts';
import { fmtRatio, markdownTable, textTable, writeResults, type BenchContext } from './harness.ts';

const hourMs = 3_600_000;

type Scenario = { label: string; gapMs: number };
const scenarios: Scenario[] = [
  { label: 'one payment per 10 s', gapMs: 10_000 },
  { label: 'one payment per second', gapMs: 1_000 },
  { label: 'four payments per second', gapMs: 250 },
];

const asStored = (e: ReceivingEvent) => ({ ...e, metadata: {} }) as unknown as ReceivingEvent;

/** An account that has taken payments for an hour and a bit at this pace; answers the state and the clock. */
function steadyAccount(gapMs: number) {
  let state: Receiving = receiving.initialState();
  let clock = Date.parse('2026-01-05T03:00:00Z');
  let n = 0;
  const recent: { total: number; vaNumber: string }[] = []; // the last thousand reservations: what credits pay
  const reserve = () => {
    const now = new Date(clock);
    clock += gapMs;
    n++;
    const command = {
      type: 'ReservePayable' as const,
      accountId: 'bench',
      paymentId: randomUUID(),
      amount: 10_000 + (n % 50) * 1_000,
      vaNumber: `88810${String(n).padStart(11, '0')}`,
      expiresAt: new Date(now.getTime() + hourMs),
      now,
    };
    for (const e of receiving.decide(state, command)) {
      state = receiving.evolve(state, asStored(e));
      if (e.type === 'PayableReserved') recent[n % 1000] = { total: e.data.totalAmount, vaNumber: command.vaNumber };
    }
  };
  let paid = 0;
  const complete = () => {
    const now = new Date(clock).toISOString();
    const { total, vaNumber } = recent[(paid++ * 7) % recent.length]!;
    const match = matchCredit(state, { amount: total, reference: `VA ${vaNumber}`, occurredAt: now });
    if (!match) return;
    const events = receiving.decide(state, {
      type: 'ReleasePayable',
      paymentId: match.paymentId,
      reason: 'completed',
      now: new Date(clock),
    });
    for (const e of events) state = receiving.evolve(state, asStored(e));
  };
  for (let i = 0; i < hourMs / gapMs + 200; i++) reserve();
  return { reserve, complete, pending: () => payablesOf(state).length };
}

/** µs per call of `op`, timed over `count` calls. */
function timePerCall(op: () => void, count: number): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) op();
  return ((performance.now() - start) * 1000) / count;
}

export async function run(ctx: BenchContext): Promise<void> {
  const count = ctx.quick ? 200 : 3_000;
  const measure = (s: Scenario) => {
    const account = steadyAccount(s.gapMs);
    const pending = account.pending();
    const reserveUs = timePerCall(account.reserve, count);
    const completeUs = timePerCall(account.complete, Math.min(count, 500));
    return { ...s, pending, reserveUs, completeUs };
  };
  measure(scenarios[0]!); // warm-up: compiled code for the quiet account's figures too
  const results = scenarios.map(measure);
  const quiet = results[0]!;
  const header = ['account', 'pending payables', 'reserve µs', 'complete µs', 'compared with'];
  const rows = results.map(r => [
    r.label,
    r.pending.toLocaleString('en-US'),
    r.reserveUs.toFixed(1),
    r.completeUs.toFixed(1),
    r === quiet
      ? 'the peer (a quiet account)'
      : `${fmtRatio(r.reserveUs / quiet.reserveUs)} / ${fmtRatio(r.completeUs / quiet.completeUs)} the quiet account's`,
  ]);
  console.log(`\n${textTable(header, rows)}`);
  const markdown = [
    "# A receiving account's payables, per payment",
    '',
    `${new Date().toISOString()}; each account has taken payments at its pace for an hour and a bit (each pending an hour, none paid), then ${count.toLocaleString('en-US')} more are reserved and timed. "complete" matches a credit of a recently reserved total to a payable and releases it.`,
    '',
    markdownTable(header, rows),
  ].join('\n');
  const written = writeResults('receiving-payables', { count, results }, markdown);
  console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
}
