import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingCashAsOf, merchantBalanceAsOf, type BindingDeps } from '../../src/audit/balance-as-of.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { exportCommand } from '../../src/cli/audit.ts';
import { creditGatewayPayment, settleDue } from '../../src/commands/gateway-ledger.ts';
import { receiveSuspenseCredit } from '../../src/commands/gateway-suspense.ts';
import { gatewayLedger, gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import { holdingTransfers, holdingTransfersStream } from '../../src/domain/holding-transfers.ts';
import { ledgerAdjustments, ledgerAdjustmentsStream } from '../../src/domain/ledger-adjustments.ts';
import { DomainError } from '../../src/errors.ts';
import { handleCommand } from '../../src/store/commands/handle.ts';
import { comparePositions, START } from '../../src/store/event-store.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { declaredEvents, type DomainEvent } from '../../src/events/event.ts';
import '../../src/events/all.ts';
import type { z } from 'zod';
import type { Decider } from '../../src/domain/decider.ts';

type Line = { index: number; metadata: { occurredAt: string } };
const script = path.resolve(import.meta.dirname, '../../docs/balance-from-export.mjs');
const { merchantAt, holdingAt } = (await import(pathToFileURL(script).href)) as {
  merchantAt(lines: Line[], merchantId: string, at: number): Promise<Record<string, unknown>>;
  holdingAt(lines: Line[], holdingAccountId: string, at: number): Promise<Record<string, unknown>>;
};

/**
 * docs/balance-from-export.mjs against the service's balance-as-of, over a random gateway history made by the
 * ledger's commands on the test clock (payments with fees paid before they were recorded, settlements, withdrawals
 * requested, paid and rejected, suspense credits, hand transfers, dated adjustments, checkpoints signed between): at
 * random instants, and at the very instants events were recorded, a merchant's four figures and a holding account's
 * cash from the export are the service's, for the merchants and holding accounts of the history and one it never saw.
 */

let s: TestService;
let deps: BindingDeps;
beforeAll(async () => {
  s = await startTestService();
  s.clock.set('2026-02-02T02:00:00.000Z'); // Monday 09:00 WIB
  deps = { store: s.store, pool: s.pool, publicKeys: [digestSigner(s.config.digestSigningKey!).publicKey] };
}, 60_000);
afterAll(async () => s?.close());

const merchants = [randomUUID(), randomUUID()];
const holdings = [randomUUID(), randomUUID()];
const adminId = randomUUID();
const withdrawals: { merchantId: string; id: string }[] = [];

type Op =
  | { kind: 'pay'; who: number; into: number; amount: number; early: number }
  | { kind: 'settle'; who: number }
  | { kind: 'withdraw'; who: number; amount: number }
  | { kind: 'payout' | 'reject'; pick: number; from: number }
  | { kind: 'suspense'; into: number; amount: number }
  | { kind: 'transfer'; from: number; amount: number }
  | { kind: 'adjust'; into: number; amount: number; early: number }
  | { kind: 'sign' };

const who = fc.nat(1);
const amount = fc.integer({ min: 10_000, max: 500_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay'), who, into: who, amount, early: fc.nat(90) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle'), who }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('withdraw'), who, amount }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('payout', 'reject'), pick: fc.nat(), from: who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('suspense'), into: who, amount }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transfer'), from: who, amount }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('adjust'),
      into: who,
      amount: fc.integer({ min: -50_000, max: 200_000 }).filter(n => n !== 0),
      early: fc.nat(90),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sign') }) },
);
const step = fc.record({ op, minutes: fc.integer({ min: 0, max: 6 * 60 }) });

const minutesBefore = (now: Date, minutes: number) => new Date(now.getTime() - minutes * 60_000);

/** One step through the ledger's commands (a refusal, as the service would answer it, changes nothing). */
async function apply(o: Op) {
  const now = s.clock.now();
  const context = { actor: 'test', now };
  const command = (stream: string, decider: object, c: Record<string, unknown>) =>
    handleCommand(s.deps, stream, decider as Decider<unknown, unknown, DomainEvent>, c, context);
  try {
    switch (o.kind) {
      case 'pay':
        await creditGatewayPayment(
          s.deps,
          {
            merchantId: merchants[o.who]!,
            paymentId: randomUUID(),
            holdingAccountId: holdings[o.into]!,
            totalAmount: o.amount,
            fee: Math.floor(o.amount * 0.007),
            uniqueCode: o.amount % 3,
            completedAt: now,
            paidAt: minutesBefore(now, o.early),
          },
          context,
        );
        return;
      case 'settle':
        await settleDue(s.deps, merchants[o.who]!, now, context);
        return;
      case 'withdraw': {
        const id = randomUUID();
        await command(gatewayLedgerStream(merchants[o.who]!), gatewayLedger, {
          type: 'RequestWithdrawal',
          merchantId: merchants[o.who]!,
          withdrawalId: id,
          amount: o.amount,
          bankCode: 'BCA',
          accountNumber: '1234567890',
          accountHolderName: 'Joko Wijaya',
          requestedBy: merchants[o.who]!,
          minWithdrawal: 10_000,
          now,
        });
        withdrawals.push({ merchantId: merchants[o.who]!, id });
        return;
      }
      case 'payout':
      case 'reject': {
        const w = withdrawals[o.pick % Math.max(1, withdrawals.length)];
        if (!w) return;
        const decided =
          o.kind === 'payout'
            ? {
                type: 'PayWithdrawal',
                reference: `TRF-${randomUUID()}`,
                holdingAccountId: holdings[o.from]!,
                paidBy: adminId,
              }
            : { type: 'RejectWithdrawal', note: 'not this one', rejectedBy: adminId };
        await command(gatewayLedgerStream(w.merchantId), gatewayLedger, {
          ...decided,
          merchantId: w.merchantId,
          withdrawalId: w.id,
          now,
        });
        return;
      }
      case 'suspense':
        await receiveSuspenseCredit(
          s.deps,
          {
            mutationId: randomUUID(),
            accountId: holdings[o.into]!,
            providerCode: 'WALLET-D',
            amount: o.amount,
            senderName: 'Tak Dikenal',
            reference: null,
            receivedAt: now,
          },
          context,
        );
        return;
      case 'transfer':
        await command(holdingTransfersStream, holdingTransfers, {
          type: 'RecordHoldingTransfer',
          transferId: randomUUID(),
          fromAccountId: holdings[o.from]!,
          toAccountId: holdings[1 - o.from]!,
          amount: o.amount,
          reference: `HT-${randomUUID()}`,
          note: null,
          sourceCash: 10 ** 12,
          holdingAccountIds: holdings,
          seen: [],
          adminId,
          now,
        });
        return;
      case 'adjust':
        await command(ledgerAdjustmentsStream, ledgerAdjustments, {
          type: 'BookLedgerAdjustment',
          entryId: randomUUID(),
          accountId: holdings[o.into]!,
          amount: o.amount,
          effectiveAt: minutesBefore(now, o.early),
          reason: 'counted at the branch',
          holdingAccountIds: holdings,
          ledgerCash: 10 ** 12,
          adminId,
          now,
        });
        return;
      case 'sign':
        await signMinute();
        return;
      default: {
        const never: never = o;
        return never;
      }
    }
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
  }
}

/** The events so far taken in by the chain, then a minute of test-clock time: a checkpoint signs them (if any are new). */
async function signMinute() {
  const head = await s.store.headPosition();
  if (comparePositions(head, START) === 0) return; // nothing recorded yet: nothing to sign
  expect(await s.ledger.waitFor(head, 10_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  if ((await listLedgerCheckpoints(s.pool)).at(-1)?.lastPosition === positionText(head)) return;
  s.clock.advance(60_000);
  await eventually(async () => (await listLedgerCheckpoints(s.pool)).length > before, 10_000);
}

async function exported(): Promise<Line[]> {
  const lines: string[] = [];
  const quiet = { print: () => {}, complain: () => {} };
  expect(await exportCommand(s.store, ['--all'], line => void lines.push(line), quiet)).toBe(0);
  return lines.map(l => JSON.parse(l));
}

describe('docs/balance-from-export.mjs', () => {
  it("equals balance-as-of at any instant, for a merchant's balance and a holding account's cash", async () => {
    const start = s.clock.now().getTime();
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 6, maxLength: 16 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), fc.nat(2)), {
          minLength: 6,
          maxLength: 10,
        }),
        async (steps, probes) => {
          for (const { op: o, minutes } of steps) {
            s.clock.advance(minutes * 60_000);
            await apply(o);
          }
          await signMinute();
          const log = await exported();
          const end = s.clock.now().getTime();
          for (const [fraction, atAnEvent, pick] of probes) {
            // an instant between, or the very instant an event was recorded (an event at the instant is counted)
            const at = atAnEvent
              ? Date.parse(log[Math.floor(fraction * (log.length - 1))]!.metadata.occurredAt)
              : Math.round(start - 60_000 + fraction * (end - start + 120_000));
            const merchantId = merchants[pick] ?? randomUUID();
            const holdingId = holdings[pick] ?? randomUUID();
            const service = await merchantBalanceAsOf(deps, merchantId, new Date(at));
            expect(service.checkpoint).toMatchObject({ unsignedEvents: 0 });
            expect(await merchantAt(log, merchantId, at)).toEqual({
              merchantId,
              at: service.at,
              revision: service.revision,
              balance: service.balance,
            });
            const cash = await holdingCashAsOf(deps, holdingId, new Date(at));
            expect(await holdingAt(log, holdingId, at)).toEqual({
              holdingAccountId: holdingId,
              at: cash.at,
              cash: cash.cash,
              postings: cash.postings,
            });
            checked++;
          }
        },
      ),
      { numRuns: 3, endOnFailure: true },
    );
    expect(checked).toBeGreaterThan(0);
  }, 240_000);

  it('runs on its own over an export file, and refuses an export that is not the whole log', async () => {
    s.clock.advance(60 * 60_000);
    await apply({ kind: 'pay', who: 0, into: 1, amount: 125_000, early: 5 });
    await apply({ kind: 'pay', who: 0, into: 1, amount: 80_000, early: 0 });
    await signMinute();
    const log = await exported();
    const dir = mkdtempSync(path.join(tmpdir(), 'balance-export-'));
    const file = path.join(dir, 'export.jsonl');
    writeFileSync(file, log.map(l => JSON.stringify(l)).join('\n'));
    const at = s.clock.now().toISOString();
    const run = promisify(execFile);
    const { stdout } = await run('node', [script, file, '--merchant', merchants[0]!, '--at', at]);
    const { checkpoint: _, ...expected } = await merchantBalanceAsOf(deps, merchants[0]!, new Date(at));
    expect(JSON.parse(stdout)).toEqual(expected);
    const held = await run('node', [script, file, '--holding', holdings[1]!, '--at', at]);
    const { checkpoint: __, ...cash } = await holdingCashAsOf(deps, holdings[1]!, new Date(at));
    expect(JSON.parse(held.stdout)).toEqual(cash);
    writeFileSync(
      file,
      log
        .slice(1)
        .map(l => JSON.stringify(l))
        .join('\n'),
    );
    await expect(run('node', [script, file, '--merchant', merchants[0]!, '--at', at])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('the whole log'),
    });
  }, 60_000);

  it('reads postings as stored: no event that carries them has an upcaster (the script would need its copy)', () => {
    const withPostings = declaredEvents().filter(d => 'postings' in (d.schema as z.ZodObject).shape);
    expect(withPostings.map(d => d.type)).toContain('GatewayPaymentCredited');
    for (const d of withPostings) expect(Object.keys(d.upcasters), d.type).toEqual([]);
  });
});
