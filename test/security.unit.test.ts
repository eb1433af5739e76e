import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { apiKeyHash, generateApiKey } from '../src/security/api-key-format.ts';
import { credentialVault } from '../src/security/credentials.ts';

const vault = credentialVault('11'.repeat(32));

describe('credential vault', () => {
  test.prop([fc.jsonValue()])('opens what it sealed, and the sealed form never shows the plain text', value => {
    const sealed = vault.seal(value);
    expect(vault.open(sealed)).toEqual(JSON.parse(JSON.stringify(value)));
    if (typeof value === 'string' && value.length > 3) expect(JSON.stringify(sealed)).not.toContain(value);
  });

  it('refuses a sealed value that was tampered with or sealed with another key', () => {
    const sealed = vault.seal({ password: 'rahasia' });
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => vault.open({ ...sealed, data: flipped.toString('base64') })).toThrow();
    expect(() => credentialVault('22'.repeat(32)).open(sealed)).toThrow();
  });
});

describe('API key format', () => {
  it('accepts the keys it generates', () => {
    const { key, hash } = generateApiKey();
    expect(apiKeyHash(key)).toBe(hash);
  });

  test.prop([fc.nat({ max: 59 }), fc.constantFrom(...'ABCabc019_-')])(
    'refuses any key with one character changed',
    (index, replacement) => {
      const { key } = generateApiKey();
      fc.pre(key[index] !== replacement && index >= 9);
      expect(apiKeyHash(key.slice(0, index) + replacement + key.slice(index + 1))).toBeNull();
    },
  );
});
