import { dictionary } from '@zxcvbn-ts/language-common';
import { refuse } from '../errors.ts';

/**
 * The passwords people pick first (zxcvbn-ts's common list, about 49,000 from published leaks, `12345678`,
 * `password123` and `bismillah` among them), lowercased once at start: a guesser tries these before anything else.
 */
const commonPasswords: ReadonlySet<string> = new Set(dictionary['passwords-common'].map(p => p.toLowerCase()));

export const passwordMinLength = 8;
// argon2's cost grows with its input; nobody needs a longer password than this
export const passwordMaxLength = 128;

/** True when the password, whatever its case, is one of the common ones. */
export const isCommonPassword = (password: string) => commonPasswords.has(password.toLowerCase());

/** A password a user may choose (registering, changing it): 8 to 128 characters, and none of the common ones. */
export function checkNewPassword(password: string): void {
  if (password.length < passwordMinLength) throw refuse('PASSWORD_TOO_SHORT');
  if (password.length > passwordMaxLength) throw refuse('PASSWORD_TOO_LONG');
  if (isCommonPassword(password)) throw refuse('PASSWORD_TOO_COMMON');
}
