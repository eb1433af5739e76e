import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { TestClock } from '../../src/clock.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshServiceDatabase } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { testSigningKey } from '../support/signing-key.ts';

let owner: pg.Pool;
let service: pg.Pool;
let store: PostgresEventStore;
let ledger: LedgerCheckpoints;
const clock = new TestClock();
const signer = digestSigner(testSigningKey());

beforeAll(async () => {
  const db = await freshServiceDatabase();
  owner = createPool(db.ownerUrl, 2);
  service = createPool(db.url, 6);
  store = await PostgresEventStore.create(service);
  ledger = new LedgerCheckpoints(
    { pool: service, store, log: createLogger('silent'), clock },
    signer,
    mkdtempSync(path.join(tmpdir(), 'ledger-role-')),
  );
  await ledger.start();
});
afterAll(async () => {
  await ledger?.stop();
  await store?.close();
  await service?.end();
  await owner?.end();
});

describe("the ledger under the service's restricted role", () => {
  it('signs checkpoints into a table it may only add to, as the event log', async () => {
    await store.append(
      `account-${nextUuid()}`,
      [newEvent('AccountLinked', { name: 'Budi' }), newEvent('AccountSynced')],
      'no_stream',
    );
    expect(await ledger.waitFor(await store.headPosition(), 10_000)).toBe(true);
    clock.advance(61_000);
    const [made] = await eventually(async () => {
      const all = await listLedgerCheckpoints(service);
      return all.length > 0 && all;
    }, 10_000);
    expect(made).toMatchObject({ seq: 0, from: 0, to: 2 });
    const refused = await query(service, 'Tamper', 'delete from ledger_checkpoints').then(
      () => null,
      (err: { code?: string }) => err.code,
    );
    expect(refused).toBe('42501');
    const byOwner = await query(owner, 'Tamper', 'delete from ledger_checkpoints').then(
      () => null,
      (err: { code?: string }) => err.code,
    );
    expect(byOwner).toBe('ES403');
    expect((await verifyLog({ store, pool: service }, { publicKey: signer.publicKey, kept: [] })).problems).toEqual([]);
  });
});
