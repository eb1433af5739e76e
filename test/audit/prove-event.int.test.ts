import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import { proveEventCommand } from '../../src/cli/prove-event.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { registerUser } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * `prove-event` gives an event's audit path to the signed checkpoint whose range holds it, and docs/verify-proof.mjs
 * checks it with the public key alone: an intact proof verifies; a changed event, a wrong path node, a proof held
 * against another checkpoint fail.
 */

let s: TestService;
let publicKey: string;
beforeAll(async () => {
  s = await startTestService();
  s.clock.set('2026-01-05T03:00:00.000Z');
  publicKey = digestSigner(s.config.digestSigningKey!).publicKey;
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

type Proof = {
  event: Record<string, unknown> & { data: unknown };
  index: number;
  checkpoint: { seq: number; from: number; to: number };
  path: string[];
};

async function proofOf(eventId: string): Promise<{ code: number; proof: Proof | null; said: string[] }> {
  const said: string[] = [];
  let printed = '';
  const code = await proveEventCommand(s, [eventId], {
    print: t => void (printed = t),
    complain: t => void said.push(t),
  });
  return { code, proof: printed ? (JSON.parse(printed) as Proof) : null, said };
}

const dir = mkdtempSync(path.join(tmpdir(), 'prove-event-'));
const verifier = path.resolve(import.meta.dirname, '../../docs/verify-proof.mjs');
async function verified(proof: Proof, name: string) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(proof));
  try {
    const { stdout } = await promisify(execFile)('node', [verifier, file, publicKey]);
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('prove-event and docs/verify-proof.mjs', () => {
  it('prove an event under its signed checkpoint, and fail a changed event, a wrong node or another checkpoint', async () => {
    for (let i = 0; i < 5; i++) await registerUser(s);
    await signMinute();
    for (let i = 0; i < 3; i++) await registerUser(s);
    await signMinute();
    const log: RecordedEvent[] = [];
    for await (const e of logEvents(s.store)) log.push(e);
    const checkpoints = await listLedgerCheckpoints(s.pool);
    const first = checkpoints.find(c => c.events >= 3)!;
    const index = first.from + 2;

    const { code, proof } = await proofOf(log[index]!.metadata.eventId);
    expect(code).toBe(0);
    expect(proof).toMatchObject({ index, checkpoint: { seq: first.seq }, event: { index } });
    expect(proof!.path.length).toBeGreaterThan(0);
    const intact = await verified(proof!, 'intact');
    expect(intact.code, intact.stdout).toBe(0);
    expect(intact.stdout).toContain(`is index ${index} of the log, under checkpoint ${first.seq}`);

    const changed = {
      ...proof!,
      event: { ...proof!.event, metadata: { ...(proof!.event.metadata as object), actor: 'someone else' } },
    };
    expect(await verified(changed, 'changed')).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('was changed'),
    });
    const wrongNode = {
      ...proof!,
      path: proof!.path.map((p, i) => (i === 0 ? p.replace(/^./, c => (c === '0' ? '1' : '0')) : p)),
    };
    expect(await verified(wrongNode, 'wrong-node')).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('make root'),
    });
    const other = checkpoints.find(c => c.seq !== first.seq)!;
    const elsewhere = { ...proof!, checkpoint: other };
    expect((await verified(elsewhere, 'elsewhere')).code).toBe(1);

    expect(await proofOf(nextUuid())).toMatchObject({ code: 1, said: [expect.stringContaining('no event')] });
    await registerUser(s);
    const unsigned = (await s.store.readLog(log.at(-1)!.position, 1))[0]!;
    expect(await proofOf(unsigned.metadata.eventId)).toMatchObject({
      code: 1,
      said: [expect.stringContaining('in no signed checkpoint yet')],
    });
    expect((await proofOf('not-an-id')).code).toBe(2);
  }, 60_000);
});
