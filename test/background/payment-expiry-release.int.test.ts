import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payableClaimStream } from '../../src/domain/payments-payable-claims.ts';
import { receivingStream } from '../../src/domain/payments-receiving.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkWalletA, paymentBody, statusOf } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A payment that expires frees its bill where the bill is held, and only there. */

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const releasesOf = async (streamId: string) =>
  (await service.store.readStream(streamId)).filter(e => e.type === 'PayableReleased').map(e => e.data);

describe('an expired payment', () => {
  it("frees a virtual account's number on the receiving stream; a unique code's total lapses on its claim without an event", async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const body = (type: string, amount: number) => paymentBody(accountId, { type, amount, expiresInMinutes: 5 });
    const va = await createPayment(caller, body('VA-BANK2', 120_000));
    const direct = await createPayment(caller, body('DIRECT', 30_000));
    service.clock.advance(6 * 60_000);
    await service.paymentExpiry.tick();
    expect((await statusOf(caller, va.id)).status).toBe('EXPIRED');
    expect(await releasesOf(receivingStream(accountId))).toEqual([
      expect.objectContaining({ paymentId: va.id, reason: 'expired' }),
    ]);
    const claim = await service.store.readStream(payableClaimStream(accountId, direct.totalAmount));
    expect(claim.map(e => [e.type, e.data.paymentId])).toEqual([['PayableReserved', direct.id]]);
  });
});
