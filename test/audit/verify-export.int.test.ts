import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { exportEvents } from '../../src/audit/export.ts';
import {
  checkpointHash,
  eventLeafV2,
  genesisHash,
  signCheckpoint,
  type LedgerCheckpoint,
} from '../../src/audit/ledger-format.ts';
import { appendLeaf, leafHash, rootOf, type Frontier } from '../../src/audit/merkle.ts';
import { logEvents } from '../../src/audit/stream-pages.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { eventually } from '../support/sandbox.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { createKey, keyHolder, registerUser } from '../support/http.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The outsider's verifier (docs/verify-export.mjs, node:crypto alone) against a real export of a real log, and
// checkpoints made over that log with the ledger's own format (src/audit/ledger-format.ts).

const verifier = path.resolve(import.meta.dirname, '../../docs/verify-export.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'svc-verify-export-'));
const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
const signer = digestSigner(key);

let service: TestService;
let exportLines: string[];
let checkpoints: LedgerCheckpoint[];
let files = 0;

beforeAll(async () => {
  service = await startTestService();
  // events with every kind of secret: a password hash, an API key hash, sealed credentials
  const user = await registerUser(service);
  await createKey(service, user.cookie);
  await linkServiceWallet(await keyHolder(service));
  exportLines = [];
  await exportEvents(service.store, 'all', line => void exportLines.push(line));

  // three checkpoints over the log, chained, as the service makes them
  const events = [];
  for await (const e of logEvents(service.store)) events.push(e);
  const cuts = [0, Math.floor(events.length / 3), Math.floor((2 * events.length) / 3), events.length];
  checkpoints = [];
  for (let seq = 0; seq < 3; seq++) {
    let frontier: Frontier = [];
    for (const e of events.slice(cuts[seq], cuts[seq + 1])) frontier = appendLeaf(frontier, leafHash(eventLeafV2(e)));
    const last = events[cuts[seq + 1]! - 1]!;
    const prev = seq === 0 ? genesisHash : checkpointHash(checkpoints[seq - 1]!);
    checkpoints.push(
      signCheckpoint(
        {
          v: 1,
          seq,
          from: cuts[seq]!,
          to: cuts[seq + 1]!,
          events: cuts[seq + 1]! - cuts[seq]!,
          root: rootOf(frontier),
          prev,
          at: service.clock.now().toISOString(),
          lastPosition: positionText(last.position),
          keyId: signer.keyId,
        },
        signer,
      ),
    );
  }
});
afterAll(async () => service?.close());

async function verify(lines: string[], kept: LedgerCheckpoint[] = checkpoints, publicKey = signer.publicKey) {
  const exportFile = path.join(dir, `export-${++files}.jsonl`);
  const checkpointFile = `${exportFile}.checkpoints`;
  writeFileSync(exportFile, lines.join(''));
  writeFileSync(checkpointFile, kept.map(c => JSON.stringify(c)).join('\n'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [verifier, exportFile, checkpointFile, publicKey]);
    return { code: 0, out: stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, out: failed.stdout };
  }
}

const edited = (index: number, change: (e: Record<string, any>) => void) =>
  exportLines.map((line, i) => {
    if (i !== index) return line;
    const e = JSON.parse(line);
    change(e);
    return `${JSON.stringify(e)}\n`;
  });

describe('docs/verify-export.mjs', () => {
  it('verifies every checkpoint against an untouched export, secrets present only as commitments', async () => {
    const text = exportLines.join('');
    expect(text).toContain('"$commitment"');
    expect(text).not.toMatch(/"passwordHash":"\$argon2/);
    const { code, out } = await verify(exportLines);
    expect(out).toContain('3 checkpoint(s) verified against the export, 0 not covered, 0 problem(s)');
    expect(code).toBe(0);
  });

  it('finds a changed field, a changed commitment, two events swapped, and names the checkpoint', async () => {
    const last = exportLines.length - 1;
    const changedField = await verify(edited(last, e => (e.metadata.actor = 'admin:someone-else')));
    expect(changedField.code).toBe(1);
    expect(changedField.out).toContain('checkpoint 2:');
    const registered = exportLines.findIndex(l => l.includes('"type":"UserRegistered"'));
    const commitment = await verify(edited(registered, e => (e.data.passwordHash.$commitment = '0'.repeat(64))));
    expect(commitment.code).toBe(1);
    const swapped = [...exportLines];
    const [a, b] = [JSON.parse(swapped[1]!), JSON.parse(swapped[2]!)];
    swapped[1] = `${JSON.stringify({ ...b, index: a.index })}\n`;
    swapped[2] = `${JSON.stringify({ ...a, index: b.index })}\n`;
    expect((await verify(swapped)).code).toBe(1);
  });

  it('refuses checkpoints signed by another key, or whose chain was cut', async () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const foreign = await verify(exportLines, checkpoints, other);
    expect(foreign.code).toBe(1);
    expect(foreign.out).toContain('the signature does not verify');
    const relinked = checkpoints.map(c => (c.seq === 1 ? signCheckpoint({ ...c, prev: genesisHash }, signer) : c));
    const cut = await verify(exportLines, relinked);
    expect(cut.code).toBe(1);
    expect(cut.out).toContain('checkpoint 1: prev is not the hash of checkpoint 0');
  });

  it("checks the service's own signed checkpoints against its own export, with the key it signs with", async () => {
    expect(await service.ledger.waitFor(await service.store.headPosition(), 10_000)).toBe(true);
    service.clock.advance(61_000); // a minute after the events: the service signs a checkpoint of them
    const signed = await eventually(async () => {
      const all = await listLedgerCheckpoints(service.pool);
      return all.length > 0 && all.at(-1)!.to >= exportLines.length && all;
    }, 10_000);
    const fresh: string[] = [];
    await exportEvents(service.store, 'all', line => void fresh.push(line));
    const own = digestSigner(service.config.digestSigningKey!).publicKey;
    const { code, out } = await verify(fresh, signed, own);
    expect(out).toContain(`${signed.length} checkpoint(s) verified against the export, 0 not covered, 0 problem(s)`);
    expect(code).toBe(0);
    const tampered = fresh.map((line, i) =>
      i === 0 ? line.replace(/"occurredAt":"[^"]+"/, '"occurredAt":"2020-01-01T00:00:00.000Z"') : line,
    );
    expect((await verify(tampered, signed, own)).code).toBe(1);
  });

  it('says which checkpoints an export does not cover', async () => {
    const partial = await verify(exportLines.slice(0, checkpoints[1]!.to));
    expect(partial.code).toBe(0);
    expect(partial.out).toContain('not covered by the export (some of their events are not in it): checkpoint(s) 2');
  });
});
