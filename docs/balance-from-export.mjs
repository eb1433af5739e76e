#!/usr/bin/env node
// A gateway merchant's balance or a holding account's cash at any instant, computed from an export of the whole log
// with node's own modules only (docs/auditing.md). Check the export first: node verify-export.mjs export.jsonl ...
// usage: node balance-from-export.mjs <export.jsonl> (--merchant <user id> | --holding <account id>) --at <instant>...
// prints one JSON line per --at, the figures `npm run cli -- balance-as-of` gives; exit 1 when the export cannot
// give them (not the whole log, a stream's revisions not running up by one), 2 for bad usage.
import { createReadStream, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

// The service's rule (src/audit/balance-as-of.ts): each stream as it stood at the instant, its events in order up to
// the first one recorded later (metadata.occurredAt: when the event was recorded, not when its entry took effect).
// A ledger event carries its postings in `data` as stored (no upcaster touches them): accounts debit positive.
const recordedAfter = (e, at) => Date.parse(e.metadata.occurredAt) > at;
const postingsOf = e => (Array.isArray(e.data?.postings) ? e.data.postings : []);

/** The export's lines in order, checked to be the whole log from index 0 with no index skipped or repeated. */
async function* wholeLog(lines) {
  let expected = 0;
  for await (const e of lines) {
    if (e.index !== expected)
      throw new Error(`index ${e.index} where ${expected} was due: the figures need the whole log (export --all)`);
    expected++;
    yield e;
  }
}

/** A merchant's balances at `at` (ms): its stream `gateway-<id>` folded; what the platform owes is a credit balance. */
export async function merchantAt(lines, merchantId, at) {
  const stream = `gateway-${merchantId}`;
  const balances = {};
  let revision = -1;
  for await (const e of wholeLog(lines)) {
    if (e.streamId !== stream) continue;
    if (e.revision !== revision + 1) throw new Error(`${stream}: revision ${e.revision} follows ${revision}`);
    if (recordedAfter(e, at)) break;
    for (const p of postingsOf(e)) balances[p.account] = (balances[p.account] ?? 0) + p.amount;
    revision = e.revision;
  }
  const owed = account => 0 - (balances[`merchant:${merchantId}:${account}`] ?? 0);
  const [available, onHold] = [owed('settled'), owed('onHold')];
  return {
    merchantId,
    at: new Date(at).toISOString(),
    revision,
    balance: { settled: available + onHold, pending: owed('pending'), onHold, available },
  };
}

/**
 * A holding account's cash at `at` (ms): its `holding:<id>` postings summed over every ledger stream (`gateway-…`: a
 * merchant's, suspense, hand transfers, adjustments), each stream up to its first event recorded later.
 */
export async function holdingAt(lines, holdingAccountId, at) {
  const account = `holding:${holdingAccountId}`;
  const stopped = new Set();
  let cash = 0, postings = 0;
  for await (const e of wholeLog(lines)) {
    if (!e.streamId.startsWith('gateway-') || stopped.has(e.streamId)) continue;
    if (recordedAfter(e, at)) {
      stopped.add(e.streamId);
      continue;
    }
    const mine = postingsOf(e).filter(p => p.account === account);
    for (const p of mine) cash += p.amount;
    if (mine.length > 0) postings++;
  }
  return { holdingAccountId, at: new Date(at).toISOString(), cash, postings };
}

async function* jsonLines(file) {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    n++;
    if (!line.trim()) continue;
    try { yield JSON.parse(line); } catch { throw new Error(`${file} line ${n} is not JSON`); }
  }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function main() {
  const { values, positionals } = parseArgs({
    options: { merchant: { type: 'string' }, holding: { type: 'string' }, at: { type: 'string', multiple: true } },
    allowPositionals: true,
  });
  const id = values.merchant ?? values.holding;
  const instants = (values.at ?? []).map(t => (/^\d{4}-\d{2}-\d{2}/.test(t) ? Date.parse(t) : NaN));
  if (positionals.length !== 1 || !id || !uuid.test(id) || (values.merchant && values.holding) || instants.length === 0 || instants.some(Number.isNaN)) {
    console.error('usage: node balance-from-export.mjs <export.jsonl> (--merchant <user id> | --holding <account id>) --at <ISO instant> [--at ...]');
    return 2;
  }
  // one pass over the file per instant: an export of a million events is never held in memory
  for (const at of instants) {
    const lines = jsonLines(positionals[0]);
    console.log(JSON.stringify(values.merchant ? await merchantAt(lines, id, at) : await holdingAt(lines, id, at)));
  }
  return 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(code => process.exit(code), err => { console.error(err.message); process.exit(1); });
}
