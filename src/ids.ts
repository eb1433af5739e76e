import { createHash, randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

// random bytes drawn 4 KiB at a time, as crypto.randomUUID does: one call into the CSPRNG per 256 ids, not one per id
const entropy = Buffer.alloc(4096);
let drawn = entropy.length;
function randomAt(n: number): number {
  if (drawn + n > entropy.length) {
    randomFillSync(entropy);
    drawn = 0;
  }
  drawn += n;
  return drawn - n;
}
const bytes = Buffer.alloc(16);

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then randomness. Ids made close in time sort close together, so
 * the event-id index grows at its right edge instead of touching a random page per insert (less WAL per event).
 * Within one millisecond a 12-bit counter keeps them increasing.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (nowMs <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs++;
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    sequence = entropy.readUInt16BE(randomAt(2)) & 0x7ff;
  }
  entropy.copy(bytes, 6, randomAt(10), drawn);
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A UUID (v5 layout) derived from the causing event, the saga and an index: re-running a saga step appends nothing new. */
export function sagaEventId(saga: string, causingEventId: string, index: number): string {
  return deterministicUuid(`${saga}:${causingEventId}:${index}`);
}

/**
 * What one request asked for, as the fields its command reads, in a fixed order: the same Idempotency-Key must come with
 * the same request (payments, transfers, withdrawals), whatever order its JSON keys came in.
 */
export const requestFingerprint = (parts: readonly unknown[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** The same name always gives the same UUID (v5 layout, SHA-1). */
export function deterministicUuid(name: string): string {
  const hash = createHash('sha1').update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
