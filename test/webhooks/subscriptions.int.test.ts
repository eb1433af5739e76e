import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { checkpointHash, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { publishLedgerCheckpoint } from '../../src/webhooks/ledger-checkpoints.ts';
import { publishLedgerIntegrity } from '../../src/webhooks/ledger-integrity.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { signedInAdmin, type Admin } from '../support/gateway.ts';
import { keyHolder } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { shortSchedule, startReceiver, startWebhookTestService } from './support.ts';

// Endpoints choose the kinds they are sent; `ledger.checkpoint` only to an admin's endpoint that asks.

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

type Caller = {
  call: (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => Promise<{ statusCode: number; json(): any; body: string }>;
};
const add = (who: Caller, path: string, events?: string[]) =>
  who.call('POST', '/api/v1/webhooks', { url: `${receiver.url}-${path}`, ...(events ? { events } : {}) });

describe('webhook endpoints choose their kinds', () => {
  it("refuses ledger.checkpoint to a user's endpoint (403) and unknown kinds (400); shows what each endpoint gets", async () => {
    const merchant = await keyHolder(service);
    const refused = await add(merchant, 'merchant-ledger', ['ledger.checkpoint']);
    expect(refused.statusCode).toBe(403);
    expect((await add(merchant, 'merchant-integrity', ['ledger.integrity'])).statusCode).toBe(403);
    expect((await add(merchant, 'merchant-bad', ['payment.refunded'])).statusCode).toBe(400);
    const plain = await add(merchant, 'merchant-plain');
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json().data.events).toEqual([
      'payment.completed',
      'payment.expired',
      'transfer.completed',
      'transfer.failed',
      'withdrawal.paid',
      'withdrawal.rejected',
      'gateway.settled',
    ]);
    const onlyPaid = await add(merchant, 'merchant-paid', ['payment.completed']);
    expect(onlyPaid.json().data.events).toEqual(['payment.completed']);
    const listed = (await merchant.call('GET', '/api/v1/webhooks')).json().data as { url: string; events: string[] }[];
    expect(listed.map(e => e.events.length).sort()).toEqual([1, 7]);
  });

  it('sends an endpoint only the kinds it chose', async () => {
    const merchant = await keyHolder(service);
    const paid = (await add(merchant, 'only-paid', ['payment.completed'])).json().data.id as string;
    const all = (await add(merchant, 'all-kinds')).json().data.id as string;
    await enqueueWebhookEvent(service.deps, {
      ownerId: merchant.id,
      eventId: `expired-${merchant.id}`,
      type: 'payment.expired',
      createdAt: service.clock.now().toISOString(),
      data: {},
    });
    const deliveries = async (endpointId: string) =>
      (await merchant.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`)).json().data as unknown[];
    expect(await deliveries(all)).toHaveLength(1);
    expect(await deliveries(paid)).toHaveLength(0);
  });

  it("sends a ledger checkpoint to the admins' endpoints that asked for it, once, and to nobody else", async () => {
    const asked = await add(admin, 'admin-ledger', ['ledger.checkpoint']);
    expect(asked.statusCode, asked.body).toBe(200);
    const ledgerEndpoint = asked.json().data.id as string;
    const adminDefault = (await add(admin, 'admin-default')).json().data.id as string;
    const checkpoint = {
      v: 1 as const,
      seq: 7,
      from: 10,
      to: 20,
      events: 10,
      root: 'ab'.repeat(32),
      prev: '0'.repeat(64),
      at: service.clock.now().toISOString(),
      lastPosition: '9/9',
      keyId: 'k',
      signature: 's',
    };
    expect(await publishLedgerCheckpoint(service.deps, checkpoint, checkpointHash(checkpoint))).toBe(1);
    await publishLedgerCheckpoint(service.deps, checkpoint, checkpointHash(checkpoint)); // again, after a crash: nothing more
    const deliveries = async (endpointId: string) =>
      (await admin.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`)).json().data as { status: string }[];
    await eventually(async () => (await deliveries(ledgerEndpoint))[0]?.status === 'succeeded');
    expect(await deliveries(ledgerEndpoint)).toHaveLength(1);
    expect(await deliveries(adminDefault)).toHaveLength(0);
    const sent = receiver.received
      .map(r => JSON.parse(r.body) as { type: string; data: { seq: number } })
      .filter(b => b.type === 'ledger.checkpoint');
    expect(sent).toHaveLength(1);
    // the keys beside it (not signed): none known for a checkpoint of no chain
    expect(sent[0]!.data).toEqual({ ...checkpoint, keys: expect.any(Array) });
  });

  it('sends a checkpoint signed again for the same seq (a fork, a re-signed chain) under a webhook id of its own', async () => {
    const asked = (await add(admin, 'admin-forks', ['ledger.checkpoint'])).json().data.id as string;
    const first: LedgerCheckpoint = {
      v: 1,
      seq: 3,
      from: 0,
      to: 5,
      events: 5,
      root: 'cd'.repeat(32),
      prev: '0'.repeat(64),
      at: service.clock.now().toISOString(),
      lastPosition: '4/4',
      keyId: 'k',
      signature: 's',
    };
    const resigned = { ...first, root: 'ef'.repeat(32) };
    await publishLedgerCheckpoint(service.deps, first, checkpointHash(first));
    await publishLedgerCheckpoint(service.deps, resigned, checkpointHash(resigned));
    const deliveries = async () =>
      (await admin.call('GET', `/api/v1/webhooks/${asked}/deliveries`)).json().data as { status: string }[];
    await eventually(async () => (await deliveries()).filter(d => d.status === 'succeeded').length === 2, 10_000);
    const sent = receiver.received
      .map(r => ({ id: r.headers['webhook-id'], body: JSON.parse(r.body) as { data: { seq: number; root: string } } }))
      .filter(b => b.body.data.seq === 3);
    expect([...new Set(sent.map(b => b.body.data.root))].sort()).toEqual([first.root, resigned.root]);
    expect(new Set(sent.map(b => b.id)).size).toBe(2);
  });

  it("sends a finding about the ledger's history as ledger.integrity to the admins who asked, once", async () => {
    const asked = (await add(admin, 'admin-integrity', ['ledger.integrity'])).json().data.id as string;
    const finding = {
      id: 'f'.repeat(64),
      source: 'start-up check',
      finding: 'checkpoint 6 is gone',
      acknowledged: false,
      at: service.clock.now().toISOString(),
    };
    expect(await publishLedgerIntegrity(service.deps, finding)).toBe(1);
    await publishLedgerIntegrity(service.deps, finding); // found again after a restart: nothing more
    const deliveries = async () =>
      (await admin.call('GET', `/api/v1/webhooks/${asked}/deliveries`)).json().data as { status: string }[];
    await eventually(async () => (await deliveries())[0]?.status === 'succeeded', 10_000);
    expect(await deliveries()).toHaveLength(1);
    const sent = receiver.received
      .map(r => JSON.parse(r.body) as { type: string; data: unknown })
      .filter(b => b.type === 'ledger.integrity');
    expect(sent.map(b => b.data)).toEqual([finding]);
  });

  it('sends every checkpoint the ledger signs as ledger.checkpoint, signed like any webhook', async () => {
    const asked = (await add(admin, 'admin-chain', ['ledger.checkpoint'])).json().data.id as string;
    await keyHolder(service); // events for the chain
    expect(await service.ledger.waitFor(await service.store.headPosition(), 10_000)).toBe(true);
    service.clock.advance(61_000);
    const signed = await eventually(async () => (await listLedgerCheckpoints(service.pool)).at(-1), 10_000);
    const deliveries = async () =>
      (await admin.call('GET', `/api/v1/webhooks/${asked}/deliveries`)).json().data as { status: string }[];
    await eventually(async () => (await deliveries()).some(d => d.status === 'succeeded'), 10_000);
    const bodies = receiver.received.map(r => ({
      headers: r.headers,
      body: JSON.parse(r.body) as { type: string; data: { seq: number } },
    }));
    const sent = bodies.find(b => b.body.type === 'ledger.checkpoint' && b.body.data.seq === signed.seq)!;
    // the checkpoint as signed, and beside it the key that checks it
    const { keyId, publicKey } = service.deps.digestKey;
    expect(sent.body.data).toEqual({ ...signed, keys: [{ keyId, publicKey, firstSeq: 0, introducedBy: null }] });
    expect(sent.headers['webhook-signature']).toMatch(/^v1,/);
  });
});
