import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../../src/store/commands/handle.ts';
import { payment, paymentStream } from '../../src/domain/payments.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Model test of a payment's life: the customer pays (in time or late), the account is synchronised, the expiry
 * timer ticks and time passes, in any order. The payment ends in exactly one of COMPLETED or EXPIRED, and it is
 * COMPLETED exactly when a sync saw a payment made in time before the timer expired it.
 */
let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Model = { status: 'PENDING' | 'COMPLETED' | 'EXPIRED'; paidInTime: boolean; expiresAt: number };
type Real = { caller: Caller; accountId: string; phoneNumber: string; paymentId: string; totalAmount: number };

async function settle() {
  const head = await service.store.headPosition();
  await service.sagas.waitFor(head, 20_000);
  await service.projections.waitFor(await service.store.headPosition(), 20_000);
}

const endOf = { PENDING: [], COMPLETED: ['PaymentCompleted'], EXPIRED: ['PaymentExpired'] } as const;

/**
 * The payment is where the model is, in one state: the API answers the model's status, the payment's own state (its
 * stream, as its decider reads it) is the same, and the stream holds the end the model has reached: none while it
 * is pending, exactly one, of its kind, once it has ended.
 */
async function agree(model: Model, real: Real) {
  await settle();
  expect((await statusOf(real.caller, real.paymentId)).status).toBe(model.status);
  expect((await load({ store: service.store }, paymentStream(real.paymentId), payment)).state.status).toBe(
    model.status,
  );
  const ends = (await service.store.readStream(paymentStream(real.paymentId))).filter(
    e => e.type === 'PaymentCompleted' || e.type === 'PaymentExpired',
  );
  expect(ends.map(e => e.type)).toEqual(endOf[model.status]);
}

class Pay implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    await sandbox.pay({ accountNumber: real.phoneNumber, providerCode: 'WALLET-D', amount: real.totalAmount });
    if (service.clock.now().getTime() < model.expiresAt) model.paidInTime = true;
  }
  toString = () => 'pay';
}

class Sync implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    await real.caller.call('GET', `/api/v1/accounts/${real.accountId}/refresh`);
    if (model.status === 'PENDING' && model.paidInTime) model.status = 'COMPLETED';
    await agree(model, real);
  }
  toString = () => 'sync';
}

class Tick implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    await service.paymentExpiry.tick();
    if (model.status === 'PENDING' && service.clock.now().getTime() >= model.expiresAt) model.status = 'EXPIRED';
    await agree(model, real);
  }
  toString = () => 'tick';
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly minutes: number) {}
  check = () => true;
  async run() {
    service.clock.advance(this.minutes * 60_000);
  }
  toString = () => `advance(${this.minutes} min)`;
}

describe('payment lifecycle model', () => {
  it('ends in exactly one of COMPLETED or EXPIRED whatever the interleaving of payment, sync and timer', async () => {
    const commands = [
      fc.constant(new Pay()),
      fc.constant(new Sync()),
      fc.constant(new Tick()),
      fc.integer({ min: 1, max: 4 }).map(m => new Advance(m)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 10 }), async cmds => {
        const caller = await keyHolder(service);
        const { accountId, phoneNumber } = await linkServiceWallet(caller);
        const created = await createPayment(
          caller,
          paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }),
        );
        const real: Real = { caller, accountId, phoneNumber, paymentId: created.id, totalAmount: created.totalAmount };
        const model: Model = { status: 'PENDING', paidInTime: false, expiresAt: Date.parse(created.expiresAt) };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        // whatever happened, the story ends: a last sync, then time runs out; the model must have ended, and the
        // payment with it, in exactly one end of the same kind
        await new Sync().run(model, real);
        service.clock.advance(10 * 60_000);
        await new Tick().run(model, real);
        expect(model.status).not.toBe('PENDING');
        await agree(model, real);
      }),
      { numRuns: 15 },
    );
  });
});
