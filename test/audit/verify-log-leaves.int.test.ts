import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { exportCommand } from '../../src/cli/audit.ts';
import { inTransaction, query } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * verify-log names the first event that differs inside a range whose root differs, from leaves the auditor kept
 * (`export --leaves`, `--leaves <file>`), once those leaves make the signed root; without them it names the range.
 */

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
  s.clock.set('2026-01-05T03:00:00.000Z');
}, 60_000);
afterAll(async () => s?.close());

async function signMinute() {
  const head = await s.store.headPosition();
  expect(await s.ledger.waitFor(head, 10_000)).toBe(true);
  s.clock.advance(60_000);
  await eventually(
    async () => (await listLedgerCheckpoints(s.pool)).at(-1)?.lastPosition === positionText(head),
    10_000,
  );
}

const quiet = { print: () => {}, complain: () => {} };

describe('verify-log --leaves', () => {
  it('names the first changed event of a range from the leaves kept, and nothing from leaves that do not make the root', async () => {
    for (let i = 0; i < 6; i++) await registerUser(s);
    await signMinute();
    const dir = mkdtempSync(path.join(tmpdir(), 'verify-log-leaves-'));
    const lines: string[] = [];
    await exportCommand(s.store, ['--all', '--leaves'], line => void lines.push(line), quiet);
    const leaves = path.join(dir, 'leaves.jsonl');
    writeFileSync(leaves, lines.join(''));
    const log: RecordedEvent[] = [];
    for await (const e of logEvents(s.store)) log.push(e);
    const range = (await listLedgerCheckpoints(s.pool)).find(c => c.events >= 4)!;
    const index = range.from + 2;
    const changed = log[index]!;
    await inTransaction(s.pool, async tx => {
      await query(tx, 'ReplicaRole', 'set local session_replication_role = replica');
      await query(
        tx,
        'Tamper',
        `update es_events set metadata = replace(metadata::text, 'Z"', '1Z"')::json, occurred_at = occurred_at + interval '1 millisecond'
          where event_id = $1`,
        [changed.metadata.eventId],
      );
    });
    const publicKey = digestSigner(s.config.digestSigningKey!).publicKey;

    const named = await verifyLog(s, { publicKey, kept: [], leaves });
    expect(named.problems[0]).toMatchObject({
      index,
      seq: range.seq,
      streamId: changed.streamId,
      revision: changed.revision,
      problem: expect.stringContaining(`the first event of checkpoint ${range.seq}'s range that differs`),
    });
    const unnamed = await verifyLog(s, { publicKey, kept: [] });
    expect(unnamed.problems.some(p => p.index === index && p.streamId !== undefined)).toBe(false);

    const wrong = path.join(dir, 'wrong.jsonl');
    writeFileSync(wrong, lines.map(l => l.replace(/"leaf":"./, '"leaf":"f')).join(''));
    const cannot = await verifyLog(s, { publicKey, kept: [], leaves: wrong });
    expect(cannot.problems).toContainEqual(
      expect.objectContaining({ seq: range.seq, problem: expect.stringContaining('cannot name the event') }),
    );
  }, 60_000);
});
