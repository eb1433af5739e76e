import { generateKeyPairSync } from 'node:crypto';

/** A fresh Ed25519 signing key (base64 PKCS#8 DER) for a benchmark's service or chain: a DATABASE_URL gets none generated. */
export const benchSigningKey = (): string =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
