import { EmvQrError, findTlv, hasValidCrc, parseTlv } from './emv-qr.ts';
import { refuse } from './errors.ts';

/** What a QR transfer pays. */
export type QrisPayment = {
  kind: 'static' | 'dynamic';
  merchantName: string;
  merchantCity: string;
  /** the merchant account templates present (tags 26 to 51) */
  merchantAccountTags: string[];
  /** a dynamic QR's amount (tag 54), whole rupiah; null on a static QR */
  amount: number | null;
  /** tag 55: 01 the payer is asked, 02 a fixed fee (tag 56), 03 a percentage (tag 57, in hundredths of a percent) */
  tip: { kind: 'prompt' } | { kind: 'fixed'; amount: number } | { kind: 'percent'; basisPoints: number } | null;
  payload: string;
};

export type ParsedQris = { ok: true; qris: QrisPayment } | { ok: false; reason: string };

/** The most a QR transfer moves (Bank Indonesia's QRIS cap). */
export const qrisMaxAmount = 10_000_000;

/** Whole rupiah written as digits, with an optional fraction that must be zero ("10000" or "10000.00"). */
function wholeRupiah(value: string): number | null {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match || (match[2] !== undefined && Number(match[2]) !== 0)) return null;
  return Number(match[1]);
}

/** A percentage as tag 57 writes it ("5", "2.5", "10.00"), in basis points; null when it is not one up to 100. */
function percentInBasisPoints(value: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) return null;
  const bp = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0') || '0');
  return bp > 0 && bp <= 10_000 ? bp : null;
}

/**
 * Reads a QR's text as a QRIS a wallet can pay: CRC16 (tag 63), payload format 01, point of initiation 11 (static) or
 * 12 (dynamic, with its amount in tag 54), currency 360, country ID, a merchant account template (26 to 51), and the
 * tip tags. Any input answers a parse or a reason: never a throw.
 */
export function parseQrisPayment(payload: string): ParsedQris {
  const no = (reason: string): ParsedQris => ({ ok: false, reason });
  if (typeof payload !== 'string' || payload.length < 20 || payload.length > 512)
    return no('not a QRIS payload (length)');
  if (!hasValidCrc(payload)) return no('the CRC (tag 63) does not match');
  let fields;
  try {
    fields = parseTlv(payload);
  } catch (err) {
    if (err instanceof EmvQrError) return no(`malformed: ${err.message}`);
    return no('malformed');
  }
  const tag = (t: string) => findTlv(fields, t);
  if (tag('00') !== '01') return no('payload format indicator (tag 00) is not 01');
  const initiation = tag('01');
  if (initiation !== '11' && initiation !== '12') return no('point of initiation (tag 01) is neither 11 nor 12');
  if (tag('53') !== '360') return no('currency (tag 53) is not 360 (rupiah)');
  if (tag('58') !== 'ID') return no('country (tag 58) is not ID');
  const merchantAccountTags = fields.map(f => f.tag).filter(t => Number(t) >= 26 && Number(t) <= 51);
  if (merchantAccountTags.length === 0) return no('no merchant account information (tags 26 to 51)');
  let amount: number | null = null;
  const amountTag = tag('54');
  if (amountTag !== undefined) {
    amount = wholeRupiah(amountTag);
    if (amount === null || amount <= 0) return no('the amount (tag 54) is not a whole number of rupiah');
  }
  if (initiation === '12' && amount === null) return no('a dynamic QRIS (tag 01 = 12) has no amount (tag 54)');
  let tip: QrisPayment['tip'] = null;
  const tipIndicator = tag('55');
  if (tipIndicator === '01') tip = { kind: 'prompt' };
  else if (tipIndicator === '02') {
    const fixed = wholeRupiah(tag('56') ?? '');
    if (fixed === null) return no('tip indicator 02 without a fixed tip (tag 56)');
    tip = { kind: 'fixed', amount: fixed };
  } else if (tipIndicator === '03') {
    const basisPoints = percentInBasisPoints(tag('57') ?? '');
    if (basisPoints === null) return no('tip indicator 03 without a percentage (tag 57)');
    tip = { kind: 'percent', basisPoints };
  } else if (tipIndicator !== undefined) return no('tip indicator (tag 55) is not 01, 02 or 03');
  return {
    ok: true,
    qris: {
      kind: initiation === '12' ? 'dynamic' : 'static',
      merchantName: tag('59') ?? 'QRIS merchant',
      merchantCity: tag('60') ?? '',
      merchantAccountTags,
      amount,
      tip,
      payload,
    },
  };
}

/**
 * The number a payer's app shows as where a QRIS pays: the merchant PAN (sub-tag 01) of its first merchant account
 * template (tags 26 to 51), else the template's merchant id (sub-tag 02); null when the payload has neither.
 */
export function qrisMerchantPan(payload: string): string | null {
  try {
    const template = parseTlv(payload).find(f => Number(f.tag) >= 26 && Number(f.tag) <= 51);
    if (!template) return null;
    const inner = parseTlv(template.value);
    return findTlv(inner, '01') ?? findTlv(inner, '02') ?? null;
  } catch (err) {
    if (err instanceof EmvQrError) return null;
    throw err;
  }
}

const rupiahText = (n: number) => `Rp ${n.toLocaleString('id-ID')}`;

/** The tip a QR's tags fix on `base`: a fixed one, or a percentage rounded half up to a rupiah; none when the payer is asked. */
export function qrisTip(qris: QrisPayment, base: number): number {
  if (qris.tip?.kind === 'fixed') return qris.tip.amount;
  if (qris.tip?.kind === 'percent') return Math.floor((base * qris.tip.basisPoints + 5000) / 10_000);
  return 0;
}

/**
 * The amount a QR transfer debits: a dynamic QR's own amount (another requested amount is refused), a static QR's the
 * payer's; plus the tip its tags fix (a fixed one, or a percentage rounded half up to a rupiah), said in the message.
 * Below 1 rupiah or above 10,000,000: refused.
 */
export function transferAmount(
  qris: QrisPayment,
  requested: number | null,
): { amount: number; tip: number; message: string } {
  if (qris.amount !== null && requested !== null && requested !== qris.amount)
    throw refuse('QR_AMOUNT_MISMATCH', {
      message: `This QRIS is for ${rupiahText(qris.amount)}; amount ${requested} differs`,
      errors: [{ path: 'body.amount', message: `must be ${qris.amount} or left out` }],
    });
  const base = qris.amount ?? requested;
  if (base === null)
    throw refuse('VALIDATION_ERROR', {
      message: 'amount is required for a static QRIS',
      errors: [{ path: 'body.amount', message: 'required' }],
    });
  const tip = qrisTip(qris, base);
  const amount = base + tip;
  if (base < 1 || amount > qrisMaxAmount)
    throw refuse('QR_AMOUNT_OUT_OF_RANGE', {
      message: `A QR transfer is from Rp 1 to ${rupiahText(qrisMaxAmount)}; this one is ${rupiahText(amount)}`,
      errors: [{ path: 'body.amount', message: 'out of range' }],
    });
  const tipText = tip > 0 ? ` (termasuk tip ${rupiahText(tip)})` : '';
  return { amount, tip, message: `Pembayaran QRIS ${rupiahText(amount)}${tipText} ke ${qris.merchantName} berhasil` };
}
