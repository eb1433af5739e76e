import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';

/** The service's Ed25519 key for daily digests: it signs, and names itself by the hash of its public key. */
export type DigestSigner = { keyId: string; publicKey: string; sign(text: string): string };

/** A public key's id: the first 16 hex digits of the SHA-256 of its DER. */
const keyIdOf = (publicKeyDer: Buffer) => createHash('sha256').update(publicKeyDer).digest('hex').slice(0, 16);

/** The signer of a private key as DATA_DIR/secrets.json and DIGEST_SIGNING_KEY hold it: base64 PKCS#8 DER. */
export function digestSigner(privateKeyBase64: string): DigestSigner {
  const privateKey = createPrivateKey({ key: Buffer.from(privateKeyBase64, 'base64'), format: 'der', type: 'pkcs8' });
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the digest signing key must be an Ed25519 key');
  const publicDer = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return {
    keyId: keyIdOf(publicDer),
    publicKey: publicDer.toString('base64'),
    sign: text => sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64'),
  };
}

/** Whether `signature` is the key's over `text`; a key or signature that is not one is simply false. */
export function verifyDigestSignature(publicKeyBase64: string, text: string, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
