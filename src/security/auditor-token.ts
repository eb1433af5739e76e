import { createHash, randomBytes } from 'node:crypto';

/**
 * An auditor's token: `svc_audit_` + 32 random bytes in base64url (43 characters). Its own prefix, so a merchant's API
 * key is never taken for one (nor the other way round) and a secret scanner can name it. Only its SHA-256 is stored.
 */
const PREFIX = 'svc_audit_';
const BODY = 43;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export function generateAuditorToken(): { token: string; prefix: string; hash: string } {
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, prefix: token.slice(0, PREFIX.length + 6), hash: hashOf(token) };
}

/** The hash to look up, or null when the text cannot be an auditor's token. */
export function auditorTokenHash(candidate: string): string | null {
  if (candidate.length !== PREFIX.length + BODY || !candidate.startsWith(PREFIX)) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(candidate.slice(PREFIX.length))) return null;
  return hashOf(candidate);
}
