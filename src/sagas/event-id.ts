import { createHash } from 'node:crypto';

/** A UUID (v5 layout) derived from the causing event, the saga and an index: re-running a saga step appends nothing new. */
export function sagaEventId(saga: string, causingEventId: string, index: number): string {
  return deterministicUuid(`${saga}:${causingEventId}:${index}`);
}

/** The same name always gives the same UUID (v5 layout, SHA-1). */
export function deterministicUuid(name: string): string {
  const hash = createHash('sha1').update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
