import { fc, test } from '@fast-check/vitest';
import { dictionary } from '@zxcvbn-ts/language-common';
import { describe, expect, it } from 'vitest';
import { temporaryPassword } from '../../src/commands/change-password.ts';
import { checkNewPassword, isCommonPassword, passwordRefusal } from '../../src/security/password-rules.ts';

const common = dictionary['passwords-common'].filter(p => p.length >= 8);
const refusalOf = (password: string) => {
  try {
    checkNewPassword(password);
    return null;
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe('the rules of a new password', () => {
  test.prop([fc.constantFrom(...common), fc.array(fc.boolean(), { minLength: 64, maxLength: 64 })])(
    'refuse every common password of 8 characters or more, in any case',
    (password, upper) => {
      const cased = [...password].map((c, i) => (upper[i % 64] ? c.toUpperCase() : c)).join('');
      expect(refusalOf(cased)).toBe('PASSWORD_TOO_COMMON');
    },
  );

  test.prop([fc.string({ maxLength: 7 })])('refuse anything shorter than 8 characters as too short', password => {
    expect(refusalOf(password)).toBe('PASSWORD_TOO_SHORT');
  });

  test.prop([fc.string({ minLength: 129, maxLength: 300 })])('refuse more than 128 characters', password => {
    expect(refusalOf(password)).toBe('PASSWORD_TOO_LONG');
  });

  it('take a temporary password of the reset, and uncommon ones', () => {
    for (let i = 0; i < 100; i++) expect(refusalOf(temporaryPassword())).toBeNull();
    expect(refusalOf('kuda-lumping-77')).toBeNull();
    expect(isCommonPassword('12345678')).toBe(true);
    expect(passwordRefusal('12345678')).toBe('Password terlalu umum, pilih yang lain');
    expect(passwordRefusal('kuda-lumping-77')).toBeNull();
  });
});
