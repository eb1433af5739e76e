import fc from 'fast-check';
import { buildEmvQr, buildTlv, type TlvField } from '../../src/emv-qr.ts';

/**
 * QRIS payloads of merchants outside the sandbox, as a shop's printed QR carries them (EMVCo merchant-presented
 * layout): tag-length-value fields, a merchant account template (26 to 51) under a real network's GUI, 52 MCC,
 * 53 = 360, 54 the amount of a dynamic QR, 55 to 57 a tip, 58 = ID, 59 name, 60 city, 63 the CRC16-CCITT.
 * Built here from the layout, not by the code under test, so a payload the service and the sandbox refuse is their bug.
 */

/** Networks whose QRs a wallet meets in shops: the national switch and issuers' own GUIs (never the sandbox's). */
const networkGuis = [
  'ID.CO.QRIS.WWW',
  'ID.CO.BCA.WWW',
  'ID.CO.BANKMANDIRI.WWW',
  'ID.CO.BRI.WWW',
  'ID.CO.BNI.WWW',
  'ID.DANA.WWW',
  'COM.GO-JEK.WWW',
  'ID.CO.SHOPEE.WWW',
];
const mccs = ['5411', '5812', '5814', '5499', '7011', '4121', '5912', '5999'];
const cities = ['JAKARTA', 'BANDUNG', 'SURABAYA', 'MEDAN', 'DENPASAR', 'YOGYAKARTA', 'MAKASSAR', 'SEMARANG'];
const criteria = ['UMI', 'UKE', 'UME', 'UBE', 'URE'];

/** The tip a QR asks: the payer prompted (01), a fixed rupiah fee (02, tag 56), or a percentage (03, tag 57, in basis points). */
export type MerchantTip =
  { kind: 'prompt' } | { kind: 'fixed'; amount: number } | { kind: 'percent'; basisPoints: number };

export type MerchantQris = {
  payload: string;
  merchantName: string;
  /** a dynamic QR's tag 54; null for a static QR, whose amount the payer types */
  amount: number | null;
  tip: MerchantTip | null;
};

/** The payer's total for a base amount: a fixed tip added, a percentage rounded half up to a rupiah, a prompted tip left at 0. */
export function totalWithTip(base: number, tip: MerchantTip | null): number {
  if (tip?.kind === 'fixed') return base + tip.amount;
  if (tip?.kind === 'percent') return base + Math.floor((base * tip.basisPoints + 5000) / 10_000);
  return base;
}

// "5", "2.5", "12.75": how a percentage is written in tag 57
const percentText = (basisPoints: number) => {
  const cents = basisPoints % 100;
  return cents === 0
    ? String(basisPoints / 100)
    : `${Math.floor(basisPoints / 100)}.${String(cents).padStart(2, '0').replace(/0$/, '')}`;
};

const word = fc.stringMatching(/^[A-Z][A-Z0-9&'.-]{0,9}$/);
/** A shop's name as tag 59 holds it: words of capitals, one space apart, at most 25 characters. */
export const merchantName = fc
  .array(word, { minLength: 1, maxLength: 4 })
  .map(words => words.join(' ').slice(0, 25).trim())
  .filter(n => n.length > 0);

const tip: fc.Arbitrary<MerchantTip | null> = fc.oneof(
  fc.constant(null),
  fc.constant({ kind: 'prompt' as const }),
  fc.integer({ min: 1, max: 50_000 }).map(amount => ({ kind: 'fixed' as const, amount })),
  fc.integer({ min: 1, max: 2_000 }).map(basisPoints => ({ kind: 'percent' as const, basisPoints })),
);

const merchantAccount = fc.record({
  tag: fc.integer({ min: 26, max: 51 }).map(n => String(n)),
  gui: fc.constantFrom(...networkGuis),
  pan: fc.stringMatching(/^93600[0-9]{11,14}$/),
  merchantId: fc.stringMatching(/^[0-9A-Z]{8,15}$/),
  criteria: fc.constantFrom(...criteria),
});

/** A static (`amount` null) or dynamic QRIS of a shop outside the sandbox; amounts leave room for a tip under 10,000,000. */
export const merchantQris: fc.Arbitrary<MerchantQris> = fc
  .record({
    account: merchantAccount,
    // real QRs of an issuer often add the national template (51) beside their own
    nationalMid: fc.option(fc.stringMatching(/^ID[0-9]{13}$/), { nil: null }),
    mcc: fc.constantFrom(...mccs),
    amount: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 5_000_000 })), // static and dynamic alike
    tip,
    name: merchantName,
    city: fc.constantFrom(...cities),
    postalCode: fc.option(fc.stringMatching(/^[1-9][0-9]{4}$/), { nil: null }),
    billNumber: fc.option(fc.stringMatching(/^[A-Z0-9]{4,20}$/), { nil: null }),
  })
  .map(m => {
    const templates: TlvField[] = [
      {
        tag: m.account.tag,
        value: buildTlv([
          { tag: '00', value: m.account.gui },
          { tag: '01', value: m.account.pan },
          { tag: '02', value: m.account.merchantId },
          { tag: '03', value: m.account.criteria },
        ]),
      },
    ];
    if (m.nationalMid && m.account.tag !== '51')
      templates.push({
        tag: '51',
        value: buildTlv([
          { tag: '00', value: 'ID.CO.QRIS.WWW' },
          { tag: '02', value: m.nationalMid },
          { tag: '03', value: m.account.criteria },
        ]),
      });
    const tipFields: TlvField[] =
      m.tip === null
        ? []
        : m.tip.kind === 'prompt'
          ? [{ tag: '55', value: '01' }]
          : m.tip.kind === 'fixed'
            ? [
                { tag: '55', value: '02' },
                { tag: '56', value: String(m.tip.amount) },
              ]
            : [
                { tag: '55', value: '03' },
                { tag: '57', value: percentText(m.tip.basisPoints) },
              ];
    const payload = buildEmvQr([
      { tag: '00', value: '01' },
      { tag: '01', value: m.amount === null ? '11' : '12' },
      ...templates,
      { tag: '52', value: m.mcc },
      { tag: '53', value: '360' },
      ...(m.amount === null ? [] : [{ tag: '54', value: String(m.amount) }]),
      ...tipFields,
      { tag: '58', value: 'ID' },
      { tag: '59', value: m.name },
      { tag: '60', value: m.city },
      ...(m.postalCode ? [{ tag: '61', value: m.postalCode }] : []),
      ...(m.billNumber ? [{ tag: '62', value: buildTlv([{ tag: '01', value: m.billNumber }]) }] : []),
    ]);
    return { payload, merchantName: m.name, amount: m.amount, tip: m.tip };
  });

/** A merchant QR with the base amount a payer types for a static one (a dynamic one's is its own). */
export const merchantPayment = fc.tuple(merchantQris, fc.integer({ min: 1, max: 5_000_000 })).map(([qris, typed]) => {
  const base = qris.amount ?? typed;
  return { qris, typed: qris.amount === null ? typed : null, total: totalWithTip(base, qris.tip) };
});
