import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointFileName } from '../../src/audit/checkpoint-file.ts';
import { nextVerificationAt } from '../../src/audit/daily-verification.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { emptyChain } from '../../src/audit/ledger-chain.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { checkpointHash, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { ledgerIntegrity } from '../../src/audit/ledger-integrity.ts';
import { ledgerResetCommand } from '../../src/cli/ledger-reset.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { withoutAppendOnlyGuard } from '../support/database.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { testSigningKey } from '../support/signing-key.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** A service whose admin asked for ledger.integrity (the endpoint need not answer: the event is recorded to be sent). */
async function watchedService() {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const admin = await signedInAdmin(service);
  const asked = await admin.call('POST', '/api/v1/webhooks', {
    url: 'http://127.0.0.1:9/ledger-integrity',
    events: ['ledger.integrity'],
  });
  expect(asked.statusCode, asked.body).toBe(200);
  service.clock.set('2026-01-05T03:00:00.000Z'); // Monday 10:00 WIB
  return service;
}

/** Moves the test clock a minute on once the chain has everything, and waits for the checkpoint that makes. */
async function checkpointMade(s: TestService): Promise<LedgerCheckpoint> {
  await registerUser(s);
  expect(await s.ledger.waitFor(await s.store.headPosition(), 20_000)).toBe(true);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(61_000);
  return eventually(async () => {
    const now = await listLedgerCheckpoints(s.pool);
    return now.length > before && now.at(-1)!;
  }, 20_000);
}

const fileLines = (s: TestService) => {
  const file = path.join(s.config.ledgerCheckpointDir, checkpointFileName);
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as LedgerCheckpoint)
    : [];
};

const ledgerHealth = (ledger: LedgerCheckpoints) => ledger.health()[0]!.health;

async function ready(s: TestService) {
  const answer = await s.app.inject({ method: 'GET', url: '/ready' });
  return { statusCode: answer.statusCode, body: answer.json() };
}

/** The ledger.integrity webhooks recorded to be sent, their findings. */
async function integrityWebhooks(s: TestService): Promise<string[]> {
  const r = await query<{ body: string }>(
    s.pool,
    'IntegrityWebhooks',
    `select body from webhook_events where type = 'ledger.integrity'`,
  );
  return r.rows.map(row => (JSON.parse(row.body) as { data: { finding: string } }).data.finding);
}

/** Deletes, as the tables' owner with the append-only guard off, every event after `position` and rows from `seq` on. */
async function cutTail(s: TestService, position: string, seq: number) {
  const [commit, prepare] = position.split('/');
  await withoutAppendOnlyGuard(s.pool, tx =>
    query(tx, 'CutEvents', `delete from es_events where (transaction_id, position) > ($1::text::xid8, $2::bigint)`, [
      commit,
      prepare,
    ]),
  );
  await withoutAppendOnlyGuard(
    s.pool,
    tx => query(tx, 'CutRows', 'delete from ledger_checkpoints where seq >= $1', [seq]),
    'ledger_checkpoints',
  );
}

/** Waits a few of the leader's looks and answers whether it signed anything meanwhile. */
async function signsNothing(s: TestService, rows: number) {
  await registerUser(s);
  s.clock.advance(61_000);
  await new Promise(r => setTimeout(r, 3000));
  expect(await listLedgerCheckpoints(s.pool)).toHaveLength(rows);
}

describe("the ledger's check of its own history before it signs", () => {
  it('catches a chain wiped and signed anew from seq 0 after an amount changed: not ready, nothing signed, admins told', async () => {
    const s = await watchedService();
    await checkpointMade(s);
    const last = await checkpointMade(s);
    await s.ledger.stop();
    await withoutAppendOnlyGuard(s.pool, tx =>
      query(
        tx,
        'ChangeAnEvent',
        `update es_events set data = jsonb_set(data::jsonb, '{name}', '"Mallory"')::json where revision = 0 and stream_id like 'user-%' and type = 'UserRegistered'`,
      ),
    );
    await withoutAppendOnlyGuard(
      s.pool,
      tx => query(tx, 'Wipe', 'delete from ledger_checkpoints'),
      'ledger_checkpoints',
    );
    await query(s.pool, 'WipeState', 'update ledger_chain_state set state = $1', [JSON.stringify(emptyChain)]);
    await query(s.pool, 'WipePosition', `delete from subscriber_checkpoints where name = 'ledger:checkpoints'`);
    await s.ledger.start();

    const finding = `checkpoint ${last.seq} (${checkpointHash(last).slice(0, 16)}…) left the server and is not in the chain of checkpoint rows`;
    expect(ledgerHealth(s.ledger)).toMatchObject({ state: 'waiting', error: expect.stringContaining(finding) });
    await signsNothing(s, 0);
    const answer = await ready(s);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.checks.ledgerIntegrity).toBe(false);
    expect(answer.body.details.ledgerIntegrity.findings).toContainEqual({
      source: 'start-up check',
      finding: expect.stringContaining(finding),
      acknowledged: false,
    });
    expect(await integrityWebhooks(s)).toContainEqual(expect.stringContaining(finding));
  });

  it('catches a database rolled back after checkpoints left, by the last one it published when the file went too', async () => {
    const s = await watchedService();
    const kept = await checkpointMade(s);
    await checkpointMade(s);
    const gone = await checkpointMade(s);
    await s.ledger.stop();
    // the database as a backup taken after the first checkpoint holds it: its events, its row, its state and position
    await cutTail(s, kept.lastPosition, kept.seq + 1);
    const [state] = (await query<{ state: { day: string } }>(s.pool, 'State', 'select state from ledger_chain_state'))
      .rows;
    await query(s.pool, 'RollBackState', 'update ledger_chain_state set state = $1', [
      JSON.stringify({
        ...emptyChain,
        seq: kept.seq + 1,
        prev: checkpointHash(kept),
        from: kept.to,
        day: state!.state.day,
      }),
    ]);
    const [commit, prepare] = kept.lastPosition.split('/');
    await query(
      s.pool,
      'RollBackPosition',
      `update subscriber_checkpoints set commit_position = $1, prepare_position = $2 where name = 'ledger:checkpoints'`,
      [commit, prepare],
    );
    rmSync(path.join(s.config.ledgerCheckpointDir, checkpointFileName));
    await s.ledger.start();

    const finding = `checkpoint ${gone.seq} (${checkpointHash(gone).slice(0, 16)}…) left the server`;
    expect(ledgerHealth(s.ledger)).toMatchObject({ state: 'waiting', error: expect.stringContaining(finding) });
    await signsNothing(s, kept.seq + 1);
    expect((await ready(s)).statusCode).toBe(503);
    expect(await integrityWebhooks(s)).toContainEqual(expect.stringContaining(finding));
  });

  it('catches a tail deleted with its rows; after ledger-reset signs on, the reset in the next checkpoint, the fork appended and told', async () => {
    const s = await watchedService();
    const kept = await checkpointMade(s);
    const gone = await checkpointMade(s);
    await s.ledger.stop();
    await cutTail(s, kept.lastPosition, gone.seq);
    await s.ledger.start();
    expect(ledgerHealth(s.ledger)).toMatchObject({
      state: 'waiting',
      error: expect.stringContaining('left the server'),
    });
    expect((await ready(s)).statusCode).toBe(503);
    expect(await integrityWebhooks(s)).toHaveLength(2); // the checkpoint gone, the chain's state that went on past it

    const out = { printed: [] as string[], print: (t: string) => out.printed.push(t), complain: () => undefined };
    const context = {
      keyId: digestSigner(s.config.digestSigningKey!).keyId,
      checkpointDir: s.config.ledgerCheckpointDir,
    };
    expect(await ledgerResetCommand(s, ['--reason', ' '], context, out)).toBe(2);
    expect(await ledgerResetCommand(s, ['--reason', 'restored after the disk failure'], context, out)).toBe(0);
    const recorded = JSON.parse(out.printed[0]!) as { findings: string[]; continuesFrom: unknown };
    expect(recorded.continuesFrom).toEqual({ seq: kept.seq, hash: checkpointHash(kept) });
    expect(recorded.findings).toHaveLength(2);
    const [reset] = await s.store.readStream('ledger-integrity');
    expect(reset).toMatchObject({ type: 'LedgerIntegrityReset', data: { reason: 'restored after the disk failure' } });

    await eventually(async () => ledgerHealth(s.ledger).state === 'leading', 20_000);
    const again = await checkpointMade(s);
    expect(again).toMatchObject({ seq: gone.seq, from: kept.to, prev: checkpointHash(kept) });
    expect(checkpointHash(again)).not.toBe(checkpointHash(gone));
    // the reset is in it: its first event
    const [commit, prepare] = kept.lastPosition.split('/');
    const first = await query<{ type: string }>(
      s.pool,
      'FirstAfter',
      `select type from es_events where (transaction_id, position) > ($1::text::xid8, $2::bigint) order by transaction_id, position limit 1`,
      [commit, prepare],
    );
    expect(first.rows[0]!.type).toBe('LedgerIntegrityReset');
    // the file keeps the old one and gets the new one after it: a fork, acknowledged
    const lines = await eventually(async () => fileLines(s).length === 3 && fileLines(s), 20_000);
    expect(lines.map(l => [l.seq, checkpointHash(l)])).toEqual(
      [kept, gone, again].map(c => [c.seq, checkpointHash(c)]),
    );
    // told after the file's line is written
    const fork = await eventually(
      async () => (await ledgerIntegrity(s.pool).findings()).find(f => f.source === 'checkpoint file'),
      20_000,
    );
    expect(fork).toMatchObject({
      acknowledged: true,
      finding: expect.stringContaining(`checkpoint ${gone.seq} was signed again`),
    });
    await eventually(async () => (await integrityWebhooks(s)).includes(fork!.finding), 20_000);
    expect((await ready(s)).statusCode).toBe(200);

    // a restart finds what the reset accepted and nothing more: it signs on
    await s.ledger.stop();
    await s.ledger.start();
    expect(ledgerHealth(s.ledger)).toEqual({ state: 'leading' });
    expect((await checkpointMade(s)).seq).toBe(again.seq + 1);
  });

  it('catches a signing key replaced without a rotation', async () => {
    const s = await watchedService();
    const made = await checkpointMade(s);
    await s.ledger.stop();
    const stranger = digestSigner(testSigningKey('someone else'));
    const replaced = new LedgerCheckpoints(
      { pool: s.pool, store: s.store, log: createLogger('silent'), clock: s.clock },
      stranger,
      s.config.ledgerCheckpointDir,
    );
    await replaced.start();
    try {
      expect(ledgerHealth(replaced)).toMatchObject({
        state: 'waiting',
        error: expect.stringContaining(
          `the signing key ${stranger.keyId} is not the key of checkpoint ${made.seq} (${made.keyId}), which names no next key`,
        ),
      });
      await signsNothing(s, made.seq + 1);
    } finally {
      await replaced.stop();
    }
  });

  it('catches an event changed in the newest range at start, and in the daily verification of the whole log', async () => {
    const s = await watchedService();
    const made = await checkpointMade(s);
    await s.ledger.stop();
    await withoutAppendOnlyGuard(s.pool, tx =>
      query(
        tx,
        'ChangeAnEvent',
        `update es_events set data = jsonb_set(data::jsonb, '{name}', '"Mallory"')::json where type = 'UserRegistered'`,
      ),
    );
    await s.ledger.start();
    expect(ledgerHealth(s.ledger)).toMatchObject({
      state: 'waiting',
      error: expect.stringContaining(`checkpoint ${made.seq} (events [${made.from}, ${made.to})`),
    });
    expect(ledgerHealth(s.ledger)).toMatchObject({
      error: expect.stringContaining('the root recomputed from the log differs'),
    });

    await s.ledger.verifyNow();
    const { lastVerification, findings } = await ledgerIntegrity(s.pool).details();
    expect(lastVerification).toMatchObject({ clean: false, checkpoints: made.seq + 1 });
    expect(findings.filter(f => f.source === 'daily verification')).not.toHaveLength(0);
    expect((await ready(s)).body.details.ledgerIntegrity.lastVerification.clean).toBe(false);
    // due at 02:00 WIB, each day
    expect(nextVerificationAt(new Date('2026-01-05T03:00:00.000Z')).toISOString()).toBe('2026-01-05T19:00:00.000Z');
    expect(nextVerificationAt(new Date('2026-01-05T19:00:00.000Z')).toISOString()).toBe('2026-01-06T19:00:00.000Z');
  });
});
