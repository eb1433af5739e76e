import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner, type DigestSigner } from '../../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { checkpointLine, listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import {
  checkpointHash,
  genesisHash,
  signCheckpoint,
  type LedgerCheckpoint,
  type UnsignedCheckpoint,
} from '../../src/audit/ledger-format.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { verifyLogCommand } from '../../src/cli/verify-log.ts';
import { TestClock } from '../../src/clock.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshServiceDatabase } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { testSigningKey } from '../support/signing-key.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

let owner: pg.Pool;
let service: pg.Pool;
let store: PostgresEventStore;
const signer = digestSigner(testSigningKey());
const stranger = digestSigner(testSigningKey('someone else'));

beforeAll(async () => {
  const db = await freshServiceDatabase();
  owner = createPool(db.ownerUrl, 2);
  service = createPool(db.url, 6);
  store = await PostgresEventStore.create(service);
});
afterAll(async () => {
  await store?.close();
  await service?.end();
  await owner?.end();
});

/** The SQLSTATE and message a statement fails with, or null when it succeeds. */
const refusal = (db: pg.Pool, sql: string, params: unknown[] = []) =>
  query(db, 'Try', sql, params).then(
    () => null,
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );

/** The checkpoint that follows `before` (or the first), with `over` changed before it is signed by `by`. */
const next = (before: LedgerCheckpoint | null, over: Partial<UnsignedCheckpoint> = {}, by = signer) =>
  signCheckpoint(
    {
      v: 1,
      seq: before ? before.seq + 1 : 0,
      from: before?.to ?? 0,
      to: (before?.to ?? 0) + 2,
      events: 2,
      root: 'ab'.repeat(32),
      prev: before ? checkpointHash(before) : genesisHash,
      at: '2026-01-05T03:01:00.000Z',
      lastPosition: '7/12',
      keyId: by.keyId,
      ...over,
    },
    by,
  );

/** Adds checkpoint lines through the owner's function, as the service does. */
const appendAs = (db: pg.Pool, ...lines: (LedgerCheckpoint | string)[]) =>
  refusal(db, 'select ledger_append_checkpoints($1::json[])', [
    lines.map(l => (typeof l === 'string' ? l : checkpointLine(l))),
  ]);

const refused = (message: RegExp) => ({ code: 'ES422', message: expect.stringMatching(message) });

describe("the ledger's checkpoints under the service's role", () => {
  it("are added only through the owner's function: no INSERT, no key of its own, no function replaced", async () => {
    expect(await refusal(service, `insert into ledger_checkpoints values (0, '{"v":1}')`)).toMatchObject({
      code: '42501',
    });
    expect(
      await refusal(service, 'insert into ledger_keys (key_id, public_key) values ($1, $2)', [
        stranger.keyId,
        stranger.publicKey,
      ]),
    ).toMatchObject({ code: '42501' });
    for (const sql of [
      `create or replace function ledger_append_checkpoints(lines json[]) returns void language sql as ''`,
      'create or replace function ledger_ed25519_verify(a bytea, m bytea, s bytea) returns boolean language sql as $$ select true $$',
      'alter table ledger_keys disable trigger es_append_only',
    ])
      expect(await refusal(service, sql), sql).toMatchObject({ code: '42501' });
    // the superuser's, beside the tables, each resolving names in pg_catalog first
    const guard = await query<{ name: string; owner: string; schema: string; config: string | null }>(
      owner,
      'GuardFunctions',
      `select p.proname as name, p.proowner::regrole::text as owner, n.nspname as schema, p.proconfig::text as config
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace where p.proname like 'ledger\\_%'`,
    );
    expect(guard.rows.length).toBe(7);
    for (const f of guard.rows)
      expect(f, f.name).toEqual({
        ...f,
        owner: 'postgres',
        schema: 'public',
        config: '{"search_path=pg_catalog, public, pg_temp"}',
      });
  });

  it('takes the next checkpoint signed by a registered key, and refuses a malformed, forged or out-of-order one', async () => {
    const first = next(null);
    expect(await appendAs(service, first)).toBeNull();
    const second = next(first);
    expect(await appendAs(service, '{"v":1,"seq":1}')).toEqual(refused(/not a well-formed checkpoint/));
    expect(await appendAs(service, JSON.stringify({ ...second, extra: 1 }))).toEqual(refused(/not a well-formed/));
    expect(await appendAs(service, JSON.stringify({ ...second, seq: '1' }))).toEqual(refused(/not a well-formed/));
    // a well-formed next checkpoint whose signature is another text's
    const forged = { ...second, signature: next(first, { root: 'cd'.repeat(32) }).signature };
    expect(await appendAs(service, forged)).toEqual(refused(/signature of seq 1 does not verify/));
    expect(await appendAs(service, next(first, {}, stranger))).toEqual(refused(/key .* is not registered/));
    expect(await appendAs(service, next(first, { seq: 2 }))).toEqual(refused(/not the next checkpoint/));
    expect(await appendAs(service, next(first, { prev: genesisHash }))).toEqual(refused(/not the next checkpoint/));
    expect(await appendAs(service, next(first, { from: 1 }))).toEqual(refused(/not the next checkpoint/));
    expect(await appendAs(service, first)).toEqual(refused(/not the next checkpoint/));
    expect(await appendAs(service, second, next(second))).toBeNull();
    expect((await listLedgerCheckpoints(service)).map(c => c.seq)).toEqual([0, 1, 2]);
  });
});

describe('a malformed checkpoint row (the owner inserted it)', () => {
  it('is a finding of verify-log, which exits 1 with it; the leader refuses to sign past it and says why', async () => {
    await query(owner, 'Malformed', `insert into ledger_checkpoints values (3, '{"v":1,"seq":"three"}')`);
    const verdict = await verifyLog({ store, pool: service }, { publicKey: signer.publicKey, kept: [] });
    expect(verdict.clean).toBe(false);
    expect(verdict.problems.map(p => p.problem)).toContainEqual(
      expect.stringMatching(/^checkpoint row 3 is malformed: seq: .*number/),
    );
    const printed: string[] = [];
    const out = { print: (t: string) => printed.push(t), complain: (t: string) => printed.push(t) };
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-guard-'));
    const args = ['--public-key', signer.publicKey];
    expect(
      await verifyLogCommand({ store, pool: service }, args, { envPublicKey: undefined, checkpointDir: dir }, out),
    ).toBe(1);
    expect(printed.join('\n')).toContain('checkpoint row 3 is malformed');
    // the database adds nothing after it
    expect(await appendAs(owner, next((await listLedgerCheckpoints(service)).at(-1)!))).toEqual(
      refused(/checkpoint row 3 is malformed/),
    );
    const ledger = new LedgerCheckpoints(
      { pool: service, store, log: createLogger('silent'), clock: new TestClock() },
      signer,
      dir,
    );
    await ledger.start();
    try {
      expect(ledger.health()[0]!.health).toMatchObject({
        state: 'waiting',
        error: expect.stringContaining('checkpoint row 3 is malformed'),
      });
    } finally {
      await ledger.stop();
    }
  });
});

describe("the event log's position and transaction id", () => {
  const row = (stream: string) => [stream, nextUuid(), JSON.stringify({ occurredAt: new Date().toISOString() })];

  it("are the database's: the service's role may not choose them (OVERRIDING SYSTEM VALUE, a transaction id)", async () => {
    const far = `insert into es_events (position, stream_id, revision, event_id, type, version, data, metadata) overriding system value
                 values (9000000000000000, $1, 0, $2, 'UserRegistered', 1, '{}', $3)`;
    expect(await refusal(service, far, row(`user-${nextUuid()}`))).toMatchObject({ code: '42501' });
    const future = `insert into es_events (transaction_id, stream_id, revision, event_id, type, version, data, metadata)
                    values ('9000000000'::xid8, $1, 0, $2, 'UserRegistered', 1, '{}', $3)`;
    expect(await refusal(service, future, row(`user-${nextUuid()}`))).toMatchObject({ code: '42501' });
    const past = `insert into es_events (transaction_id, stream_id, revision, event_id, type, version, data, metadata)
                  values ('3'::xid8, $1, 0, $2, 'UserRegistered', 1, '{}', $3)`;
    expect(await refusal(service, past, row(`user-${nextUuid()}`))).toMatchObject({ code: '42501' });
    // an append names neither, and answers what the database gave
    const stream = `account-${nextUuid()}`;
    const { position } = await store.append(
      stream,
      [newEvent('AccountLinked'), newEvent('AccountSynced')],
      'no_stream',
    );
    const stored = await query<{ at: string }>(
      owner,
      'Stored',
      `select transaction_id::text || '/' || position::text as at from es_events where stream_id = $1 order by position desc limit 1`,
      [storedStreamId(stream)],
    );
    expect(positionText(position)).toBe(stored.rows[0]!.at);
  });
});

describe("the database's Ed25519 verification", () => {
  const raw = (s: DigestSigner | { publicKey: string }) => Buffer.from(s.publicKey, 'base64').subarray(12);
  const sqlVerify = async (publicKey: Buffer, message: Buffer, signature: Buffer) =>
    (
      await query<{ ok: boolean }>(service, 'Ed25519Verify', 'select ledger_ed25519_verify($1, $2, $3) as ok', [
        publicKey,
        message,
        signature,
      ])
    ).rows[0]!.ok;

  it('agrees with node:crypto over random keys and messages, their signatures and tampered ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.nat(511), async (bytes, bit) => {
        const { publicKey, privateKey } = generateKeyPairSync('ed25519');
        const key = { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
        const message = Buffer.from(bytes);
        const signature = sign(null, message, privateKey);
        expect(await sqlVerify(raw(key), message, signature)).toBe(true);
        const tampered = Buffer.from(signature);
        tampered[bit >> 3]! ^= 1 << (bit & 7);
        expect(await sqlVerify(raw(key), message, tampered)).toBe(verify(null, message, publicKey, tampered));
        expect(await sqlVerify(raw(key), Buffer.concat([message, Buffer.from([bit & 255])]), signature)).toBe(false);
        expect(await sqlVerify(raw(stranger), message, signature)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });
});
