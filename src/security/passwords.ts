import argon2 from 'argon2';

// argon2id with the package defaults (m=64 MiB, t=3, p=4), above OWASP's minimum (m=19 MiB, t=2, p=1).
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/** Spends the time of a real check when the email is unknown, so timing does not tell which emails exist. */
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword('not-a-real-password-0');
  await verifyPassword(await dummyHash, password);
  return false;
}
