import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import { query } from '../../src/db/pool.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import { parseRecorded, type StoredEvent } from '../../src/events/event.ts';
import { withdrawalWebhooksSaga } from '../../src/sagas/withdrawal-webhooks.ts';
import { settledBalance, signedInAdmin, testHoldingAccount, withSession, type Admin } from '../support/gateway.ts';
import { keyHolder, sessionCookie } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { shortSchedule, startReceiver, startWebhookTestService } from './support.ts';

// the merchant hears of a withdrawal's outcome at their own endpoints, once, as the dashboard shows it

let service: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let admin: Admin;
beforeAll(async () => {
  service = await startWebhookTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, shortSchedule);
  receiver = await startReceiver();
  admin = await signedInAdmin(service);
});
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

const signIn = async (who: { email: string; password: string }, remoteAddress: string) =>
  sessionCookie(
    await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: who.email, password: who.password },
      remoteAddress,
    }),
  );

type Sent = { id: string; type: string; data: { id: string } & Record<string, unknown> };

describe('withdrawal webhooks', () => {
  it('sends withdrawal.paid and withdrawal.rejected to the merchant’s endpoint, with the withdrawal as GET shows it', async () => {
    const merchant = await keyHolder(service);
    const added = await merchant.call('POST', '/api/v1/webhooks', { url: `${receiver.url}-${merchant.id}` });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().data.events).toEqual(expect.arrayContaining(['withdrawal.paid', 'withdrawal.rejected']));
    await settledBalance(service, merchant.id, 100_000);
    // settling moves the clock past a working day's start: sessions made before have ended, so sign in again
    const session = withSession(service, await signIn(merchant, '10.230.0.1'));
    const adminSession = withSession(service, await signIn(admin, '10.230.0.2'));
    const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Toko Maju' };
    const first = await session('POST', '/api/dashboard/gateway/withdrawals', { amount: 50_000, ...bank });
    expect(first.statusCode, first.body).toBe(201);
    const paidId = first.json().data.id as string;
    const rejectedId = (await session('POST', '/api/dashboard/gateway/withdrawals', { amount: 50_000, ...bank })).json()
      .data.id as string;
    expect(
      (
        await adminSession('POST', `/api/admin/gateway/withdrawals/${paidId}/paid`, {
          reference: 'BCA-TRF-HOOK',
          holdingAccountId: testHoldingAccount,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await adminSession('POST', `/api/admin/gateway/withdrawals/${rejectedId}/reject`, { note: 'rekening salah' }))
        .statusCode,
    ).toBe(200);

    const mine = () =>
      receiver.received
        .map(r => JSON.parse(r.body) as Sent)
        .filter(b => b.type.startsWith('withdrawal.') && (b.data.id === paidId || b.data.id === rejectedId));
    const sent = await eventually(async () => mine().length >= 2 && mine());
    const shown = async (id: string) => (await session('GET', `/api/dashboard/gateway/withdrawals/${id}`)).json().data;
    expect(sent.find(b => b.type === 'withdrawal.paid')!.data).toEqual(await shown(paidId));
    expect(sent.find(b => b.type === 'withdrawal.rejected')!.data).toEqual(await shown(rejectedId));
    expect(sent.find(b => b.type === 'withdrawal.paid')!.data).toMatchObject({
      status: 'PAID',
      reference: 'BCA-TRF-HOOK',
      amount: 50_000,
    });
    expect(sent.find(b => b.type === 'withdrawal.rejected')!.data).toMatchObject({
      status: 'REJECTED',
      note: 'rekening salah',
    });
    expect(sent).toHaveLength(2);

    // the saga run again over the same events (delivery is at least once) publishes nothing more
    const saga = withdrawalWebhooksSaga(service.deps);
    const outcomes = (await service.store.readStream(gatewayLedgerStream(merchant.id))).filter(e =>
      saga.handles.includes(e.type),
    );
    expect(outcomes).toHaveLength(2);
    for (const recorded of outcomes) await saga.handle(parseRecorded(recorded) as StoredEvent<AnyEvent>);
    const published = await query(
      service.pool,
      'CountWithdrawalWebhooks',
      `select 1 from webhook_events where owner_id = $1 and type like 'withdrawal.%'`,
      [merchant.id],
    );
    expect(published.rowCount).toBe(2);
  });
});
