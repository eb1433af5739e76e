import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Sealed } from '../events/account.ts';

export type { Sealed };

/** Seals provider credentials and sessions with the configured ENCRYPTION_KEY (32 bytes, hex). */
export function credentialVault(keyHex: string) {
  const key = Buffer.from(keyHex, 'hex');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes');
  return {
    seal(value: unknown): Sealed {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    },
    open<T>(sealed: Sealed): T {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    },
  };
}

export type CredentialVault = ReturnType<typeof credentialVault>;
