import fc from 'fast-check';

/** Percent-encodes every code point, a lone surrogate as the three bytes it would take (not valid UTF-8). */
export function percentEncoded(value: string): string {
  let out = '';
  for (const ch of value) {
    if (/^[A-Za-z0-9\-_.~]$/.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const bytes =
      cp >= 0xd800 && cp <= 0xdfff
        ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
        : [...Buffer.from(ch, 'utf8')];
    out += bytes.map(b => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

// what a hostile or careless client sends: NUL, lone surrogates, emoji, right-to-left marks, long text and all of Unicode
const fragment = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(
    '\u0000',
    '\ud800',
    '\udfff',
    'A\ud800B',
    '😀',
    'مرحبا بالعالم',
    '\u202eabc',
    '%00',
    '%ff',
    '\\u0000',
    "'; drop table users; --",
  ),
);
export const hostileText = fc.oneof(
  { weight: 8, arbitrary: fc.array(fragment, { minLength: 1, maxLength: 5 }).map(parts => parts.join('')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('x'.repeat(10_240), `${'😀'.repeat(2_600)}\u0000`, `${'ب'.repeat(5_200)}\ud800`),
  },
);

/** A service's sign-in and OTP limits raised out of the way: a property signs in and asks for codes many times from one address. */
export const limitsOutOfTheWay = {
  REGISTER_LIMIT_PER_IP: '100000',
  LOGIN_LIMIT_PER_IP: '100000',
  LOGIN_LIMIT_PER_IP_EMAIL: '100000',
  LOGIN_SLOWDOWN_AFTER: '1000',
  OTP_SEND_LIMIT_PER_PHONE: '1000',
  OTP_SEND_LIMIT_PER_KEY: '100000',
};
