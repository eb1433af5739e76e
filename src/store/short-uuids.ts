/**
 * A uuid as es_events keeps it where it is not in a uuid column: its 16 bytes in base64url, 22 characters instead of
 * 36. Only the lowercase canonical form (the one a uuid column and randomUUID give) is shortened, so the long form
 * comes back exactly.
 */

// the canonical form of a uuid, as a uuid column gives it back
export const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// a canonical uuid anywhere in a text
export const uuidIn = new RegExp(canonicalUuid.source.slice(1, -1));

// 16 bytes in base64url: 128 bits in 22 characters of 6, the last one's 4 spare bits zero
export const shortUuid = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/** The 22 characters of a canonical uuid. */
export const shortOfUuid = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex').toString('base64url');

/** The canonical uuid of 22 characters that shortOfUuid made. */
export function uuidOfShort(short: string): string {
  const hex = Buffer.from(short, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
