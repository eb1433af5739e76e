import { execFile } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { cosignedText, witnessKeyIdOf } from '../../src/audit/cosignatures.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { exportEvents } from '../../src/audit/export.ts';
import { checkpointLine, listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { checkpointHash, signCheckpoint, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { createAuditor, revokeAuditor } from '../../src/commands/auditor.ts';
import { query } from '../../src/db/pool.ts';
import { checkedFetch } from '../support/contract-fetch.ts';
import { withoutAppendOnlyGuard } from '../support/database.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { keyHolder, registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { testSigningKey } from '../support/signing-key.ts';

// docs/witness.mjs is the witness an auditor runs (and `npm run cli -- witness` runs the same)
const { runWitness } = (await import(new URL('../../docs/witness.mjs', import.meta.url).href)) as {
  runWitness: (args: string[], io: object) => Promise<number>;
};

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const signer = digestSigner(testSigningKey());

/** Moves the test clock a minute on and waits for the checkpoint it makes. */
async function minutePasses(s: TestService): Promise<LedgerCheckpoint[]> {
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(60_000);
  return eventually(async () => {
    const now = await listLedgerCheckpoints(s.pool);
    return now.length > before && now;
  }, 10_000);
}

/** A service with a checkpoint, listening, an auditor's token, and a witness to run against it (its output kept). */
async function witnessed() {
  service = await startTestService();
  const s = service;
  s.clock.set('2026-01-05T03:00:00.000Z');
  await registerUser(s);
  await registerUser(s);
  await minutePasses(s);
  const url = await s.listen();
  const { token } = await createAuditor(
    { store: s.store, clock: s.clock, readModels: s.projections },
    'witness',
    'operator:test',
  );
  const state = path.join(mkdtempSync(path.join(tmpdir(), 'witness-')), 'state.json');
  const asked: string[] = [];
  const run = async (...extra: string[]) => {
    const out: string[] = [];
    const code = await runWitness(['--url', url, '--state', state, '--token', token, ...extra], {
      fetch: (input: URL, init: RequestInit) => {
        asked.push(`${init.method} ${input.pathname}${input.search}`);
        return checkedFetch(input, init);
      },
      print: (t: string) => out.push(t),
      complain: (t: string) => out.push(t),
    });
    return { code, out: out.join('\n') };
  };
  const held = () =>
    (JSON.parse(readFileSync(state, 'utf8')) as { held: { checkpoint: LedgerCheckpoint; hash: string } }).held;
  return {
    s,
    url,
    token,
    run,
    held,
    asked,
    witnessKey: () => JSON.parse(readFileSync(state, 'utf8')).witness.publicKey as string,
  };
}

/** Replaces checkpoint rows as the tables' owner does, past the append-only guard. */
const asOwner = (s: TestService, sql: string, params: unknown[] = []) =>
  withoutAppendOnlyGuard(s.pool, tx => query(tx, 'TamperCheckpoints', sql, params), 'ledger_checkpoints');

describe('a witness', () => {
  it('checks the chain from the first checkpoint, cosigns the newest, and later reads only what is new', async () => {
    const w = await witnessed();
    const first = await w.run('--public-key', signer.publicKey);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('checkpoint 0: events 0..');
    const [zero] = await listLedgerCheckpoints(w.s.pool);
    expect(w.held()).toEqual({ checkpoint: zero, hash: checkpointHash(zero!) });

    // published with the checkpoint, to the admin and the auditor, and it verifies with the witness's key
    const admin = await signedInAdmin(w.s);
    const latest = (await admin.session('GET', '/api/admin/ledger/checkpoints/latest')).json().data;
    expect(latest.cosignatures).toHaveLength(1);
    const [c] = latest.cosignatures;
    expect(c).toMatchObject({
      checkpointHash: checkpointHash(zero!),
      seq: 0,
      witnessKeyId: witnessKeyIdOf(w.witnessKey()),
    });
    const key = createPublicKey({ key: Buffer.from(w.witnessKey(), 'base64'), format: 'der', type: 'spki' });
    expect(verify(null, Buffer.from(cosignedText(c.checkpointHash)), key, Buffer.from(c.signature, 'base64'))).toBe(
      true,
    );

    await registerUser(w.s);
    await registerUser(w.s);
    const one = (await minutePasses(w.s)).at(-1)!;
    expect(one.seq).toBe(1);
    w.asked.length = 0;
    const later = await w.run();
    expect(later.code, later.out).toBe(0);
    expect(later.out).not.toContain('checkpoint 0:');
    expect(later.out).toContain(`cosigned checkpoint 1 (${checkpointHash(one)})`);
    // the events from where checkpoint 0 ended, never the log from its start
    const events = w.asked.filter(a => a.includes('/ledger/events'));
    expect(events).toEqual([
      `GET /api/audit/ledger/events?index=${zero!.to}&limit=${one.events}&after=${zero!.lastPosition}`,
    ]);
    const published = await checkedFetch(new URL('/api/audit/ledger/cosignatures', w.url), {
      headers: { authorization: `Bearer ${w.token}` },
    });
    const { data } = (await published.json()) as { data: { cosignatures: { seq: number }[] } };
    expect(data.cosignatures.map(x => x.seq)).toEqual([0, 1]);
    // a run with nothing new posts its cosignature again, kept once
    const again = await w.run();
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('nothing new');
  });

  it('refuses to cosign a fork: another checkpoint for a seq it cosigned', async () => {
    const w = await witnessed();
    expect((await w.run('--public-key', signer.publicKey)).code).toBe(0);
    const [zero] = await listLedgerCheckpoints(w.s.pool);
    const { signature: _, ...unsigned } = zero!;
    const resigned = signCheckpoint({ ...unsigned, at: '2026-01-05T03:01:30.000Z' }, signer);
    await asOwner(w.s, 'delete from ledger_checkpoints where seq = 0');
    await asOwner(w.s, 'insert into ledger_checkpoints (seq, checkpoint) values (0, $1::json)', [
      checkpointLine(resigned),
    ]);
    const run = await w.run();
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('NOT cosigning');
    expect(run.out).toContain(`this witness cosigned ${checkpointHash(zero!)}: a fork`);
    expect(w.held().hash).toBe(checkpointHash(zero!));
    const rows = await query(w.s.pool, 'Cosigned', 'select checkpoint_hash from ledger_cosignatures');
    expect(rows.rows.map(r => r.checkpoint_hash)).toEqual([checkpointHash(zero!)]);
  });

  it('refuses to cosign a rollback: the service newest checkpoint behind the one it holds', async () => {
    const w = await witnessed();
    await registerUser(w.s);
    await minutePasses(w.s);
    expect((await w.run('--public-key', signer.publicKey)).code).toBe(0);
    expect(w.held().checkpoint.seq).toBe(1);
    await asOwner(w.s, 'delete from ledger_checkpoints where seq = 1');
    const run = await w.run();
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('NOT cosigning');
    expect(run.out).toContain(
      "the service's newest checkpoint is 0, this witness cosigned checkpoint 1: the log was rolled back",
    );
  });

  it('refuses to cosign a checkpoint whose events it read make another root', async () => {
    const w = await witnessed();
    expect((await w.run('--public-key', signer.publicKey)).code).toBe(0);
    await registerUser(w.s);
    const one = (await minutePasses(w.s)).at(-1)!;
    await withoutAppendOnlyGuard(w.s.pool, tx =>
      query(
        tx,
        'Tamper',
        `update es_events set data = '{"name":"someone else"}' where stream_id = (select stream_id from es_events order by transaction_id desc, position desc limit 1) and revision = 0`,
      ),
    );
    const run = await w.run();
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain(`checkpoint 1: events ${one.from}..${one.to - 1} make root`);
    expect(w.held().checkpoint.seq).toBe(0);
  });

  it('refuses a checkpoint that the pinned key did not sign', async () => {
    const w = await witnessed();
    const other = digestSigner(testSigningKey('another key')).publicKey;
    const run = await w.run('--public-key', other);
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('the key changed without a rotation');
  });
});

describe("an auditor's token", () => {
  it('opens the auditor routes and nothing else; no other credential opens them', async () => {
    service = await startTestService();
    const s = service;
    const deps = { store: s.store, clock: s.clock, readModels: s.projections };
    const { id, token } = await createAuditor(deps, 'outside auditor', 'operator:test');
    const bearer = { authorization: `Bearer ${token}` };
    const get = (url: string, headers: Record<string, string>, cookies?: Record<string, string>) =>
      s.app.inject({ method: 'GET', url, headers, ...(cookies ? { cookies } : {}) });
    expect((await get('/api/audit/ledger/cosignatures', bearer)).statusCode).toBe(200);
    expect((await get('/api/audit/ledger/events', bearer)).statusCode).toBe(200);
    // elsewhere the token is nobody
    for (const url of [
      '/api/admin/ledger/checkpoints/latest',
      '/api/admin/digests',
      '/api/v1/payments',
      '/api/dashboard/api-keys',
    ])
      expect((await get(url, { ...bearer, 'x-api-key': token })).statusCode, url).toBe(401);
    // an admin's session, a merchant's API key, no token, a token of another shape: refused here
    const admin = await signedInAdmin(s);
    expect((await admin.session('GET', '/api/audit/ledger/cosignatures')).statusCode).toBe(401);
    const merchant = await keyHolder(s);
    expect((await merchant.call('GET', '/api/audit/ledger/cosignatures')).statusCode).toBe(401);
    expect((await get('/api/audit/ledger/cosignatures', { authorization: `Bearer ${merchant.key}` })).statusCode).toBe(
      401,
    );
    expect((await get('/api/audit/ledger/cosignatures', {})).statusCode).toBe(401);
    expect((await get('/api/audit/nothing-here', {})).statusCode).toBe(401);
    // revoked: refused at once
    await revokeAuditor(deps, id, 'operator:test');
    expect((await get('/api/audit/ledger/cosignatures', bearer)).statusCode).toBe(401);
  });

  it('posts only a cosignature of a checkpoint the service holds', async () => {
    const w = await witnessed();
    const [zero] = await listLedgerCheckpoints(w.s.pool);
    const post = (payload: object) =>
      w.s.app.inject({
        method: 'POST',
        url: '/api/audit/ledger/cosignatures',
        headers: { authorization: `Bearer ${w.token}` },
        payload,
      });
    const signature = Buffer.alloc(64, 7).toString('base64');
    const body = { checkpointHash: checkpointHash(zero!), seq: 0, witnessKeyId: '0123456789abcdef', signature };
    expect((await post({ ...body, checkpointHash: 'a'.repeat(64) })).statusCode).toBe(409);
    expect((await post({ ...body, seq: 7 })).statusCode).toBe(404);
    expect((await post({ ...body, signature: 'short' })).statusCode).toBe(400);
    expect((await post(body)).statusCode).toBe(201);
    expect((await post(body)).statusCode).toBe(200);
  });
});

/** docs/verify-export.mjs over an export of the whole log, the stored checkpoints and the cosignatures the route answers. */
async function verifyExport(w: Awaited<ReturnType<typeof witnessed>>, witnessKey: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-export-'));
  const lines: string[] = [];
  await exportEvents(w.s.store, 'all', line => void lines.push(line));
  writeFileSync(path.join(dir, 'export.jsonl'), lines.join(''));
  const checkpoints = await listLedgerCheckpoints(w.s.pool);
  writeFileSync(path.join(dir, 'checkpoints.jsonl'), checkpoints.map(c => `${checkpointLine(c)}\n`).join(''));
  const answer = await checkedFetch(new URL('/api/audit/ledger/cosignatures', w.url), {
    headers: { authorization: `Bearer ${w.token}` },
  });
  writeFileSync(path.join(dir, 'cosignatures.json'), await answer.text());
  const script = fileURLToPath(new URL('../../docs/verify-export.mjs', import.meta.url));
  const args = [script, '--witness-key', witnessKey, '--cosignatures', path.join(dir, 'cosignatures.json')];
  args.push(path.join(dir, 'export.jsonl'), path.join(dir, 'checkpoints.jsonl'), signer.publicKey);
  return promisify(execFile)(process.execPath, args).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
  );
}

describe('verifiers given a witness key', () => {
  it('name the checkpoints it has not cosigned and a checkpoint its cosignature contradicts', async () => {
    const w = await witnessed();
    expect((await w.run('--public-key', signer.publicKey)).code).toBe(0);
    await registerUser(w.s);
    await minutePasses(w.s);
    const witnessKey = w.witnessKey();
    const id = witnessKeyIdOf(witnessKey);
    const verified = (witnessKeys: string[]) =>
      verifyLog({ store: w.s.store, pool: w.s.pool }, { publicKey: signer.publicKey, kept: [], witnessKeys });
    expect((await verified([])).problems).toEqual([]);
    expect((await verified([witnessKey])).problems.map(p => p.problem)).toEqual([
      `checkpoints 1 to 1 are not cosigned by witness ${id} (its newest: 0)`,
    ]);
    const uncosigned = await verifyExport(w, witnessKey);
    expect(uncosigned.code, uncosigned.stdout).toBe(1);
    expect(uncosigned.stdout).toContain(`checkpoints 1 to 1 are not cosigned by witness ${id} (its newest: 0)`);

    // checkpoint 0 re-signed: the witness's cosignature of seq 0 contradicts it
    const [zero] = await listLedgerCheckpoints(w.s.pool);
    const { signature: _, ...unsigned } = zero!;
    const resigned = signCheckpoint({ ...unsigned, at: '2026-01-05T03:01:30.000Z' }, signer);
    await asOwner(w.s, 'delete from ledger_checkpoints where seq = 0');
    await asOwner(w.s, 'insert into ledger_checkpoints (seq, checkpoint) values (0, $1::json)', [
      checkpointLine(resigned),
    ]);
    const contradicted = (await verified([witnessKey])).problems.map(p => p.problem);
    expect(contradicted).toContain(
      `contradicts the checkpoint witness ${id} cosigned for seq 0 (${checkpointHash(zero!).slice(0, 16)}…): the chain was forked or re-signed`,
    );
    expect(contradicted).toContain(`checkpoints 0 to 1 are not cosigned by witness ${id} (it cosigned none)`);
    const forked = await verifyExport(w, witnessKey);
    expect(forked.code).toBe(1);
    expect(forked.stdout).toContain(`checkpoint 0: contradicts the one witness ${id} cosigned for this seq`);
  });
});
