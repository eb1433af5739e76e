#!/usr/bin/env node
// Checks an export of the ledger against signed checkpoints, with node's own modules only (docs/auditing.md).
// usage: node verify-export.mjs [--partial] [--leaves <file>] [--witness-key <key> ... --cosignatures <file>] <export.jsonl> <checkpoints.jsonl> <public key>
//   --witness-key: a witness's public key (base64 SPKI DER), repeatable; --cosignatures: what /api/audit/ledger/cosignatures
//                  answered (or JSON lines): the checkpoints a witness has not cosigned, and those it contradicts, are named
//   --partial: the export is a part of the log (export --from --to): checkpoints it does not hold whole are listed
//   --leaves:  leaf hashes (export --leaves) or an earlier export, to name the first event that differs in a range
// exit 0: the export is whole and every checkpoint in it is intact; 1: something differs (printed); 2: bad usage.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, readFileSync, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

// canonical JSON: object keys sorted (by UTF-16 code units), no spaces, undefined members left out
const canonical = v =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object'
    ? `{${Object.keys(v).filter(k => v[k] !== undefined).sort().map(k => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v);
const sha256 = (...parts) => { const h = createHash('sha256'); for (const p of parts) h.update(p); return h.digest(); };
// RFC 6962: leaf = SHA-256(0x00 || leaf bytes), node = SHA-256(0x01 || left || right)
const leafOf = e => sha256(Buffer.from([0]), Buffer.from(canonical({ streamId: e.streamId, revision: e.revision, type: e.type, version: e.version, data: e.data, metadata: e.metadata }), 'utf8'));
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
const rootOfLeaves = leaves => { const f = []; for (const l of leaves) append(f, Buffer.from(l, 'hex')); return rootOf(f); };
// what a checkpoint's signature covers (a rotation's nextKey in it); its hash is the next one's prev
const signedText = c => `ledger-checkpoint:v1:${canonical({ v: c.v, seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root, prev: c.prev, at: c.at, lastPosition: c.lastPosition, keyId: c.keyId, nextKey: c.nextKey })}`;
// keys are base64 SPKI DER; a key's id is the first 16 hex digits of the SHA-256 of its DER
const keyIdOf = keyText => sha256(Buffer.from(keyText, 'base64')).toString('hex').slice(0, 16);
const signedBy = (c, keyText, signature) => {
  try { return verify(null, Buffer.from(signedText(c), 'utf8'), createPublicKey({ key: Buffer.from(keyText, 'base64'), format: 'der', type: 'spki' }), Buffer.from(signature ?? '', 'base64')); } catch { return false; }
};

// How the service reads an event stored by an older version of its code (src/events/*.ts): upcasters[v] turns
// version v into v + 1; defaults are fields added later, read as this value where an event lacks them.
// test/audit/verify-export-view.unit.test.ts keeps this equal to the service's own.
export const reading = {
  AccountSynced: { upcasters: { 1: d => ({ ...d, trigger: d.slot ? 'schedule' : 'refresh' }) } },
  ProviderSessionRestored: { defaults: { loginSessionId: null, credentials: null } },
  PaymentCreated: { defaults: { methodSelection: 'fixed', gateway: null } },
  PaymentMethodChosen: { defaults: { gateway: null } },
  PaymentCompleted: { defaults: { gateway: null } },
};
// `data` holds each secret as {"$commitment"}: under passwordHash or keyHash the view says "[redacted]", anywhere
// else the secret was a sealed value, "[sealed]" (src/audit/event-view.ts)
const isCommitment = v => v !== null && typeof v === 'object' && Object.keys(v).length === 1 && '$commitment' in v;
export function redacted(v) {
  if (Array.isArray(v)) return v.map(redacted);
  if (v === null || typeof v !== 'object') return v;
  if (isCommitment(v)) return '[sealed]';
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, ['passwordHash', 'keyHash'].includes(k) ? '[redacted]' : redacted(x)]));
}
/** The view the service shows of an export line: its data upcast and secrets as words; as stored when unreadable. */
export function viewOf(e) {
  if (e.unreadable) return redacted(e.data);
  const { upcasters = {}, defaults = {} } = reading[e.type] ?? {};
  let data = e.data;
  for (let v = e.version; upcasters[v]; v++) data = upcasters[v](data);
  return redacted({ ...defaults, ...data });
}
// a position is "commit/prepare"; a later event has a greater one
const positionAfter = (p, q) => {
  if (![p, q].every(t => /^\d+\/\d+$/.test(t))) return false;
  const [a, b] = [p, q].map(t => t.split('/').map(BigInt));
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
};

async function* jsonLines(file) {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    n++;
    if (!line.trim()) continue;
    try { yield JSON.parse(line); } catch { throw new Error(`${file} line ${n} is not JSON`); }
  }
}

// each checkpoint signed with the key in force (the key given, then each rotation's nextKey: a rotation is signed by
// the key in force and by its nextKey), chained to the one before it, its count its range's
function chainProblems(checkpoints, publicKeyText) {
  const problems = [];
  let key = publicKeyText;
  checkpoints.forEach((c, i) => {
    if (c.keyId !== keyIdOf(key)) problems.push(`checkpoint ${c.seq}: the signature does not verify: it is signed by key ${c.keyId}, which no rotation introduced (the key in force is ${keyIdOf(key)})`);
    else if (!signedBy(c, key, c.signature)) problems.push(`checkpoint ${c.seq}: the signature does not verify with the key given`);
    else if (c.nextKey !== undefined) {
      if (signedBy(c, c.nextKey, c.nextKeySignature)) key = c.nextKey;
      else problems.push(`checkpoint ${c.seq}: a rotation whose nextKeySignature does not verify with its nextKey: not followed`);
    }
    const before = checkpoints[i - 1];
    if (before && before.seq === c.seq - 1) {
      if (c.prev !== sha256(signedText(before)).toString('hex')) problems.push(`checkpoint ${c.seq}: prev is not the hash of checkpoint ${before.seq}`);
      if (c.from !== before.to) problems.push(`checkpoint ${c.seq}: starts at ${c.from}, checkpoint ${before.seq} ended at ${before.to}`);
    }
    if (c.events !== c.to - c.from) problems.push(`checkpoint ${c.seq}: events ${c.events} is not to - from`);
  });
  return problems;
}

// The service's checkpoint file is appended to and never rewritten: a checkpoint signed anew for a seq it holds (a
// chain forked or re-signed from there) is a line of its own. Two checkpoints for one seq are a fork, named; the rest
// is checked against the newest line of each seq, the chain as it now stands.
function newestOfEachSeq(lines) {
  const bySeq = new Map(), forks = [];
  for (const c of lines) {
    const hash = sha256(signedText(c)).toString('hex'), seen = bySeq.get(c.seq);
    if (seen && seen.hash !== hash) forks.push(`checkpoint ${c.seq}: the checkpoints given hold two for it (${seen.hash.slice(0, 16)}…, then ${hash.slice(0, 16)}…): the chain was forked or signed anew`);
    bySeq.set(c.seq, { c, hash });
  }
  return { checkpoints: [...bySeq.values()].map(v => v.c).sort((a, b) => a.seq - b.seq), forks };
}

// Witnesses (docs/auditing.md): each cosigns the newest checkpoint it checked extends the one before, so its newest
// cosignature vouches for the chain up to it; a cosignature of another checkpoint for a seq is a fork, of a seq past
// the newest given a rollback. Cosignatures are checked with the witness keys given; one that does not verify counts for nothing.
function readCosignatures(file) {
  const text = readFileSync(file, 'utf8').trim();
  let whole;
  try { whole = JSON.parse(text); } catch { return text.split('\n').filter(l => l.trim()).map(l => JSON.parse(l)); }
  return Array.isArray(whole) ? whole : whole.cosignatures ?? whole.data?.cosignatures ?? [whole];
}
function witnessProblems(checkpoints, cosignatures, witnessKeys) {
  const problems = [], bySeq = new Map(checkpoints.map(c => [c.seq, c])), last = checkpoints.at(-1);
  for (const keyText of witnessKeys) {
    const keyId = sha256(Buffer.from(keyText, 'base64')).toString('hex').slice(0, 16), key = createPublicKey({ key: Buffer.from(keyText, 'base64'), format: 'der', type: 'spki' });
    let newest = -1;
    for (const w of cosignatures) {
      if (w.witnessKeyId !== keyId || !verify(null, Buffer.from(`ledger-cosignature:v1:${w.checkpointHash}`, 'utf8'), key, Buffer.from(w.signature ?? '', 'base64'))) continue;
      const c = bySeq.get(w.seq);
      if (!c) problems.push(`checkpoint ${w.seq}: witness ${keyId} cosigned it (${w.checkpointHash.slice(0, 16)}…) and it is not among the checkpoints given: the log was rolled back, or they stop before it`);
      else if (sha256(signedText(c)).toString('hex') !== w.checkpointHash) problems.push(`checkpoint ${w.seq}: contradicts the one witness ${keyId} cosigned for this seq (${w.checkpointHash.slice(0, 16)}…): the chain was forked or re-signed`);
      else newest = Math.max(newest, w.seq);
    }
    const first = checkpoints.find(c => c.seq > newest);
    if (first) problems.push(`checkpoints ${first.seq} to ${last.seq} are not cosigned by witness ${keyId}${newest < 0 ? ' (it cosigned none)' : ` (its newest: ${newest})`}`);
  }
  return problems;
}

async function main() {
  const { values: options, positionals } = parseArgs({ options: { partial: { type: 'boolean' }, leaves: { type: 'string' }, 'witness-key': { type: 'string', multiple: true }, cosignatures: { type: 'string' } }, allowPositionals: true });
  const [exportFile, checkpointFile, publicKeyText] = positionals;
  if (!exportFile || !checkpointFile || !publicKeyText) {
    console.error('usage: node verify-export.mjs [--partial] [--leaves <file>] <export.jsonl> <checkpoints.jsonl> <public key, base64 SPKI DER>');
    return 2;
  }
  let publicKey;
  try {
    publicKey = createPublicKey({ key: Buffer.from(publicKeyText, 'base64'), format: 'der', type: 'spki' });
  } catch {
    console.error('the public key is not a base64 SPKI DER key');
    return 2;
  }
  const lines = readFileSync(checkpointFile, 'utf8').split('\n').filter(l => l.trim()).map(l => JSON.parse(l));
  const { checkpoints, forks } = newestOfEachSeq(lines);
  const problems = [...forks, ...chainProblems(checkpoints, publicKeyText)];
  const witnessKeys = options['witness-key'] ?? [];
  if (witnessKeys.length > 0) {
    if (!options.cosignatures) {
      console.error('--witness-key needs --cosignatures <file> (GET /api/audit/ledger/cosignatures, or JSON lines)');
      return 2;
    }
    try { witnessKeys.forEach(k => createPublicKey({ key: Buffer.from(k, 'base64'), format: 'der', type: 'spki' })); } catch {
      console.error('a --witness-key is not a base64 SPKI DER key');
      return 2;
    }
    problems.push(...witnessProblems(checkpoints, readCosignatures(options.cosignatures), witnessKeys));
  }

  // one pass over the export: its indexes run up by one; each line goes to the checkpoint whose [from, to) holds it
  let at = 0, range = null, last = null, first = null, unsigned = 0, verified = 0;
  const report = [], notWhole = [], differing = [];
  const close = c => {
    const r = range ?? { count: 0, frontier: [], leaves: [] };
    range = null;
    const span = `events ${c.from}..${c.to - 1}`;
    if (r.count < c.events || r.first !== c.from) {
      notWhole.push(c.seq);
      report.push(`checkpoint ${c.seq}: ${span}, ${r.count} of ${c.events} in the export: not checked`);
      if (!options.partial) problems.push(`checkpoint ${c.seq}: ${span} are not all in the export (it holds ${r.count}); an export of part of the log needs --partial`);
      return;
    }
    const root = rootOf(r.frontier);
    let verdict = 'verified';
    if (root !== c.root) {
      verdict = 'DIFFERS';
      problems.push(`checkpoint ${c.seq}: the export's ${span} make root ${root}, signed ${c.root}: an event was changed, added, removed or moved`);
      differing.push({ c, leaves: r.leaves });
    } else if (r.lastPosition !== c.lastPosition) {
      verdict = 'its last position differs';
      problems.push(`index ${c.to - 1}: position ${r.lastPosition}, checkpoint ${c.seq} signed lastPosition ${c.lastPosition}`);
    } else verified++;
    report.push(`checkpoint ${c.seq}: ${span}, ${r.count} event(s): ${verdict}`);
  };
  for await (const e of jsonLines(exportFile)) {
    if (last === null) first = e.index;
    else if (e.index !== last.index + 1) {
      const what = e.index === last.index ? 'twice' : e.index < last.index ? 'out of order' : `${e.index - last.index - 1} event(s) missing before it`;
      problems.push(`index ${e.index}: ${what} (after index ${last.index})`);
    }
    if (last !== null && !positionAfter(e.position, last.position)) problems.push(`index ${e.index}: position ${e.position} is not after ${last.position} (index ${last.index})`);
    if (canonical(e.view) !== canonical(viewOf(e))) problems.push(`index ${e.index}: view is not what data reads as`);
    last = e;
    while (at < checkpoints.length && e.index >= checkpoints[at].to) close(checkpoints[at++]);
    const c = checkpoints[at];
    if (!c || e.index < c.from) { unsigned++; continue; }
    range ??= { count: 0, first: e.index, frontier: [], leaves: [] };
    const leaf = leafOf(e);
    append(range.frontier, leaf);
    if (options.leaves) range.leaves.push(leaf.toString('hex'));
    range.count++;
    if (e.index === c.to - 1) range.lastPosition = e.position;
  }
  while (at < checkpoints.length) close(checkpoints[at++]);
  if (options.partial && verified === 0) problems.push('no checkpoint lies whole in the export: nothing in it is signed');
  if (options.leaves) await pinpoint(options.leaves, differing, problems);

  for (const line of report) console.log(line);
  for (const p of problems) console.log(p);
  if (notWhole.length > 0) console.log(`not whole in the export: checkpoint(s) ${notWhole.join(', ')}`);
  if (unsigned > 0) console.log(`${unsigned} event(s) of the export are in no checkpoint given (not signed yet, or before the first)`);
  console.log(`export: indexes ${first ?? '-'}..${last?.index ?? '-'}; ${verified} checkpoint(s) verified, ${notWhole.length} not whole in it, ${problems.length} problem(s)`);
  return problems.length === 0 ? 0 : 1;
}

// Leaves kept from before (export --leaves, or an earlier export) name the first event of a differing range, when
// they themselves make the signed root.
async function pinpoint(file, differing, problems) {
  const kept = new Map(differing.map(d => [d.c.seq, []]));
  for await (const l of jsonLines(file)) {
    const d = differing.find(x => l.index >= x.c.from && l.index < x.c.to);
    if (d) kept.get(d.c.seq)[l.index - d.c.from] = l.leaf ?? leafOf(l).toString('hex');
  }
  for (const { c, leaves } of differing) {
    const theirs = kept.get(c.seq);
    if (theirs.length !== c.events || theirs.includes(undefined) || rootOfLeaves(theirs) !== c.root) {
      problems.push(`checkpoint ${c.seq}: the leaves given do not make its signed root either: they cannot name the event`);
      continue;
    }
    const i = theirs.findIndex((leaf, k) => leaf !== leaves[k]);
    problems.push(`checkpoint ${c.seq}: the first event that differs from the signed leaves is index ${c.from + i}`);
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(code => process.exit(code), err => { console.error(err.message); process.exit(2); });
}
