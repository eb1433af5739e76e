import { dictionary } from '@zxcvbn-ts/language-common';
import { errorCodes, refuse } from '../errors.ts';

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

/** What is wrong with a password a user chose (registering, changing it): 8 to 128 characters, none of the common ones. */
function passwordProblem(password: string): 'PASSWORD_TOO_SHORT' | 'PASSWORD_TOO_LONG' | 'PASSWORD_TOO_COMMON' | null {
  if (password.length < passwordMinLength) return 'PASSWORD_TOO_SHORT';
  if (password.length > passwordMaxLength) return 'PASSWORD_TOO_LONG';
  return isCommonPassword(password) ? 'PASSWORD_TOO_COMMON' : null;
}

/** Refuses (400, in the session surface's Indonesian) a password a user may not choose. */
export function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw refuse(problem);
}

/** The refusal's message for a password a user may not choose, else null (for the CLI, which throws nothing). */
export function passwordRefusal(password: string): string | null {
  const problem = passwordProblem(password);
  return problem ? errorCodes[problem].message : null;
}
