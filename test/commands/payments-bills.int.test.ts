import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, releasePayable } from '../../src/commands/payments.ts';
import { handleCommand, load } from '../../src/store/commands/handle.ts';
import { stateCache } from '../../src/store/commands/state-cache.ts';
import { payment, paymentStream, type Payment } from '../../src/domain/payments.ts';
import { keyHolder } from '../support/http.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Step =
  { kind: 'create'; amounts: number[] } | { kind: 'complete'; which: number } | { kind: 'expire'; minutes: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  // a few amounts one rupiah apart: their totals (amount + code 1..999) overlap, so creations race for the same totals
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      amounts: fc.array(fc.integer({ min: 20_000, max: 20_002 }), { minLength: 1, maxLength: 40 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('complete' as const), which: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('expire' as const), minutes: fc.integer({ min: 1, max: 20 }) }),
  },
);

/** Completes a pending payment as the matching saga does: the payment, then its claim released. */
async function complete(paymentId: string) {
  const now = service.clock.now();
  const done = await handleCommand(
    service.deps,
    paymentStream(paymentId),
    payment,
    { type: 'CompletePayment', mutationId: crypto.randomUUID(), paidAt: now, now },
    { actor: 'test', now },
  );
  if (done.state.status !== 'COMPLETED') return;
  await releasePayable(
    service.deps,
    {
      accountId: done.state.receivingAccountId!,
      paymentId,
      totalAmount: done.state.totalAmount!,
      vaNumber: null,
      reason: 'completed',
      now,
    },
    { actor: 'test', now },
  );
}

describe('unique codes claimed per total', () => {
  it('never give two pending payments of one account one total, whatever the interleaving of creations, completions and expiries', async () => {
    const caller = await keyHolder(service);
    const other = { ...service.deps, cache: stateCache() };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async steps => {
        const { accountId } = await linkServiceWallet(caller);
        const ids: string[] = [];
        for (const s of steps) {
          if (s.kind === 'create') {
            // at once, as concurrent requests would arrive, at two instances (each with its own state cache)
            const created = await Promise.all(
              s.amounts.map((amount, i) =>
                createPayment(
                  i % 2 === 0 ? service.deps : other,
                  caller.id,
                  {
                    amount,
                    walletAccountId: accountId,
                    redirectUrl: 'https://shop.example',
                    orderId: crypto.randomUUID(),
                    type: 'QRIS-DYNAMIC',
                    expiresInMinutes: 15,
                  },
                  service.config.gateway,
                ),
              ),
            );
            ids.push(...created.map(c => c.paymentId));
          } else if (s.kind === 'complete' && ids.length > 0) await complete(ids[s.which % ids.length]!);
          else if (s.kind === 'expire') {
            service.clock.advance(s.minutes * 60_000);
            await service.paymentExpiry.tick();
          }
          const now = service.clock.now().toISOString();
          const states = await Promise.all(
            ids.map(
              async id =>
                (await load(service.deps, paymentStream(id), payment)).state as Exclude<Payment, { status: 'NONE' }>,
            ),
          );
          const held = states.filter(p => p.status === 'PENDING' && p.expiresAt > now).map(p => p.totalAmount);
          expect(new Set(held).size, `pending totals ${held.join(', ')}`).toBe(held.length);
          for (const p of states) expect(p.totalAmount! - p.amount).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 12 },
    );
  }, 180_000);
});
