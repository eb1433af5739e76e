import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { inTransaction, query } from '../../src/db/pool.ts';
import { eventShapes } from '../../src/store/postgres-event-shapes.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

type Row = { position: string; stream_id: string; actor: string | null; type: string; data: unknown };

/** Every event's data as es_events holds it, in log order. */
const storedRows = async () =>
  (
    await query<Row>(
      service.pool,
      'ReadStoredData',
      'select position::text, stream_id, actor, type, data from es_events order by transaction_id, position',
    )
  ).rows;

/** The whole log verified as an auditor does, with the service's public key. */
const verified = () =>
  verifyLog(service, { publicKey: digestSigner(service.config.digestSigningKey!).publicKey, kept: [] });

/** The events so far under a signed checkpoint, then the whole log verified. */
async function verifiedLog() {
  const s = service;
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(60_000);
  await eventually(async () => (await listLedgerCheckpoints(s.pool)).length > before, 10_000);
  return verified();
}

describe('a payment stored in shapes, under short stream ids', () => {
  it('keeps the events of a paid and an expired payment in their shapes, reads them back and verifies the log', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    const paid = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const lapsed = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }));
    await sandboxOf(service).addTransaction({
      providerCode: 'WALLET-D',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: paid.totalAmount,
    });
    await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    await eventually(async () => (await statusOf(caller, paid.id)).status === 'COMPLETED');
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    await eventually(async () => (await statusOf(caller, lapsed.id)).status === 'EXPIRED');

    const rows = await storedRows();
    const shaped = new Set(eventShapes.map(s => s.type));
    const payments = rows.filter(r => shaped.has(r.type));
    // every kind a payment's life writes, each as its shape's number and values
    expect(new Set(payments.map(r => r.type))).toEqual(
      new Set([
        'PaymentCreated',
        'OrderPaymentOpened',
        'PayableReserved',
        'PaymentCompleted',
        'PayableReleased',
        'PaymentExpired',
        'MutationRecorded',
        'AccountSynced',
      ]),
    );
    for (const r of payments) {
      expect(Array.isArray(r.data), r.type).toBe(true);
      expect(eventShapes[(r.data as number[])[0]!]!.type).toBe(r.type);
    }
    // the stream id and the actor with their uuids short (postgres-stream-ids.ts)
    const created = rows.find(r => r.type === 'PaymentCreated' && r.stream_id === storedStreamId(`payment-${paid.id}`));
    expect(created?.stream_id).toMatch(/^payment-~[A-Za-z0-9_-]{22}$/);
    expect(created?.actor).toMatch(/^user:~[A-Za-z0-9_-]{22}$/);
    // read back as appended: the API's answer and the stream's events
    const answer = await statusOf(caller, paid.id);
    expect(answer).toMatchObject({ status: 'COMPLETED', totalAmount: paid.totalAmount });
    const [read] = await service.store.readStream(`payment-${paid.id}`);
    expect(read).toMatchObject({
      streamId: `payment-${paid.id}`,
      metadata: { actor: expect.stringMatching(/^user:[0-9a-f-]{36}$/) },
    });
    expect(read!.data).toMatchObject({
      paymentId: paid.id,
      amount: 50_000,
      createdAt: read!.metadata.occurredAt,
    });

    expect((await verifiedLog()).problems).toEqual([]);
  });

  /** Sets a column of one stored event behind the service's back (the append-only trigger off for the statement). */
  const tamper = (column: 'data' | 'stream_id', value: string, position: string) =>
    inTransaction(service.pool, async tx => {
      await query(tx, 'ReplicaRole', 'set local session_replication_role = replica');
      await query(tx, 'Tamper', `update es_events set ${column} = $1 where position = $2`, [value, position]);
    });

  it("an insider's change to a stored value is found by the log's verification", async () => {
    const row = (await storedRows()).find(r => r.type === 'PaymentCreated')!;
    const values = row.data as unknown[];
    const changed = values.map(v => (v === 50_000 ? 5_000 : v));
    expect(changed).not.toEqual(values);
    await tamper('data', JSON.stringify(changed), row.position);
    const verdict = await verified();
    expect(verdict.clean).toBe(false);
    expect(verdict.problems[0]).toMatchObject({ problem: expect.stringContaining('differs from the signed one') });
    await tamper('data', JSON.stringify(values), row.position);
    expect((await verified()).problems).toEqual([]);
  });

  it("an insider's move of an event to another stream's short id is found by the log's verification", async () => {
    const row = (await storedRows()).find(r => r.type === 'PaymentCreated')!;
    const other = storedStreamId(`payment-${randomUUID()}`);
    await tamper('stream_id', other, row.position);
    const verdict = await verified();
    expect(verdict.clean).toBe(false);
    // the payment's stream now starts at revision 1: its first event is gone from where it was signed
    expect(verdict.problems[0]).toMatchObject({
      problem: expect.stringContaining('events were removed from the stream'),
    });
  });
});
