import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { findPayment } from '../../src/projections/payments.ts';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { createPayment, decodeQrPng, linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

// a stream is read as a browser reads it, over a real connection: inject answers only once the stream has ended
let service: TestService;
let baseUrl: string;
beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  service = await startTestService({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: baseUrl,
    PAYMENT_STREAMS_PER_PAYMENT: '2',
    PAYMENT_STREAMS_PER_INSTANCE: '3',
    PAYMENT_STREAM_HEARTBEAT_SECONDS: '1',
  });
  await service.listen();
});
afterAll(async () => service?.close());

type Received = { at: number; event?: string; data?: Record<string, unknown>; comment?: string };

/** An open event stream: what it has said so far, whether it has ended, and a way to hang up. */
async function openStream(paymentId: string) {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/pay/${paymentId}/events`, {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const received: Received[] = [];
  let ended = false;
  const reading = (async () => {
    if (!response.ok || !response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          received.push(parsed(buffer.slice(0, cut)));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // hung up by the test
    }
    ended = true;
  })();
  return {
    response,
    received,
    statuses: () => received.filter(r => r.event === 'status').map(r => r.data!.status),
    ended: () => ended,
    reading,
    close: () => abort.abort(),
  };
}

/** The status a new stream is answered with, the stream hung up at once. */
async function statusOfNewStream(paymentId: string): Promise<number> {
  const stream = await openStream(paymentId);
  stream.close();
  await stream.reading;
  return stream.response.status;
}

function parsed(block: string): Received {
  const out: Received = { at: Date.now() };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) out.comment = line.slice(1).trim();
    else if (line.startsWith('event: ')) out.event = line.slice(7);
    else if (line.startsWith('data: ')) out.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
  }
  return out;
}

async function qrPayment() {
  const caller = await keyHolder(service);
  const { accountId } = await linkServiceWallet(caller);
  const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
  const pay = async () => {
    const png = await service.app.inject({ method: 'GET', url: `/pay/${payment.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  };
  return { caller, payment, pay };
}

describe('GET /pay/{paymentId}/events', () => {
  it('says PENDING, then COMPLETED within half a second of the read model, then ends', async () => {
    const { payment, pay } = await qrPayment();
    const stream = await openStream(payment.id);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.response.headers.get('connection')).toBe('close');
    await eventually(async () => stream.statuses().length === 1);
    expect(stream.received.find(r => r.event === 'status')!.data).toMatchObject({
      status: 'PENDING',
      totalAmount: payment.totalAmount,
    });

    // when the read model says COMPLETED, looked at every 10 ms
    let completedAt = 0;
    const watching = eventually(async () => {
      const row = await findPayment(service.pool, payment.id);
      if (row?.status === 'COMPLETED') completedAt = Date.now();
      return completedAt > 0;
    }, 30_000);
    await pay();
    await watching;
    await eventually(async () => stream.ended(), 5000);
    const completed = stream.received.find(r => r.event === 'status' && r.data!.status === 'COMPLETED');
    expect(completed, JSON.stringify(stream.received)).toBeDefined();
    expect(completed!.data).toMatchObject({ status: 'COMPLETED', paidAt: expect.any(String) });
    expect(completed!.at - completedAt).toBeLessThan(500);
    expect(stream.statuses()).toEqual(['PENDING', 'COMPLETED']);
  }, 60_000);

  it('keeps an idle stream open with a comment every heartbeat', async () => {
    const { payment } = await qrPayment();
    const stream = await openStream(payment.id);
    await eventually(async () => stream.received.filter(r => r.comment === 'heartbeat').length >= 2, 5000);
    expect(stream.ended()).toBe(false);
    stream.close();
    await stream.reading;
  });

  it('says an ended payment once and ends at once; unknown and malformed ids are 404, documented', async () => {
    const { payment, pay } = await qrPayment();
    await pay();
    await eventually(async () => (await findPayment(service.pool, payment.id))?.status === 'COMPLETED');
    const stream = await openStream(payment.id);
    await stream.reading;
    expect(stream.statuses()).toEqual(['COMPLETED']);
    // through inject too, which checks the answer against the OpenAPI document
    const injected = await service.app.inject({ method: 'GET', url: `/pay/${payment.id}/events` });
    expect(injected.statusCode).toBe(200);
    expect(injected.body).toContain('event: status');
    for (const id of [nextUuid(), 'not-a-uuid']) {
      const response = await service.app.inject({ method: 'GET', url: `/pay/${id}/events` });
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toMatchObject({ status: 'error', code: 'PAYMENT_NOT_FOUND' });
    }
  }, 60_000);

  it('ends the stream of a payment once its expiry has passed', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK1', expiresInMinutes: 5 }));
    const stream = await openStream(payment.id);
    await eventually(async () => stream.statuses().length === 1);
    service.clock.advance(5 * 60_000);
    // within a heartbeat, whether or not the expiry was recorded yet
    await eventually(async () => stream.ended(), 5000).catch(() => undefined);
    expect(stream.ended()).toBe(true);
    expect(stream.statuses()[0]).toBe('PENDING');
  });

  it('holds at most PAYMENT_STREAMS_PER_PAYMENT streams of a payment (429) and PAYMENT_STREAMS_PER_INSTANCE in all (503)', async () => {
    const first = await qrPayment();
    const second = await qrPayment();
    const a = await openStream(first.payment.id);
    const b = await openStream(first.payment.id);
    // over a connection first (a stream let through would never end an inject), then through inject, which checks the
    // answer against the OpenAPI document
    expect(await statusOfNewStream(first.payment.id)).toBe(429);
    const refused = await service.app.inject({ method: 'GET', url: `/pay/${first.payment.id}/events` });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });

    const c = await openStream(second.payment.id);
    expect(await statusOfNewStream(second.payment.id)).toBe(503);
    const full = await service.app.inject({ method: 'GET', url: `/pay/${second.payment.id}/events` });
    expect(full.statusCode).toBe(503);
    expect(full.json()).toMatchObject({ code: 'UNAVAILABLE' });

    // a browser gone frees its place
    a.close();
    await a.reading;
    const again = await eventually(async () => {
      const next = await openStream(first.payment.id);
      if (next.response.status === 200) return next;
      await next.response.body?.cancel();
      return null;
    }, 5000);
    for (const s of [b, c, again]) s.close();
    await Promise.all([b.reading, c.reading, again.reading]);
  });

  it('listens once per instance, however many streams are open', async () => {
    const first = await qrPayment();
    const second = await qrPayment();
    const streams = [await openStream(first.payment.id), await openStream(second.payment.id)];
    const listeners = await service.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name = 'payments:subscriber-positions'`,
    );
    expect(listeners.rows[0]!.n).toBe(1);
    for (const s of streams) s.close();
    await Promise.all(streams.map(s => s.reading));
  });
});
