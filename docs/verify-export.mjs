#!/usr/bin/env node
// Checks an export of the ledger against signed checkpoints, with node's own modules only (docs/auditing.md).
// usage: node verify-export.mjs <export.jsonl> <checkpoints.jsonl | checkpoint.json> <public key: base64 SPKI DER>
// exit 0: every checkpoint the export covers is intact; 1: something differs (printed); 2: bad usage or input.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [exportFile, checkpointFile, publicKeyText] = process.argv.slice(2);
if (!exportFile || !checkpointFile || !publicKeyText) {
  console.error('usage: node verify-export.mjs <export.jsonl> <checkpoints.jsonl> <public key, base64 SPKI DER>');
  process.exit(2);
}

// canonical JSON: object keys sorted (by UTF-16 code units), no spaces, undefined members left out
const canonical = v =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object'
    ? `{${Object.keys(v).filter(k => v[k] !== undefined).sort().map(k => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v);
const sha256 = (...parts) => { const h = createHash('sha256'); for (const p of parts) h.update(p); return h.digest(); };
// RFC 6962: leaf = SHA-256(0x00 || leaf bytes), node = SHA-256(0x01 || left || right)
const leafHash = text => sha256(Buffer.from([0]), Buffer.from(text, 'utf8'));
const nodeHash = (l, r) => sha256(Buffer.from([1]), l, r);
function append(frontier, hash) {
  frontier.push({ size: 1, hash });
  while (frontier.length >= 2 && frontier.at(-1).size === frontier.at(-2).size) {
    const right = frontier.pop(), left = frontier.pop();
    frontier.push({ size: left.size * 2, hash: nodeHash(left.hash, right.hash) });
  }
}
function rootOf(frontier) {
  if (frontier.length === 0) return sha256().toString('hex');
  let root = frontier.at(-1).hash;
  for (let i = frontier.length - 2; i >= 0; i--) root = nodeHash(frontier[i].hash, root);
  return root.toString('hex');
}
// what a checkpoint's signature covers; its hash is the next one's prev
const signedText = c => `ledger-checkpoint:v1:${canonical({ v: c.v, seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root, prev: c.prev, at: c.at, lastPosition: c.lastPosition, keyId: c.keyId })}`;

let publicKey;
try {
  publicKey = createPublicKey({ key: Buffer.from(publicKeyText, 'base64'), format: 'der', type: 'spki' });
} catch {
  console.error('the public key is not a base64 SPKI DER key');
  process.exit(2);
}
const checkpoints = readFileSync(checkpointFile, 'utf8').split('\n').filter(l => l.trim()).map(l => JSON.parse(l)).sort((a, b) => a.seq - b.seq);
const problems = [];
checkpoints.forEach((c, i) => {
  if (!verify(null, Buffer.from(signedText(c), 'utf8'), publicKey, Buffer.from(c.signature, 'base64'))) problems.push(`checkpoint ${c.seq}: the signature does not verify with the key given`);
  const before = checkpoints[i - 1];
  if (before && before.seq === c.seq - 1) {
    if (c.prev !== sha256(signedText(before)).toString('hex')) problems.push(`checkpoint ${c.seq}: prev is not the hash of checkpoint ${before.seq}`);
    if (c.from !== before.to) problems.push(`checkpoint ${c.seq}: starts at ${c.from}, checkpoint ${before.seq} ended at ${before.to}`);
  }
  if (c.events !== c.to - c.from) problems.push(`checkpoint ${c.seq}: events ${c.events} is not to - from`);
});

// one pass over the export: each line goes to the checkpoint whose [from, to) holds its index
let at = 0, frontier = [], expected = null, verified = 0;
const uncovered = [];
const finish = (c, complete) => {
  if (!complete) { uncovered.push(c.seq); return; }
  const root = rootOf(frontier);
  if (root !== c.root) problems.push(`checkpoint ${c.seq}: the export's events ${c.from}..${c.to - 1} make root ${root}, signed ${c.root}: an event was changed, added, removed or moved`);
  else verified++;
};
const lines = createInterface({ input: createReadStream(exportFile), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const e = JSON.parse(line);
  while (at < checkpoints.length && e.index >= checkpoints[at].to) { finish(checkpoints[at], expected === checkpoints[at].to); at++; frontier = []; expected = null; }
  const c = checkpoints[at];
  if (!c || e.index < c.from) continue;
  if (expected === null) expected = e.index === c.from ? c.from : -1; // the export must hold the checkpoint's first event
  if (expected === -1) continue;
  if (e.index !== expected) { expected = -1; continue; } // a gap in the export: this checkpoint cannot be checked
  append(frontier, leafHash(canonical({ streamId: e.streamId, revision: e.revision, type: e.type, version: e.version, data: e.data, metadata: e.metadata })));
  expected++;
}
for (; at < checkpoints.length; at++, frontier = [], expected = null) finish(checkpoints[at], expected === checkpoints[at].to);

for (const p of problems) console.log(p);
if (uncovered.length > 0) console.log(`not covered by the export (some of their events are not in it): checkpoint(s) ${uncovered.join(', ')}`);
console.log(`${verified} checkpoint(s) verified against the export, ${uncovered.length} not covered, ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
