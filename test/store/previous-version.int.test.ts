import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantBalanceAsOf } from '../../src/audit/balance-as-of.ts';
import { checkpointFileName } from '../../src/audit/checkpoint-file.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listDigests } from '../../src/audit/digests.ts';
import { exportEvents } from '../../src/audit/export.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyDigests } from '../../src/audit/verify-digests.ts';
import { parseKeptCheckpoints, verifyLog } from '../../src/audit/verify-log.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { migrateForStartUp } from '../../src/schema.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { previousStoreEnv, storeFigures } from '../fixtures/previous-store/figures.ts';
import { loadStoreRows, readPreviousStore } from '../fixtures/previous-store/store-rows.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { caughtUp } from '../support/finance.ts';
import { createPayment, paymentBody, statusOf } from '../support/payments.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

/**
 * A store written by an earlier version of the service (test/fixtures/previous-store: its events, streams, signed
 * checkpoints and digests, as rows) restored into a fresh database and run by this version: every checkpoint and
 * digest verifies, by the service and by the auditors' scripts over an export; the read models rebuild to the figures
 * the earlier version showed; and this version appends to the old streams, its new events signed and verified too.
 */

const fixture = readPreviousStore();
const { history } = fixture;
const dir = mkdtempSync(path.join(tmpdir(), 'previous-store-'));
const checkpointDir = path.join(dir, 'checkpoints');
const run = promisify(execFile);
const verifier = path.resolve(import.meta.dirname, '../../docs/verify-export.mjs');
const balanceScript = path.resolve(import.meta.dirname, '../../docs/balance-from-export.mjs');

let s: TestService;
let publicKey: string;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  await migrateForStartUp(url, { eventStore: 'postgres' }, createLogger('silent'));
  await loadStoreRows(url, fixture.tables);
  await import('node:fs/promises').then(fs => fs.mkdir(checkpointDir, { recursive: true }));
  writeFileSync(path.join(checkpointDir, checkpointFileName), fixture.checkpointFile);
  s = await startTestService({ ...previousStoreEnv, DATABASE_URL: url, LEDGER_CHECKPOINT_DIR: checkpointDir });
  s.clock.set(new Date(Date.parse(history.at!) + 60_000).toISOString());
  publicKey = digestSigner(s.config.digestSigningKey!).publicKey;
}, 60_000);
afterAll(async () => s?.close());

const callWith = (key: string) => (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  s.app.inject({ method, url, headers: { 'x-api-key': key }, payload: payload as never });

/** Signs what the log holds now, as the chain's leader does a minute after events arrived. */
async function signMinute() {
  await caughtUp(s);
  const head = await s.store.headPosition();
  expect(await s.ledger.waitFor(head, 10_000)).toBe(true);
  s.clock.advance(60_000);
  await eventually(
    async () => (await listLedgerCheckpoints(s.pool)).at(-1)?.lastPosition === positionText(head),
    10_000,
  );
}

/** The service's own verification, and the auditors' scripts over an export of the whole log. */
async function everythingVerifies() {
  const kept = parseKeptCheckpoints(fixture.checkpointFile).map(checkpoint => ({ checkpoint, source: 'fixture' }));
  expect((await verifyLog(s.deps, { publicKey, kept })).problems).toEqual([]);
  expect((await verifyDigests(s.deps, publicKey)).clean).toBe(true);
  const lines: string[] = [];
  await exportEvents(s.store, 'all', line => void lines.push(line));
  const exported = path.join(dir, `export-${lines.length}.jsonl`);
  const checkpoints = path.join(dir, `checkpoints-${lines.length}.jsonl`);
  writeFileSync(exported, lines.join(''));
  const signed = await listLedgerCheckpoints(s.pool);
  writeFileSync(checkpoints, signed.map(c => `${JSON.stringify(c)}\n`).join(''));
  const verified = await run('node', [verifier, exported, checkpoints, publicKey]).catch(
    (err: { code: number; stdout: string }) => err,
  );
  expect(verified.stdout).toMatch(/intact|verified/i);
  expect('code' in verified ? verified.code : 0, verified.stdout).toBe(0);
  return { lines, signed };
}

describe('a store written by the previous version', () => {
  it('verifies: every checkpoint and digest, by the service and over an export', async () => {
    await caughtUp(s);
    expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
    const { lines, signed } = await everythingVerifies();
    expect(lines.length).toBeGreaterThanOrEqual(fixture.tables.es_events!.length);
    expect(signed.length).toBeGreaterThanOrEqual(fixture.tables.ledger_checkpoints!.length);
    expect((await listDigests(s.pool)).filter(d => d.signature !== null).length).toBeGreaterThan(0);
    // the merchant's balance as the log had it, by the service and by the auditor's script over the export
    const at = new Date(history.at!);
    const asOf = await merchantBalanceAsOf(
      { store: s.store, pool: s.pool, publicKeys: [publicKey] },
      history.merchantId!,
      at,
    );
    expect(asOf.balance).toEqual(fixture.figures.balanceAsOf);
    const { merchantAt } = (await import(pathToFileURL(balanceScript).href)) as {
      merchantAt(lines: unknown[], merchantId: string, at: number): Promise<Record<string, unknown>>;
    };
    const fromExport = await merchantAt(
      lines.map(l => JSON.parse(l) as unknown),
      history.merchantId!,
      at.getTime(),
    );
    expect(fromExport.balance).toEqual(fixture.figures.balanceAsOf);
  });

  it('rebuilds its read models to the figures the previous version showed', async () => {
    await caughtUp(s);
    expect(await storeFigures(s.pool, history)).toEqual({
      payments: (fixture.figures as { payments: unknown }).payments,
      accounts: (fixture.figures as { accounts: unknown }).accounts,
      gatewayBalance: (fixture.figures as { gatewayBalance: unknown }).gatewayBalance,
    });
  });

  it('is appended to by this version: a payment on an old account, an old payment expired, both signed', async () => {
    const shop = { call: callWith(history.shopKey!) };
    const created = await createPayment(
      shop,
      paymentBody(history.walletAccountId!, { type: 'QRIS-DYNAMIC', orderId: 'after-restore' }),
    );
    expect(created.status).toBe('PENDING');
    s.clock.advance(8 * 24 * 3_600_000);
    await s.paymentExpiry.tick();
    await caughtUp(s);
    expect((await statusOf(shop, history.pendingPaymentId!)).status).toBe('EXPIRED');
    // the old payment's stream holds both forms of its id: its creation under the long one, its expiry under the short
    const oldStream = `payment-${history.pendingPaymentId!}`;
    const forms = await query<{ long: boolean; type: string }>(
      s.pool,
      'PaymentStreamForms',
      'select stream_id = $1 as long, type from es_events where stream_id in ($1, $2) order by revision',
      [oldStream, storedStreamId(oldStream)],
    );
    expect(forms.rows[0]).toEqual({ long: true, type: 'PaymentCreated' });
    expect(forms.rows.at(-1)).toEqual({ long: false, type: 'PaymentExpired' });
    await signMinute();
    const { lines } = await everythingVerifies();
    expect(lines.length).toBeGreaterThan(fixture.tables.es_events!.length);
    // the log verified holds both forms: the old rows' metadata as written, eventId included; the new rows' in the typed
    // columns, no JSON
    const stored = await query<{ old: boolean; form: string }>(
      s.pool,
      'MetadataForms',
      `select position <= $1 as old,
              case when metadata::jsonb ? 'eventId' and occurred_at is null then 'json with eventId'
                   when metadata is null and occurred_at is not null then 'typed' end as form
         from es_events`,
      [fixture.tables.es_events!.length],
    );
    expect(new Set(stored.rows.map(r => `${r.old}:${r.form}`))).toEqual(
      new Set(['true:json with eventId', 'false:typed']),
    );
  });
});
