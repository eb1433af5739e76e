import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  buildTlv,
  crc16ccitt,
  EmvQrError,
  hasValidCrc,
  parseTlv,
  toDynamicQr,
  withCrc,
  type TlvField,
} from '../src/emv-qr.ts';

describe('EMV QR', () => {
  it('computes CRC-16/CCITT-FALSE of the standard check string', () => {
    expect(crc16ccitt('123456789')).toBe(0x29b1);
    expect(crc16ccitt('')).toBe(0xffff);
  });

  it('closes a payload with tag 63 over everything before its value, and checks it', () => {
    const payload = withCrc(
      buildTlv([
        { tag: '00', value: '01' },
        { tag: '01', value: '11' },
      ]),
    );
    expect(payload.slice(0, -4)).toBe('0002010102116304');
    expect(payload.slice(-4)).toBe(crc16ccitt('0002010102116304').toString(16).toUpperCase().padStart(4, '0'));
    expect(hasValidCrc(payload)).toBe(true);
    expect(hasValidCrc(payload.toLowerCase())).toBe(true);
    expect(hasValidCrc(payload.replace('010211', '010212'))).toBe(false);
    expect(hasValidCrc('000201')).toBe(false);
  });

  it('refuses fields it cannot encode and payloads it cannot read', () => {
    expect(() => buildTlv([{ tag: '1', value: 'x' }])).toThrow(EmvQrError);
    expect(() => buildTlv([{ tag: '59', value: 'x'.repeat(100) }])).toThrow(EmvQrError);
    expect(() => parseTlv('0005abc')).toThrow(EmvQrError);
    expect(() => parseTlv('00xx')).toThrow(EmvQrError);
  });

  it('makes a dynamic QR: point of initiation 12, tag 54, a fresh valid CRC', () => {
    const staticQr = withCrc(
      buildTlv([
        { tag: '00', value: '01' },
        { tag: '01', value: '11' },
        { tag: '53', value: '360' },
        { tag: '58', value: 'ID' },
      ]),
    );
    const dynamic = toDynamicQr(staticQr, 25_000);
    expect(hasValidCrc(dynamic)).toBe(true);
    expect(
      parseTlv(dynamic)
        .map(f => `${f.tag}=${f.value}`)
        .slice(0, -1),
    ).toEqual(['00=01', '01=12', '53=360', '54=25000', '58=ID']);
    expect(() => toDynamicQr(staticQr, 1.5)).toThrow(EmvQrError);
  });

  it.each([
    ['asks the payer for a tip', [{ tag: '55', value: '01' }]],
    [
      'fixes a tip',
      [
        { tag: '55', value: '02' },
        { tag: '56', value: '5000' },
      ],
    ],
    [
      'adds a percentage',
      [
        { tag: '55', value: '03' },
        { tag: '57', value: '10' },
      ],
    ],
  ])('leaves out the tip of a static QR that %s: a bill is paid to the rupiah', (_what, tip) => {
    const staticQr = withCrc(
      buildTlv([
        { tag: '00', value: '01' },
        { tag: '01', value: '11' },
        { tag: '53', value: '360' },
        ...tip,
        { tag: '58', value: 'ID' },
      ]),
    );
    const tags = parseTlv(toDynamicQr(staticQr, 25_000)).map(f => f.tag);
    expect(tags).toEqual(['00', '01', '53', '54', '58', '63']);
  });

  const field = fc.record({
    tag: fc.integer({ min: 0, max: 99 }).map(n => String(n).padStart(2, '0')),
    value: fc.string({ maxLength: 99 }),
  });

  test.prop([fc.array(field, { maxLength: 20 })])(
    'parsing what was built gives back the same fields, in order',
    (fields: TlvField[]) => {
      expect(parseTlv(buildTlv(fields))).toEqual(fields);
    },
  );

  // CRC-16 catches every error burst of up to 16 bits, so one changed ASCII character is always caught
  test.prop([fc.array(field, { minLength: 1, maxLength: 10 }), fc.nat(), fc.constantFrom('#', '~')])(
    'a CRC-closed payload checks, and any one changed character breaks it',
    (fields, index, replacement) => {
      const payload = withCrc(buildTlv(fields));
      expect(hasValidCrc(payload)).toBe(true);
      const head = payload.slice(0, -8);
      const at = index % head.length;
      fc.pre(head[at] !== replacement);
      expect(hasValidCrc(`${head.slice(0, at)}${replacement}${head.slice(at + 1)}${payload.slice(-8)}`)).toBe(false);
    },
  );
});
