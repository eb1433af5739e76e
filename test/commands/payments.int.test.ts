import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { createPayment } from '../../src/commands/payments.ts';
import { keyHolder } from '../support/http.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

/** The service's test clock, a second later at every read, and how often it was read. */
function tickingClock() {
  const clock = { reads: 0, now: () => new Date(service.clock.now().getTime() + ++clock.reads * 1000) };
  return clock satisfies Clock;
}

describe('createPayment', () => {
  it('reads the clock once: the payment, its expiry and its events all date from one instant', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller); // its first QRIS payment captures the static QRIS too
    const clock = tickingClock();
    const input = { amount: 25_000, walletAccountId: accountId, redirectUrl: 'https://shop.example' };
    const { paymentId, payment } = await createPayment(
      { ...service.deps, clock },
      caller.id,
      { ...input, orderId: crypto.randomUUID(), type: 'QRIS-DYNAMIC', expiresInMinutes: 15 },
      service.config.gateway,
    );
    expect(clock.reads).toBe(1);
    expect(Date.parse(payment.expiresAt) - Date.parse(payment.createdAt)).toBe(15 * 60_000);
    const events = await service.deps.store.readStream(`payment-${paymentId}`, { fromRevision: 0 });
    expect(events.map(e => (e.metadata as { occurredAt: string }).occurredAt)).toEqual([payment.createdAt]);
  });
});
