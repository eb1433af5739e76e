import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, query } from '../../src/db/pool.ts';
import { warnIfLogRewritable } from '../../src/db/service-role.ts';
import { createLogger } from '../../src/logger.ts';
import { projections } from '../../src/projections/all.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { START } from '../../src/store/event-store.ts';
import { freshServiceDatabase } from '../support/database.ts';
import { keyHolder } from '../support/http.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { readAllAfter } from './event-store.contract.ts';
import { readLogAfter } from './event-log.contract.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

let service: TestService;
let db: Awaited<ReturnType<typeof freshServiceDatabase>>;
const warnings: string[] = [];
beforeAll(async () => {
  db = await freshServiceDatabase();
  const log = createLogger(
    'warn',
    new Writable({ write: (chunk, _enc, done) => void (warnings.push(String(chunk)), done()) }),
  );
  service = await startTestService({ DATABASE_URL: db.url }, { log });
});
afterAll(async () => {
  await service?.close();
});

/** Every read model's rows, each table in a fixed order. */
async function readModels(): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const p of projections)
    for (const table of p.tables)
      tables[table] = (await query(service.pool, 'SnapshotTable', `select * from ${table} t order by t::text`)).rows;
  return tables;
}

const eventsOf = async (streamId: string) =>
  (
    await query<{ n: number }>(
      service.pool,
      'CountStreamEvents',
      'select count(*)::int as n from es_events where stream_id = $1',
      [storedStreamId(streamId)],
    )
  ).rows[0]!.n;

async function linkBank(caller: Awaited<ReturnType<typeof keyHolder>>, accountNumber: string) {
  const linked = await caller.call('POST', '/api/v1/accounts', {
    type: 'bank',
    providerCode: 'BANK-MANDIRI',
    accountName: 'Toko',
    intervalMinutes: 60,
    accountNumber,
    username: 'toko',
    password: 'rahasia',
  });
  expect(linked.statusCode, linked.body).toBe(200);
  const id = linked.json().accountId as string;
  await sandboxOf(service).addTransaction({
    providerCode: 'BANK-MANDIRI',
    accountRef: accountNumber,
    type: 'CREDIT',
    amount: 15_000,
    senderName: 'Budi',
  });
  expect((await caller.call('GET', `/api/v1/accounts/${id}/refresh`)).statusCode).toBe(200);
  expect((await caller.call('GET', `/api/v1/mutations?accountId=${id}`)).json().pagination.total).toBeGreaterThan(0);
  return id;
}

describe('the service on its restricted role', () => {
  it('runs without the warning a superuser or the log owner gets', async () => {
    expect((await query(service.pool, 'WhoAmI', 'select current_user as me')).rows[0]!.me).toBe(db.role);
    expect(warnings.filter(w => w.includes('append-only') || w.includes('rewrite the event log'))).toEqual([]);
    const owner = createPool(db.ownerUrl, 1);
    try {
      const told: string[] = [];
      await warnIfLogRewritable(
        owner,
        createLogger('warn', new Writable({ write: (c, _e, done) => void (told.push(String(c)), done()) })),
      );
      expect(told).toHaveLength(1);
      expect(told[0]).toContain('is a superuser');
    } finally {
      await owner.end();
    }
  });

  it('deletes an account through the API: its events stay in the log, the API forgets it, and a rebuild equals the live read models', async () => {
    const caller = await keyHolder(service);
    const kept = await linkBank(caller, '7700112201');
    const gone = await linkBank(caller, '7700112202');
    const written = await eventsOf(`account-${gone}`);
    expect(written).toBeGreaterThan(1);

    expect((await caller.call('DELETE', `/api/v1/accounts/${gone}`)).statusCode).toBe(200);
    expect((await caller.call('GET', `/api/v1/accounts/${gone}`)).statusCode).toBe(404);
    expect((await caller.call('GET', `/api/v1/mutations?accountId=${gone}`)).json().pagination.total).toBe(0);
    expect((await caller.call('GET', '/api/v1/accounts')).json().data.map((a: { id: string }) => a.id)).toEqual([kept]);
    expect((await caller.call('DELETE', `/api/v1/accounts/${gone}`)).statusCode).toBe(404);
    // the log still holds every event (append-only); the store's readers pass them by, auditors read them
    expect(await eventsOf(`account-${gone}`)).toBe(written);
    expect(await service.store.readStream(`account-${gone}`)).toEqual([]);
    expect((await readAllAfter(service.store, START)).filter(e => e.streamId === `account-${gone}`)).toEqual([]);
    const audited = (await readLogAfter(service.store, START, 1000))
      .filter(e => e.streamId === `account-${gone}`)
      .map(e => e.revision);
    expect(audited).toHaveLength(written);

    const head = await service.store.headPosition();
    expect(await service.projections.waitFor(head, 20_000)).toBe(true);
    const live = await readModels();
    expect((live.accounts as { id: string }[]).map(a => a.id)).toEqual([kept]);
    expect((live.mutations as { account_id: string }[]).every(m => m.account_id === kept)).toBe(true);
    for (const p of projections) expect(await verifyProjection(service, p), p.name).toEqual([]);
    for (const p of projections) await rebuildProjection(service, p);
    const rebuilt = await readModels();
    for (const table of Object.keys(live)) expect(rebuilt[table], table).toEqual(live[table]);
  }, 60_000);
});
