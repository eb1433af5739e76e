import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointFileName } from '../../src/audit/checkpoint-file.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { checkpointHash, checkpointSignatureValid, genesisHash } from '../../src/audit/ledger-format.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { nextUuid } from '../support/ids.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const minute = 60_000;

/** Everything appended so far has been taken in by the chain. */
async function chained(s: TestService) {
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
}

/** Moves the test clock on and waits for the checkpoint the minute makes (the leader looks every second). */
async function minutePasses(s: TestService, ms = minute) {
  await chained(s);
  const before = (await listLedgerCheckpoints(s.pool)).length;
  s.clock.advance(ms);
  return eventually(async () => {
    const now = await listLedgerCheckpoints(s.pool);
    return now.length > before && now;
  }, 10_000);
}

const fileLines = (s: TestService) =>
  readFileSync(path.join(s.config.ledgerCheckpointDir, checkpointFileName), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as unknown);

const logLength = async (s: TestService) => {
  let n = 0;
  for await (const _ of logEvents(s.store)) n++;
  return n;
};

describe('ledger checkpoints', () => {
  it('are signed a minute of test-clock time after events arrive, and at a WIB day end, each linked to the one before', async () => {
    service = await startTestService();
    const s = service;
    const { publicKey } = digestSigner(s.config.digestSigningKey!);
    s.clock.set('2026-01-05T03:00:00.000Z'); // Monday 10:00 WIB
    await registerUser(s);
    await registerUser(s);
    await chained(s);
    s.clock.advance(minute - 1000);
    expect(await s.ledger.cutIfDue()).toBeNull(); // not a minute yet
    const [first] = await minutePasses(s, 1000);
    expect(first).toMatchObject({
      v: 1,
      seq: 0,
      from: 0,
      prev: genesisHash,
      at: '2026-01-05T03:01:00.000Z',
      keyId: digestSigner(s.config.digestSigningKey!).keyId,
    });
    expect(first!.to).toBe(await logLength(s));

    s.clock.advance(10 * minute); // a quiet while: no empty checkpoints
    expect(await s.ledger.cutIfDue()).toBeNull();
    await registerUser(s);
    const second = (await minutePasses(s)).at(-1)!;
    expect(second).toMatchObject({ seq: 1, from: first!.to, prev: checkpointHash(first!) });

    // the first event of Tuesday (WIB) ends Monday with a checkpoint, as it closes Monday's digest
    await registerUser(s);
    await chained(s);
    const mondayEnd = await logLength(s);
    s.clock.set('2026-01-05T17:00:00.000Z'); // Tuesday 00:00 WIB
    await registerUser(s);
    await minutePasses(s);
    const all = await listLedgerCheckpoints(s.pool);
    expect(all.map(c => c.to)).toContain(mondayEnd);
    all.forEach((c, i) => {
      expect(c.seq).toBe(i);
      expect(c.from).toBe(i === 0 ? 0 : all[i - 1]!.to);
      expect(c.prev).toBe(i === 0 ? genesisHash : checkpointHash(all[i - 1]!));
      expect(c.events).toBe(c.to - c.from);
      expect(checkpointSignatureValid(c, publicKey)).toBe(true);
    });
    expect(all.at(-1)!.to).toBe(await logLength(s));
    expect(fileLines(s)).toEqual(all);
    const verdict = await verifyLog(s, { publicKey, kept: [] });
    expect(verdict).toMatchObject({ clean: true, problems: [], checkpoints: all.length, unchecked: 0 });
  });

  it("cover deleted streams' events, which stay in the log: deleted before or after the chain took them in", async () => {
    service = await startTestService();
    const s = service;
    const { publicKey } = digestSigner(s.config.digestSigningKey!);
    const happened = () => [
      {
        type: 'Happened',
        version: 1,
        data: { n: 1 },
        metadata: {
          eventId: nextUuid(),
          correlationId: nextUuid(),
          causationId: null,
          actor: 'test',
          occurredAt: s.clock.now().toISOString(),
        },
      },
    ];
    await s.ledger.stop(); // so that the chain reads it only after its deletion, which readers of "all" pass by
    await s.store.append('gone-early', happened(), 'no_stream');
    await s.store.deleteStream('gone-early');
    await registerUser(s);
    await s.ledger.start();
    await s.store.append('gone-late', happened(), 'no_stream');
    await minutePasses(s);
    await s.store.deleteStream('gone-late');
    await registerUser(s);
    const all = await minutePasses(s);
    expect(all.at(-1)!.to).toBe(await logLength(s));
    expect((await verifyLog(s, { publicKey, kept: [] })).problems).toEqual([]);
  });

  it('catch up the file with the rows a crash kept from it, and cut a torn last line', async () => {
    service = await startTestService();
    const s = service;
    await registerUser(s);
    await minutePasses(s);
    await registerUser(s);
    await minutePasses(s);
    const file = path.join(s.config.ledgerCheckpointDir, checkpointFileName);
    // each line is written just after its row's commit
    const lines = await eventually(async () => {
      const written = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      return written.length === 2 && written;
    }, 10_000);
    // the second line lost and the first half-written, as a crash between the commit and the write can leave them
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, `${lines[0]}\n${lines[1]!.slice(0, 40)}`);
    await s.ledger.stop();
    await s.ledger.start();
    expect(readFileSync(file, 'utf8')).toBe(`${lines[0]}\n${lines[1]}\n`);
  });

  it('the newest is shown to an admin at /api/admin/ledger/checkpoints/latest, 404 before the first, and to nobody else', async () => {
    service = await startTestService();
    const s = service;
    const admin = await signedInAdmin(s);
    const none = await admin.session('GET', '/api/admin/ledger/checkpoints/latest');
    expect(none.statusCode, none.body).toBe(404);
    const made = (await minutePasses(s)).at(-1)!;
    const shown = await admin.session('GET', '/api/admin/ledger/checkpoints/latest');
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json()).toEqual({
      status: 'success',
      data: { ...made, hash: checkpointHash(made), cosignatures: [] },
    });
    const user = await registerUser(s);
    expect(
      (
        await s.app.inject({
          method: 'GET',
          url: '/api/admin/ledger/checkpoints/latest',
          cookies: { svc_token: user.cookie },
        })
      ).statusCode,
    ).toBe(403);
    expect((await s.app.inject({ method: 'GET', url: '/api/admin/ledger/checkpoints/latest' })).statusCode).toBe(401);
  });
});
