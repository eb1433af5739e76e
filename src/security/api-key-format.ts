import { createHash, randomBytes } from 'node:crypto';

/**
 * API key: `svc_live_` + 32 random bytes in base64url (43 characters) + a CRC-32 of those characters in hex
 * (8 characters). The checksum lets us refuse a mistyped key without a lookup, and lets secret scanners tell
 * a real key from noise. Only the SHA-256 of the whole key is stored.
 */
const PREFIX = 'svc_live_';
const BODY = 43;
const CHECKSUM = 8;

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(text: string): string {
  let crc = 0xffffffff;
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(CHECKSUM, '0');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const body = randomBytes(32).toString('base64url');
  const key = `${PREFIX}${body}${crc32(body)}`;
  return { key, prefix: key.slice(0, PREFIX.length + 6), hash: hashApiKey(key) };
}

/** The hash to look up, or null when the text cannot be one of our keys. */
export function apiKeyHash(candidate: string): string | null {
  if (candidate.length !== PREFIX.length + BODY + CHECKSUM || !candidate.startsWith(PREFIX)) return null;
  const body = candidate.slice(PREFIX.length, PREFIX.length + BODY);
  if (!/^[A-Za-z0-9_-]+$/.test(body) || crc32(body) !== candidate.slice(PREFIX.length + BODY)) return null;
  return hashApiKey(candidate);
}
