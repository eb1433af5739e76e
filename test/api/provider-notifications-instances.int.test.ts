import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandboxNotificationSecret, signNotification } from '../../src/providers/notification-signature.ts';
import { keyHolder } from '../support/http.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

/**
 * Two instances on one database, as behind a load balancer: a provider's notification and its retry may reach either,
 * and the ids heard are kept in PostgreSQL, so the account is checked once whichever instance hears it first.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  // one data folder, so one JWT_SECRET: the sandbox-played providers' secrets are the same on both
  [a, b] = await startTwoInstances();
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const notify = (on: TestService, id: string, accountRef: string) => {
  const raw = JSON.stringify({ accountRef });
  const secret = sandboxNotificationSecret(on.config.jwtSecret, 'WALLET-D');
  return on.app.inject({
    method: 'POST',
    url: '/api/providers/WALLET-D/notifications',
    headers: { ...signNotification(secret, id, on.clock.now(), raw), 'content-type': 'application/json' },
    payload: raw,
  });
};

describe('provider notifications on two instances', () => {
  it('one notification delivered to both, one after the other or at once, checks the account once', async () => {
    const caller = await keyHolder(a);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    await a.projections.waitFor(await a.store.headPosition());
    await b.projections.waitFor(await a.store.headPosition());
    const onA = vi.spyOn(a.paymentChecks, 'checkNow');
    const onB = vi.spyOn(b.paymentChecks, 'checkNow');

    expect((await notify(a, 'ntf_two_1', phoneNumber)).statusCode).toBe(202);
    expect((await notify(b, 'ntf_two_1', phoneNumber)).statusCode).toBe(200);
    const together = await Promise.all([notify(a, 'ntf_two_2', phoneNumber), notify(b, 'ntf_two_2', phoneNumber)]);
    expect(together.map(r => r.statusCode).sort()).toEqual([200, 202]);
    expect([...onA.mock.calls, ...onB.mock.calls]).toEqual([[accountId], [accountId]]);
  });
});
