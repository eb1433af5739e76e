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
  it("frees a virtual account's number on the receiving stream, and a unique code's total on its claim", async () => {
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
    expect(await releasesOf(payableClaimStream(accountId, direct.totalAmount))).toEqual([
      expect.objectContaining({ paymentId: direct.id, reason: 'expired' }),
    ]);
  });
});
