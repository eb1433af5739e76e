import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { findPayment } from '../../src/projections/payments.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, decodeQrPng, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

// two instances on one database: the first leads the read models, the page streams from the second
let leader: TestService;
let standby: TestService;
let standbyUrl: string;

beforeAll(async () => {
  leader = await startTestService();
  const port = await freePort();
  standbyUrl = `http://127.0.0.1:${port}`;
  standby = await startTestService({ PORT: String(port), HOST: '127.0.0.1' }, { beside: leader });
  await standby.listen();
}, 120_000);
afterAll(async () => {
  await standby?.close();
  await leader?.close();
});

describe('the payment page streaming from another instance than the one that completes its payment', () => {
  it('hears COMPLETED within half a second of the read model', async () => {
    expect(standby.projections.health().every(s => s.health.state === 'standby')).toBe(true);
    const caller = await keyHolder(leader);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));

    const abort = new AbortController();
    const response = await fetch(`${standbyUrl}/pay/${payment.id}/events`, { signal: abort.signal });
    expect(response.status).toBe(200);
    const said: { at: number; text: string }[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of response.body!)
        said.push({ at: Date.now(), text: decoder.decode(chunk as Uint8Array) });
    })();
    await eventually(async () => said.some(s => s.text.includes('"status":"PENDING"')), 5000);

    let completedAt = 0;
    const watching = eventually(async () => {
      if ((await findPayment(leader.pool, payment.id))?.status === 'COMPLETED') completedAt = Date.now();
      return completedAt > 0;
    }, 30_000);
    const png = await leader.app.inject({ method: 'GET', url: `/pay/${payment.id}/qris.png` });
    await sandboxOf(leader).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);
    await watching;
    await eventually(async () => said.some(s => s.text.includes('"status":"COMPLETED"')), 5000);
    await reading; // the stream ends once it has said the end
    const completed = said.find(s => s.text.includes('"status":"COMPLETED"'));
    expect(completed, JSON.stringify(said)).toBeDefined();
    expect(completed!.at - completedAt).toBeLessThan(500);
    abort.abort();
  }, 60_000);
});
