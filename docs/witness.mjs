#!/usr/bin/env node
// A witness of the ledger, with node's own modules only (docs/auditing.md, Witnesses): it checks that the service's
// newest checkpoint extends the last one it vouched for, over the events since, and posts its cosignature of it.
// usage: node witness.mjs --url <service URL> --state <file> [--public-key <base64 SPKI DER>] [--token <auditor token>]
//   --state:      where it keeps what it vouched for, the ledger's key(s) it trusts and its own key pair (made on the
//                 first run, with --public-key: the ledger's key you pinned); the token may come as WITNESS_TOKEN
// exit 0: checked and cosigned (or no checkpoint yet); 1: refused (a fork, a rollback, a checkpoint or event that does
// not verify; said why) or the service could not be asked; 2: bad usage.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

// canonical JSON: object keys sorted (by UTF-16 code units), no spaces, undefined members left out
const canonical = v =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object'
    ? `{${Object.keys(v).filter(k => v[k] !== undefined).sort().map(k => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v);
const sha256 = (...parts) => { const h = createHash('sha256'); for (const p of parts) h.update(p); return h.digest(); };
// RFC 6962: leaf = SHA-256(0x00 || leaf bytes), node = SHA-256(0x01 || left || right), kept as a frontier
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
// what a checkpoint's signature covers (a rotation's nextKey in it); its hash is the next one's prev
const signedText = c => `ledger-checkpoint:v1:${canonical({ v: c.v, seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root, prev: c.prev, at: c.at, lastPosition: c.lastPosition, keyId: c.keyId, nextKey: c.nextKey })}`;
export const checkpointHash = c => sha256(signedText(c)).toString('hex');
export const cosignedText = hash => `ledger-cosignature:v1:${hash}`;
const publicKeyOf = base64 => createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
export const keyIdOf = base64 => sha256(Buffer.from(base64, 'base64')).toString('hex').slice(0, 16);
const verifies = (text, base64Key, signature) => { try { return verify(null, Buffer.from(text, 'utf8'), publicKeyOf(base64Key), Buffer.from(signature ?? '', 'base64')); } catch { return false; } };
const genesis = '0'.repeat(64);

class Refusal extends Error {}
const refuse = why => { throw new Refusal(why); };

/** The checkpoint `c` as the next after `before` (null: the first), signed by the key trusted; answers the key trusted after it. */
function checkLink(c, before, key) {
  const at = `checkpoint ${c.seq}`;
  const expected = before ? { seq: before.seq + 1, prev: checkpointHash(before), from: before.to } : { seq: 0, prev: genesis, from: 0 };
  if (c.seq !== expected.seq) refuse(`${at} follows checkpoint ${before?.seq ?? '(none)'}: checkpoint ${expected.seq} is missing`);
  if (c.prev !== expected.prev) refuse(`${at}: prev is not the hash of checkpoint ${before?.seq ?? '(genesis)'}: the chain was forked or re-signed`);
  if (c.from !== expected.from) refuse(`${at} starts at event ${c.from}, the one before ended at ${expected.from}`);
  if (c.events !== c.to - c.from) refuse(`${at}: events ${c.events} is not to - from`);
  if (c.keyId !== keyIdOf(key)) refuse(`${at} is signed by key ${c.keyId}, the key trusted is ${keyIdOf(key)}: the key changed without a rotation`);
  if (!verifies(signedText(c), key, c.signature)) refuse(`${at}: the signature does not verify with the key trusted`);
  if (c.nextKey === undefined) return key;
  if (!verifies(signedText(c), c.nextKey, c.nextKeySignature)) refuse(`${at} rotates to key ${keyIdOf(c.nextKey)}, whose signature of it does not verify`);
  return c.nextKey;
}

/** The service's routes for an auditor's token; a refusal or an unreachable service is said and ends the run. */
function client(url, token, fetchFn) {
  const call = async (method, path, body) => {
    let response;
    try {
      response = await fetchFn(new URL(path, url), { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    } catch (err) { throw new Error(`${method} ${path}: the service could not be reached (${err.message})`); }
    const answer = await response.json().catch(() => ({}));
    if (response.status === 404 && method === 'GET') return null;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.error?.message ?? answer.message ?? ''}`.trim());
    return answer.data;
  };
  return {
    latest: () => call('GET', '/api/audit/ledger/checkpoints/latest'),
    checkpoints: (from, limit) => call('GET', `/api/audit/ledger/checkpoints?from=${from}&limit=${limit}`),
    events: (after, index, limit) => call('GET', `/api/audit/ledger/events?index=${index}&limit=${limit}${after ? `&after=${after}` : ''}`),
    cosign: cosignature => call('POST', '/api/audit/ledger/cosignatures', cosignature),
  };
}

/** The checkpoints after the one held up to the newest's seq, the held one first when there is one: a fork or a rollback refused. */
async function newCheckpoints(api, held, newest) {
  if (held && newest.seq < held.checkpoint.seq) refuse(`the service's newest checkpoint is ${newest.seq}, this witness cosigned checkpoint ${held.checkpoint.seq}: the log was rolled back`);
  const list = [];
  for (let from = held ? held.checkpoint.seq : 0; from <= newest.seq;) {
    const page = (await api.checkpoints(from, Math.min(1000, newest.seq - from + 1))).checkpoints;
    if (page.length === 0) break;
    list.push(...page);
    from = page.at(-1).seq + 1;
  }
  if (held) {
    const same = list.shift();
    if (same?.seq !== held.checkpoint.seq) refuse(`the service no longer has checkpoint ${held.checkpoint.seq}, which this witness cosigned: the log was rolled back`);
    if (checkpointHash(same) !== held.hash) refuse(`the service's checkpoint ${same.seq} has hash ${checkpointHash(same)}, this witness cosigned ${held.hash}: a fork`);
  }
  const last = list.at(-1) ?? held?.checkpoint;
  if (last?.seq !== newest.seq || checkpointHash(last) !== checkpointHash(newest)) refuse(`the service's newest checkpoint ${newest.seq} is not the one it lists for that seq: a fork`);
  return list;
}

/** Recomputes each checkpoint's root from the events [first.from, last.to), read a page at a time from where `held` ended. */
async function checkRoots(api, held, checkpoints, say) {
  let after = held?.checkpoint.lastPosition ?? null, index = held?.checkpoint.to ?? 0;
  let at = 0, frontier = [], lastPosition = null;
  const close = () => {
    const c = checkpoints[at++], root = rootOf(frontier);
    if (root !== c.root) refuse(`checkpoint ${c.seq}: events ${c.from}..${c.to - 1} make root ${root}, signed ${c.root}: an event was changed, added, removed or moved`);
    if (c.to > c.from && lastPosition !== c.lastPosition) refuse(`checkpoint ${c.seq}: its last event is at ${lastPosition}, signed ${c.lastPosition}`);
    say(`checkpoint ${c.seq}: events ${c.from}..${c.to - 1}, ${c.events} event(s): extends checkpoint ${c.seq - 1 < 0 ? '(genesis)' : c.seq - 1}`);
    frontier = [];
  };
  while (at < checkpoints.length && checkpoints[at].to === index) close();
  while (at < checkpoints.length) {
    const page = await api.events(after, index, Math.min(5000, checkpoints.at(-1).to - index));
    for (const e of page.events) {
      if (e.index !== index) refuse(`the service answered event ${e.index} where event ${index} was due`);
      append(frontier, leafOf(e));
      lastPosition = e.position;
      index++;
      while (at < checkpoints.length && checkpoints[at].to === index) close();
    }
    if (at < checkpoints.length && (!page.next || page.events.length === 0)) refuse(`the log ends at event ${index}, checkpoint ${checkpoints[at].seq} covers events up to ${checkpoints[at].to - 1}: events were removed`);
    after = page.next?.after ?? after;
  }
}

function loadState(file, pin) {
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8'));
    if (pin && pin !== state.ledgerKeys[0]) throw new Error(`${file} pins another ledger key (${keyIdOf(state.ledgerKeys[0])}); a new pin needs a new state file`);
    return { state, made: false };
  }
  if (!pin) throw new Error(`${file} does not exist: the first run needs --public-key, the ledger's public key you pinned`);
  publicKeyOf(pin);
  const pair = generateKeyPairSync('ed25519');
  const publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const privateKey = pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  return { state: { v: 1, ledgerKeys: [pin], held: null, witness: { keyId: keyIdOf(publicKey), publicKey, privateKey } }, made: true };
}

const saveState = (file, state) => {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
};

/** One run of the witness (the CLI's `witness` runs this too): answers the exit code. */
export async function runWitness(args, io = {}) {
  const { fetch: fetchFn = fetch, print = t => console.log(t), complain = t => console.error(t), env = process.env } = io;
  const { values } = parseArgs({ args, options: { url: { type: 'string' }, state: { type: 'string' }, 'public-key': { type: 'string' }, token: { type: 'string' } } });
  const token = values.token ?? env.WITNESS_TOKEN;
  if (!values.url || !values.state || !token) {
    complain('usage: node witness.mjs --url <service URL> --state <file> [--public-key <base64 SPKI DER>] [--token <auditor token>, or WITNESS_TOKEN]');
    return 2;
  }
  let loaded;
  try { loaded = loadState(values.state, values['public-key']); } catch (err) { complain(`witness: ${err.message}`); return 2; }
  const { state } = loaded;
  if (loaded.made) {
    saveState(values.state, state);
    print(`witness key ${state.witness.keyId}: ${state.witness.publicKey} (publish it: verifiers take it as --witness-key)`);
  }
  const api = client(values.url, token, fetchFn);
  try {
    const newest = await api.latest();
    if (!newest) {
      if (state.held) refuse(`the service has no checkpoint, this witness cosigned checkpoint ${state.held.checkpoint.seq}: the log was rolled back`);
      print('no checkpoint yet: nothing to cosign');
      return 0;
    }
    const { cosignatures: _published, hash: _hash, ...checkpoint } = newest;
    const fresh = await newCheckpoints(api, state.held, checkpoint);
    let key = state.ledgerKeys.at(-1), before = state.held?.checkpoint ?? null;
    const keys = [...state.ledgerKeys];
    for (const c of fresh) {
      const next = checkLink(c, before, key);
      if (next !== key) keys.push(next);
      key = next;
      before = c;
    }
    await checkRoots(api, state.held, fresh, print);
    const held = fresh.at(-1) ?? state.held.checkpoint;
    const hash = checkpointHash(held);
    saveState(values.state, { ...state, ledgerKeys: keys, held: { checkpoint: held, hash } });
    const signature = sign(null, Buffer.from(cosignedText(hash), 'utf8'), createPrivateKey({ key: Buffer.from(state.witness.privateKey, 'base64'), format: 'der', type: 'pkcs8' })).toString('base64');
    await api.cosign({ checkpointHash: hash, seq: held.seq, witnessKeyId: state.witness.keyId, signature });
    print(`cosigned checkpoint ${held.seq} (${hash})${fresh.length === 0 ? ': nothing new since the last run' : ''}`);
    return 0;
  } catch (err) {
    if (err instanceof Refusal) complain(`witness: NOT cosigning: ${err.message}`);
    else complain(`witness: ${err.message}`);
    return 1;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await runWitness(process.argv.slice(2));
