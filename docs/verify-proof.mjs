#!/usr/bin/env node
// Checks one event's proof of inclusion (npm run cli -- prove-event <eventId> > proof.json) with node's own modules
// only (docs/auditing.md, "Proving one event"): the event's leaf recomputed from the event, the root recomputed from the
// leaf and its audit path (RFC 6962), and the checkpoint's signature checked with the public key you pinned.
// usage: node verify-proof.mjs <proof.json> <public key, base64 SPKI DER>
// exit 0: the event is in the signed log at its index; 1: the proof fails (printed); 2: bad usage.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// the same bytes as docs/verify-export.mjs: canonical JSON, RFC 6962 hashes, the checkpoint's signed text
const canonical = v =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object'
    ? `{${Object.keys(v).filter(k => v[k] !== undefined).sort().map(k => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v);
const sha256 = (...parts) => { const h = createHash('sha256'); for (const p of parts) h.update(p); return h.digest('hex'); };
const leafOf = e => sha256(Buffer.from([0]), Buffer.from(canonical({ streamId: e.streamId, revision: e.revision, type: e.type, version: e.version, data: e.data, metadata: e.metadata }), 'utf8'));
const nodeHash = (l, r) => sha256(Buffer.from([1]), Buffer.from(l, 'hex'), Buffer.from(r, 'hex'));
const signedText = c => `ledger-checkpoint:v1:${canonical({ v: c.v, seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root, prev: c.prev, at: c.at, lastPosition: c.lastPosition, keyId: c.keyId, nextKey: c.nextKey })}`;

/** The root leaf m of n makes with its audit path (RFC 9162 2.1.3.2), or null when the path cannot be one. */
export function rootFromPath(leaf, m, n, path) {
  if (!Number.isInteger(m) || m < 0 || m >= n) return null;
  let fn = m, sn = n - 1, r = leaf;
  for (const p of path) {
    if (sn === 0 || !/^[0-9a-f]{64}$/.test(p)) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn >>= 1; sn >>= 1; }
    } else r = nodeHash(r, p);
    fn >>= 1; sn >>= 1;
  }
  return sn === 0 ? r : null;
}

/** What is wrong with a proof, checked with the public key given (a KeyObject); empty when it holds. */
export function proofProblems(proof, publicKey) {
  const { event, index, checkpoint: c, leafHash, path } = proof;
  const problems = [];
  if (event.index !== index) problems.push(`the event's line says index ${event.index}, the proof ${index}`);
  if (leafOf(event) !== leafHash) problems.push('the event does not make the leaf hash given: it was changed');
  if (!(index >= c.from && index < c.to)) problems.push(`index ${index} is not in checkpoint ${c.seq}'s range [${c.from}, ${c.to})`);
  const root = rootFromPath(leafOf(event), index - c.from, c.events, path);
  if (root !== c.root) problems.push(`the event and its path make root ${root ?? '(none: the path is not one of this range)'}, checkpoint ${c.seq} signed ${c.root}`);
  if (!verify(null, Buffer.from(signedText(c), 'utf8'), publicKey, Buffer.from(c.signature, 'base64'))) problems.push(`checkpoint ${c.seq}: the signature does not verify with the key given`);
  return problems;
}

function main() {
  const [proofFile, publicKeyText] = process.argv.slice(2);
  if (!proofFile || !publicKeyText) {
    console.error('usage: node verify-proof.mjs <proof.json> <public key, base64 SPKI DER>');
    return 2;
  }
  let publicKey;
  try {
    publicKey = createPublicKey({ key: Buffer.from(publicKeyText, 'base64'), format: 'der', type: 'spki' });
  } catch {
    console.error('the public key is not a base64 SPKI DER key');
    return 2;
  }
  const proof = JSON.parse(readFileSync(proofFile, 'utf8'));
  const problems = proofProblems(proof, publicKey);
  for (const p of problems) console.log(p);
  const { event, index, checkpoint: c } = proof;
  if (problems.length === 0) console.log(`event ${event.metadata?.eventId} (${event.streamId}@${event.revision}) is index ${index} of the log, under checkpoint ${c.seq} (events ${c.from}..${c.to - 1}): verified`);
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { process.exit(main()); } catch (err) { console.error(err.message); process.exit(2); }
}
