import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { comparableHolderName, holderNameAffixes, holderNamesMatch } from '../../src/domain/holder-name.ts';

// a name's words: letters and digits, none of them a title or a legal form
const word = fc
  .string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 1, maxLength: 8 })
  .filter(w => !holderNameAffixes.has(w));
const name = fc.array(word, { minLength: 1, maxLength: 4 });
const affix = fc.constantFrom(...holderNameAffixes);
const separator = fc.constantFrom(' ', '  ', '.', '. ', ',', ', ', '-', "'", ' . ', '\t');

/** The same name as a person or a bank may write it: any case, spacing and punctuation, titles and legal forms around it. */
const spelling = (words: string[]) =>
  fc
    .record({
      before: fc.array(affix, { maxLength: 2 }),
      after: fc.array(affix, { maxLength: 2 }),
      separators: fc.array(separator, { minLength: 12, maxLength: 12 }),
      lower: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      padding: fc.constantFrom('', ' ', '  '),
    })
    .map(({ before, after, separators, lower, padding }) => {
      const parts = [...before, ...words, ...after];
      const joined = parts.map((p, i) => (i === 0 ? p : `${separators[i % separators.length]}${p}`)).join('');
      const cased = [...joined].map((c, i) => (lower[i % lower.length] ? c.toLowerCase() : c)).join('');
      return `${padding}${cased}${padding}`;
    });

describe('holderNamesMatch', () => {
  test.prop([name.chain(w => fc.tuple(spelling(w), spelling(w)))])(
    'two spellings of one name match, whatever their case, spacing, punctuation, titles and legal forms',
    ([asked, answered]) => {
      expect(holderNamesMatch(asked, answered)).toBe(true);
    },
  );

  test.prop([
    fc
      .tuple(name, name)
      .filter(([a, b]) => a.join('') !== b.join(''))
      .chain(([a, b]) => fc.tuple(spelling(a), spelling(b))),
  ])('two different names never match, however they are written', ([asked, answered]) => {
    expect(holderNamesMatch(asked, answered)).toBe(false);
  });

  test.prop([fc.array(affix, { minLength: 1, maxLength: 3 }), fc.array(affix, { minLength: 1, maxLength: 3 })])(
    'a name of titles and legal forms only matches nothing, not even itself',
    (a, b) => {
      expect(holderNamesMatch(a.join(' '), b.join(' '))).toBe(false);
    },
  );

  it('the cases the issue met: "Toko Satu" is not JOKO WIJAYA; a title, a legal form or an accent is not a difference', () => {
    expect(holderNamesMatch('Toko Satu', 'JOKO WIJAYA')).toBe(false);
    expect(holderNamesMatch('X', 'HENDRA HIDAYAT')).toBe(false);
    expect(holderNamesMatch('Joko Wijaya', 'BPK JOKO WIJAYA')).toBe(true);
    expect(holderNamesMatch('Bapak Joko Wijaya', 'JOKOWIJAYA')).toBe(true);
    expect(holderNamesMatch('PT. Maju Jaya, Tbk.', 'MAJU JAYA')).toBe(true);
    expect(holderNamesMatch('Sri Rahayu', 'IBU SRI RAHAYU')).toBe(true);
    expect(holderNamesMatch('José Ramos', 'JOSE RAMOS')).toBe(true);
    // a title inside a name is part of it
    expect(comparableHolderName('Toko Ibu Sari')).toBe('TOKOIBUSARI');
    expect(holderNamesMatch('Toko Ibu Sari', 'TOKO SARI')).toBe(false);
  });
});
