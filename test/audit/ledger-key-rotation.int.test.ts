import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { exportEvents } from '../../src/audit/export.ts';
import { checkpointLine, listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import {
  checkpointHash,
  checkpointSignatureValid,
  nextKeySignatureValid,
  signCheckpoint,
} from '../../src/audit/ledger-format.ts';
import { LedgerKeyFile, nextKeyFile } from '../../src/audit/ledger-key-file.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { publishLedgerCheckpoint } from '../../src/webhooks/ledger-checkpoints.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { registerUser } from '../support/http.ts';
import { runCli } from '../support/process.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { testSigningKey } from '../support/signing-key.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const minute = 60_000;
const verifier = path.resolve(import.meta.dirname, '../../docs/verify-export.mjs');

/** Events in, a minute on, and the checkpoint the leader cuts of them. */
async function checkpointOfNewEvents(s: TestService) {
  await registerUser(s);
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(minute);
  return eventually(async () => (await listLedgerCheckpoints(s.pool))[before] ?? false, 10_000);
}

/** A service reading its key from a file of its own, off the data folder. */
async function serviceWithKeyFile(name: string) {
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'svc-ledger-key-')), 'ledger.key');
  writeFileSync(keyFile, `${testSigningKey(name)}\n`, { mode: 0o600 });
  // webhooks may go to this machine: the ledger.checkpoint endpoint below receives nothing
  service = await startTestService({ LEDGER_SIGNING_KEY_FILE: keyFile, WEBHOOK_ALLOW_PRIVATE: 'true' });
  service.clock.set('2026-01-05T03:00:00.000Z');
  return { s: service, keyFile, old: digestSigner(testSigningKey(name)) };
}

/** docs/verify-export.mjs over a whole export and the checkpoints, with the key given. */
async function verifyExport(s: TestService, publicKey: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-rotation-export-'));
  const lines: string[] = [];
  await exportEvents(s.store, 'all', line => void lines.push(line));
  writeFileSync(path.join(dir, 'export.jsonl'), lines.join(''));
  const checkpoints = await listLedgerCheckpoints(s.pool);
  writeFileSync(path.join(dir, 'checkpoints.jsonl'), checkpoints.map(checkpointLine).join('\n'));
  const args = [verifier, path.join(dir, 'export.jsonl'), path.join(dir, 'checkpoints.jsonl'), publicKey];
  return promisify(execFile)(process.execPath, args).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
  );
}

describe("the ledger's public keys", () => {
  it('are published at /.well-known/ledger-keys to anyone, without credentials, cacheable for a minute', async () => {
    const { s, old } = await serviceWithKeyFile('published');
    const before = await s.app.inject({ method: 'GET', url: '/.well-known/ledger-keys' });
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers['cache-control']).toBe('public, max-age=60');
    const first = { keyId: old.keyId, publicKey: old.publicKey, firstSeq: 0, introducedBy: null };
    expect(before.json()).toEqual({ status: 'success', data: { algorithm: 'Ed25519', keys: [first] } });
    await checkpointOfNewEvents(s);
    expect((await s.app.inject({ method: 'GET', url: '/.well-known/ledger-keys' })).json().data.keys).toEqual([first]);
  });
});

describe('a rotation of the signing key (npm run cli -- rotate-signing-key)', () => {
  it('is the next checkpoint, signed by the old key and the new; every later one is the new key alone, followed from the old pinned key', async () => {
    const { s, keyFile, old } = await serviceWithKeyFile('before the rotation');
    const first = await checkpointOfNewEvents(s);
    expect(first.keyId).toBe(old.keyId);

    process.env.LEDGER_SIGNING_KEY_FILE = keyFile;
    const cli = await runCli(s, ['rotate-signing-key']).finally(() => delete process.env.LEDGER_SIGNING_KEY_FILE);
    expect(cli.code, cli.err).toBe(0);
    const { keyId, publicKey } = JSON.parse(cli.out) as { keyId: string; publicKey: string };
    expect(existsSync(nextKeyFile(keyFile))).toBe(true);

    const rotation = await checkpointOfNewEvents(s);
    expect(rotation).toMatchObject({ seq: 1, keyId: old.keyId, nextKey: publicKey });
    expect(checkpointSignatureValid(rotation, old.publicKey)).toBe(true);
    expect(nextKeySignatureValid(rotation)).toBe(true);
    // the new key is the file's now, and signs on alone
    expect(digestSigner(readFileSync(keyFile, 'utf8').trim()).keyId).toBe(keyId);
    expect(existsSync(nextKeyFile(keyFile))).toBe(false);
    const after = await checkpointOfNewEvents(s);
    expect(after).toMatchObject({ seq: 2, keyId });
    expect(after.nextKey).toBeUndefined();

    const keys = (await s.app.inject({ method: 'GET', url: '/.well-known/ledger-keys' })).json().data.keys;
    expect(keys).toEqual([
      { keyId: old.keyId, publicKey: old.publicKey, firstSeq: 0, introducedBy: null },
      { keyId, publicKey, firstSeq: 2, introducedBy: { seq: 1, hash: checkpointHash(rotation) } },
    ]);
    // the ledger.checkpoint webhook carries the keys beside the checkpoint: both on the rotation
    const admin = await signedInAdmin(s);
    const endpoint = await admin.call('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/ledger',
      events: ['ledger.checkpoint'],
    });
    expect(endpoint.statusCode, endpoint.body).toBe(200);
    await publishLedgerCheckpoint(s.deps, rotation, checkpointHash(rotation));
    const sent = await query<{ body: { data: { keys: unknown } } }>(
      s.pool,
      'SentCheckpoint',
      `select body::json as body from webhook_events where type = 'ledger.checkpoint'`,
    );
    expect(sent.rows.map(r => r.body.data.keys)).toEqual([keys]);

    // an auditor who pinned the old key follows the rotation: the log, the digests and an export verify
    const verdict = await verifyLog({ store: s.store, pool: s.pool }, { publicKey: old.publicKey, kept: [] });
    expect(verdict.problems).toEqual([]);
    expect(verdict.checkpoints).toBe(3);
    const exported = await verifyExport(s, old.publicKey);
    expect(exported.out).toContain('3 checkpoint(s) verified');
    expect(exported.code, exported.out).toBe(0);
  });

  it("leaves an instance that crashed before the new key replaced the file signing with the chain's key", async () => {
    const { s, keyFile, old } = await serviceWithKeyFile('a crash in between');
    await checkpointOfNewEvents(s);
    process.env.LEDGER_SIGNING_KEY_FILE = keyFile;
    const cli = await runCli(s, ['rotate-signing-key']).finally(() => delete process.env.LEDGER_SIGNING_KEY_FILE);
    const { keyId } = JSON.parse(cli.out) as { keyId: string };
    const pending = readFileSync(nextKeyFile(keyFile), 'utf8');
    await checkpointOfNewEvents(s);
    // as a crash after the rotation's commit leaves them: the old key in the file, the new one beside it
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'svc-ledger-key-')), 'ledger.key');
    writeFileSync(copy, `${testSigningKey('a crash in between')}\n`);
    writeFileSync(nextKeyFile(copy), pending);
    const restarted = new LedgerKeyFile(old, copy, createLogger('silent'));
    await restarted.follow(s.pool);
    expect(restarted.keyId).toBe(keyId);
    expect(digestSigner(readFileSync(copy, 'utf8').trim()).keyId).toBe(keyId);
    expect(existsSync(nextKeyFile(copy))).toBe(false);
    // a key the chain is not at is never taken up
    const stray = new LedgerKeyFile(digestSigner(testSigningKey('stray')), null, createLogger('silent'));
    await expect(stray.follow(s.pool)).rejects.toThrow(/which no rotation introduced/);
  });
});

describe('a key changed without a rotation', () => {
  it('is flagged by verify-log and verify-export.mjs, naming the checkpoint and the key', async () => {
    const { s, old } = await serviceWithKeyFile('the real key');
    const first = await checkpointOfNewEvents(s);
    // root replaced the key file and, as the database's owner, put a checkpoint of the new key past the guard
    const other = digestSigner(testSigningKey('a replaced key file'));
    const { signature: _s, ...unsigned } = first;
    const forged = signCheckpoint(
      { ...unsigned, seq: 1, from: first.to, to: first.to, events: 0, prev: checkpointHash(first), keyId: other.keyId },
      other,
    );
    // (the tests' service connects as the owner)
    await query(s.pool, 'InsertAsOwner', 'insert into ledger_checkpoints (seq, checkpoint) values (1, $1)', [
      checkpointLine(forged),
    ]);
    const verdict = await verifyLog({ store: s.store, pool: s.pool }, { publicKey: old.publicKey, kept: [] });
    expect(verdict.problems.map(p => p.problem)).toContain(
      `checkpoint 1 is signed by key ${other.keyId}, which no rotation introduced (the key in force is ${old.keyId})`,
    );
    const exported = await verifyExport(s, old.publicKey);
    expect(exported.code).toBe(1);
    expect(exported.out).toContain(`checkpoint 1: the signature does not verify: it is signed by key ${other.keyId}`);
  });
});
