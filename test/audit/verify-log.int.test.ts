import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { emptyChain } from '../../src/audit/ledger-chain.ts';
import { checkpointLine, listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import {
  checkpointHash,
  eventLeafV2,
  genesisHash,
  signCheckpoint,
  type LedgerCheckpoint,
} from '../../src/audit/ledger-format.ts';
import { appendLeaf, leafHash, rootOf, type Frontier } from '../../src/audit/merkle.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { inTransaction, query } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';
import { registerUser } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** Statements run as an insider with the superuser's connection: the append-only triggers switched off first. */
const tamper = (s: TestService, ...statements: [string, unknown[]?][]) =>
  inTransaction(s.pool, async tx => {
    await query(tx, 'ReplicaRole', 'set local session_replication_role = replica');
    for (const [sql, params] of statements) await query(tx, 'Tamper', sql, params ?? []);
  });

async function theLog(s: TestService): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for await (const e of logEvents(s.store)) all.push(e);
  return all;
}

/** A signed minute: the events so far, taken in by the chain, then a minute of test-clock time. */
async function signMinute(s: TestService) {
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(60_000);
  await eventually(async () => (await listLedgerCheckpoints(s.pool)).length > before, 10_000);
}

/** A log over two WIB days, every event under a signed checkpoint (at least three of them), as an auditor finds it. */
async function signedLog() {
  service = await startTestService();
  const s = service;
  s.clock.set('2026-01-05T03:00:00.000Z'); // Monday 10:00 WIB
  for (let i = 0; i < 3; i++) await registerUser(s);
  await signMinute(s);
  for (let i = 0; i < 2; i++) await registerUser(s);
  await signMinute(s);
  s.clock.set('2026-01-06T03:00:00.000Z'); // Tuesday
  for (let i = 0; i < 2; i++) await registerUser(s);
  await signMinute(s);
  const checkpoints = await listLedgerCheckpoints(s.pool);
  const log = await theLog(s);
  expect(checkpoints.at(-1)!.to).toBe(log.length);
  const { publicKey } = digestSigner(s.config.digestSigningKey!);
  const verify = (kept: LedgerCheckpoint[] = [], key = publicKey) =>
    verifyLog(s, { publicKey: key, kept: kept.map(checkpoint => ({ checkpoint, source: 'the auditor' })) });
  return { s, checkpoints, log, verify, publicKey };
}

const positionOf = (e: RecordedEvent) => e.position.prepare.toString();

describe('verify-log', () => {
  it('finds an untouched log intact', async () => {
    const { verify, checkpoints } = await signedLog();
    const verdict = await verify(checkpoints);
    expect(verdict.problems).toEqual([]);
    expect(verdict.clean).toBe(true);
  });

  it('names the checkpoint and the day of a changed field', async () => {
    const { s, log, verify } = await signedLog();
    await tamper(s, [
      `update es_events set data = '{"name":"someone else"}' where position = $1`,
      [positionOf(log[1]!)],
    ]);
    const verdict = await verify();
    expect(verdict.clean).toBe(false);
    expect(verdict.problems[0]).toMatchObject({
      at: 'checkpoint 0',
      problem: expect.stringContaining('differs from the signed one'),
    });
    expect(verdict.problems.map(p => p.at)).toContain('day 2026-01-05');
  });

  it('names the stream and revision of a middle event deleted', async () => {
    const { s, log, checkpoints, verify } = await signedLog();
    const victim = log.find(
      (e, i) =>
        i >= checkpoints[1]!.from && e.revision === 0 && log.some(o => o.streamId === e.streamId && o.revision === 1),
    )!;
    await tamper(s, ['delete from es_events where position = $1', [positionOf(victim)]]);
    const verdict = await verify();
    expect(verdict.problems[0]).toMatchObject({
      streamId: victim.streamId,
      revision: 1,
      problem: expect.stringContaining('removed'),
    });
    expect(verdict.problems.find(p => p.at === 'checkpoint 1')?.problem).toMatch(/removed/);
  });

  it('says events were removed from the end, with the checkpoint rows kept or deleted too, given a kept checkpoint', async () => {
    const { s, log, checkpoints, verify } = await signedLog();
    const last = checkpoints.at(-1)!;
    const tail = log.slice(last.from).map(positionOf);
    await tamper(s, ['delete from es_events where position = any($1::bigint[])', [tail]]);
    const rowsKept = await verify([last]);
    expect(rowsKept.problems.map(p => p.problem)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('removed from the end'),
        expect.stringContaining(`covers events [${last.from}, ${last.to})`),
      ]),
    );
    // the insider deletes the checkpoints of the deleted events and sets the chain's state back to match
    const state = { ...emptyChain, seq: last.seq, prev: last.prev, from: last.from, day: '2026-01-05' };
    await tamper(
      s,
      ['delete from ledger_checkpoints where seq >= $1', [last.seq]],
      ['update ledger_chain_state set state = $1', [JSON.stringify(state)]],
      [`delete from daily_digests where day >= '2026-01-06'`],
    );
    expect((await verify()).problems).toEqual([]); // without a kept checkpoint, nothing is left to show it
    const rowsDeleted = await verify([last]);
    expect(rowsDeleted.clean).toBe(false);
    expect(rowsDeleted.problems.map(p => `${p.at}: ${p.problem}`)).toEqual([
      `kept checkpoint ${last.seq} (the auditor): is not in the database: checkpoint rows were deleted`,
      `kept checkpoint ${last.seq} (the auditor): the log has ${last.from} events and no longer reaches this checkpoint's end (${last.to}): events were removed from the end`,
    ]);
  });

  it('finds an event inserted into the past', async () => {
    const { s, log, verify } = await signedLog();
    await tamper(s, [
      `insert into es_events (transaction_id, stream_id, revision, event_id, type, version, data, metadata) values ($1::xid8, $2, 0, $3, 'UserRegistered', 1, '{}', $4)`,
      [
        log[0]!.position.commit.toString(),
        `user-${nextUuid()}`,
        nextUuid(),
        JSON.stringify({ occurredAt: '2026-01-05T03:00:00.000Z', actor: 'intruder' }),
      ],
    ]);
    const verdict = await verify();
    expect(verdict.problems[0]).toMatchObject({
      at: 'checkpoint 0',
      problem: expect.stringMatching(/differs.*inserted/),
    });
  });

  it('finds two events reordered (their contents swapped)', async () => {
    const { s, log, verify } = await signedLog();
    const [a, b] = log.filter(e => e.type === 'UserRegistered');
    await tamper(s, [
      'update es_events set data = case when position = $1 then (select data from es_events where position = $2) else (select data from es_events where position = $1) end where position in ($1, $2)',
      [positionOf(a!), positionOf(b!)],
    ]);
    const verdict = await verify();
    expect(verdict.problems[0]).toMatchObject({ at: 'checkpoint 0', problem: expect.stringContaining('reordered') });
  });

  it('refuses a chain recomputed over a changed log and signed with another key', async () => {
    const { s, log, checkpoints, verify } = await signedLog();
    await tamper(s, [
      `update es_events set data = '{"name":"someone else"}' where position = $1`,
      [positionOf(log[0]!)],
    ]);
    const forged = await theLog(s);
    const other = digestSigner(
      generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    );
    let prev = genesisHash;
    const resigned = checkpoints.map(c => {
      const frontier = forged
        .slice(c.from, c.to)
        .reduce<Frontier>((f, e) => appendLeaf(f, leafHash(eventLeafV2(e))), []);
      const signed = signCheckpoint({ ...c, root: rootOf(frontier), prev, keyId: other.keyId }, other);
      prev = checkpointHash(signed);
      return signed;
    });
    await tamper(
      s,
      ['delete from ledger_checkpoints'],
      ...resigned.map(
        c =>
          ['insert into ledger_checkpoints (seq, checkpoint) values ($1, $2)', [c.seq, checkpointLine(c)]] as [
            string,
            unknown[],
          ],
      ),
    );
    const verdict = await verify();
    expect(verdict.problems.filter(p => p.problem.includes('signature does not verify')).map(p => p.at)).toEqual(
      checkpoints.map(c => `checkpoint ${c.seq}`),
    );
    expect((await verify([], other.publicKey)).problems.every(p => p.at.startsWith('day'))).toBe(true); // the forger's own key: only the days' digests object
  });
});

describe('verify-log in the CLI', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const run = (s: TestService, args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: s.config.databaseUrl!, DATA_DIR: s.config.dataDir },
      });
      let [out, err] = ['', ''];
      child.stdout.on('data', c => (out += c));
      child.stderr.on('data', c => (err += c));
      child.on('error', reject);
      child.on('exit', code => resolve({ code, out, err }));
    });

  it('exits 0 on the untouched log, 2 without a key, 1 naming what it found, even with the rows deleted, given a kept checkpoint', async () => {
    const { s, log, checkpoints, publicKey } = await signedLog();
    expect(await run(s, ['verify-log'])).toMatchObject({ code: 2, err: expect.stringContaining('--public-key') });
    const shown = await run(s, ['checkpoint']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual(checkpoints.at(-1));
    const kept = path.join(s.config.dataDir, 'kept-checkpoint.json');
    writeFileSync(kept, shown.out);
    const intact = await run(s, ['verify-log', '--public-key', publicKey, '--checkpoint', kept]);
    expect(intact, intact.err).toMatchObject({ code: 0, out: '' });
    const last = checkpoints.at(-1)!;
    await tamper(
      s,
      ['delete from es_events where position = any($1::bigint[])', [log.slice(last.from).map(positionOf)]],
      ['delete from ledger_checkpoints where seq >= $1', [last.seq]],
    );
    const tampered = await run(s, ['verify-log', '--public-key', publicKey, '--checkpoint', kept]);
    expect(tampered.code).toBe(1);
    expect(tampered.out).toContain('events were removed from the end');
    expect(tampered.err).toMatch(/problems; first: /);
  }, 60_000);
});
