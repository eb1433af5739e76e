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

async function verify(
  lines: string[],
  kept: LedgerCheckpoint[] = checkpoints,
  publicKey = signer.publicKey,
  options: string[] = [],
) {
  const exportFile = path.join(dir, `export-${++files}.jsonl`);
  const checkpointFile = `${exportFile}.checkpoints`;
  writeFileSync(exportFile, lines.join(''));
  writeFileSync(checkpointFile, kept.map(c => JSON.stringify(c)).join('\n'));
  const args = [verifier, ...options, exportFile, checkpointFile, publicKey];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args);
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
    for (const c of checkpoints)
      expect(out).toContain(`checkpoint ${c.seq}: events ${c.from}..${c.to - 1}, ${c.events} event(s): verified`);
    expect(out).toContain(
      `export: indexes 0..${exportLines.length - 1}; 3 checkpoint(s) verified, 0 not whole in it, 0 problem(s)`,
    );
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
    expect(out).toContain(`${signed.length} checkpoint(s) verified, 0 not whole in it, 0 problem(s)`);
    expect(code).toBe(0);
    const tampered = fresh.map((line, i) =>
      i === 0 ? line.replace(/"occurredAt":"[^"]+"/, '"occurredAt":"2020-01-01T00:00:00.000Z"') : line,
    );
    expect((await verify(tampered, signed, own)).code).toBe(1);
  });

  it('fails an export that stops before the newest checkpoint, unless it is declared partial', async () => {
    // the last lines dropped (12, when the log is long enough): checkpoint 2 is no longer whole
    const shortened = exportLines.slice(0, -Math.min(12, checkpoints[2]!.events - 1));
    const quiet = await verify(shortened);
    expect(quiet.code).toBe(1);
    expect(quiet.out).toContain('checkpoint 2: ');
    expect(quiet.out).toContain('an export of part of the log needs --partial');
    const declared = await verify(shortened, checkpoints, signer.publicKey, ['--partial']);
    expect(declared.out).toContain('not whole in the export: checkpoint(s) 2');
    expect(declared.out).toContain(`checkpoint 2: events ${checkpoints[2]!.from}..${checkpoints[2]!.to - 1}, `);
    expect(declared.code).toBe(0);
    const lateStart = await verify(exportLines.slice(checkpoints[1]!.from), checkpoints, signer.publicKey, [
      '--partial',
    ]);
    expect(lateStart.out).toContain('not whole in the export: checkpoint(s) 0');
    expect(lateStart.code).toBe(0);
    const nothingWhole = await verify(exportLines.slice(1, 3), checkpoints, signer.publicKey, ['--partial']);
    expect(nothingWhole.out).toContain('no checkpoint lies whole in the export');
    expect(nothingWhole.code).toBe(1);
  });

  it('names a fork: two checkpoints for one seq in the file, as the service appends one signed anew', async () => {
    const { signature: _, ...last } = checkpoints[2]!;
    const signedAnew = signCheckpoint({ ...last, at: new Date(Date.parse(last.at) + 60_000).toISOString() }, signer);
    const forked = await verify(exportLines, [...checkpoints, signedAnew]);
    expect(forked.out).toContain('checkpoint 2: the checkpoints given hold two for it (');
    expect(forked.out).toContain('the chain was forked or signed anew');
    expect(forked.code).toBe(1);
    // the same checkpoint kept twice is one publication, not a fork
    const repeated = await verify(exportLines, [...checkpoints, checkpoints[2]!]);
    expect(repeated.out).not.toContain('hold two');
    expect(repeated.code).toBe(0);
  });

  it('names the index where a line was dropped, even in a partial export', async () => {
    const k = checkpoints[1]!.from + 2;
    const dropped = exportLines.filter((_, i) => i !== k);
    for (const options of [[], ['--partial']]) {
      const { code, out } = await verify(dropped, checkpoints, signer.publicKey, options);
      expect(out).toContain(`index ${k + 1}: 1 event(s) missing before it (after index ${k - 1})`);
      expect(code).toBe(1);
    }
  });

  it('names the index of a duplicated line', async () => {
    const k = checkpoints[2]!.from + 1;
    const duplicated = exportLines.flatMap((line, i) => (i === k ? [line, line] : [line]));
    const { code, out } = await verify(duplicated);
    expect(out).toContain(`index ${k}: twice (after index ${k})`);
    expect(code).toBe(1);
  });

  it('names the index of two lines swapped with their indexes', async () => {
    const k = checkpoints[0]!.to - 1; // the last of checkpoint 0 and the first of checkpoint 1
    const swapped = [...exportLines];
    [swapped[k], swapped[k + 1]] = [swapped[k + 1]!, swapped[k]!];
    const { code, out } = await verify(swapped);
    expect(out).toContain(`index ${k}: out of order (after index ${k + 1})`);
    expect(code).toBe(1);
  });

  it('names the index of a view that is not what its data reads as', async () => {
    const registered = exportLines.findIndex(l => l.includes('"type":"UserRegistered"'));
    const { code, out } = await verify(edited(registered, e => (e.view.email = 'someone@else.example')));
    expect(out).toContain(`index ${registered}: view is not what data reads as`);
    expect(code).toBe(1);
  });

  it("checks positions: each after the one before, a checkpoint's last as it signed", async () => {
    const k = checkpoints[1]!.from + 1;
    const before = JSON.parse(exportLines[k - 1]!).position;
    const repeated = await verify(edited(k, e => (e.position = before)));
    expect(repeated.out).toContain(`index ${k}: position ${before} is not after ${before} (index ${k - 1})`);
    expect(repeated.code).toBe(1);
    const end = checkpoints[1]!.to - 1;
    const [commit, prepare] = JSON.parse(exportLines[end]!).position.split('/');
    const nudged = `${commit}/${BigInt(prepare) + 1n}`; // still between its neighbours
    const moved = await verify(edited(end, e => (e.position = nudged)));
    expect(moved.out).toContain(`index ${end}: position ${nudged}, checkpoint 1 signed lastPosition`);
    expect(moved.code).toBe(1);
  });

  it('names the first event that differs when leaves kept from before make the signed root', async () => {
    const leaves: string[] = [];
    await exportEvents(service.store, 'all', line => void leaves.push(line), { leaves: true });
    expect(JSON.parse(leaves[0]!)).toEqual({ index: 0, leaf: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const k = checkpoints[1]!.from + 3;
    const doctored = edited(k, e => (e.metadata.actor = 'admin:someone-else'));
    const leavesFile = path.join(dir, 'leaves.jsonl');
    const earlierExport = path.join(dir, 'earlier.jsonl');
    writeFileSync(leavesFile, leaves.join(''));
    writeFileSync(earlierExport, exportLines.join(''));
    for (const kept of [leavesFile, earlierExport]) {
      const { code, out } = await verify(doctored, checkpoints, signer.publicKey, ['--leaves', kept]);
      expect(out).toContain(`checkpoint 1: the first event that differs from the signed leaves is index ${k}`);
      expect(code).toBe(1);
    }
    writeFileSync(earlierExport, doctored.join(''));
    const { out } = await verify(doctored, checkpoints, signer.publicKey, ['--leaves', earlierExport]);
    expect(out).toContain('checkpoint 1: the leaves given do not make its signed root either');
  });
});
