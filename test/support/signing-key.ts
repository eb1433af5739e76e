import { createHash } from 'node:crypto';

/**
 * A fixed Ed25519 signing key (base64 PKCS#8 DER) for services started on a DATABASE_URL, which get no generated key
 *: the DER prefix of an Ed25519 private key followed by a seed derived from the name.
 */
export const testSigningKey = (name = 'test ledger key'): string =>
  Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    createHash('sha256').update(name).digest(),
  ]).toString('base64');
