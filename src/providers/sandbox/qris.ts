import { buildEmvQr, buildTlv, EmvQrError, findTlv, parseTlv, type TlvField } from '../../emv-qr.ts';
import { parseQrisPayment, qrisTip, type QrisPayment } from '../../qris-payload.ts';
import { SandboxError } from './errors.ts';
import type { SandboxAccount } from './state.ts';

/**
 * The QRIS codes of sandbox merchants. Merchant account information (tag 26) names the sandbox network
 * (GUI), the merchant's accountRef (sub-tag 01) and its provider (sub-tag 02), so a paid QR finds its account.
 */
export const sandboxQrisGui = 'ID.CO.SANDBOX.WWW';

export function merchantQris(account: SandboxAccount): string {
  const merchantAccount = buildTlv([
    { tag: '00', value: sandboxQrisGui },
    { tag: '01', value: account.accountRef },
    { tag: '02', value: account.providerCode },
    { tag: '03', value: 'UMI' },
  ]);
  return buildEmvQr([
    { tag: '00', value: '01' },
    { tag: '01', value: '11' }, // static: the payer types the amount
    { tag: '26', value: merchantAccount },
    { tag: '52', value: '5812' },
    { tag: '53', value: '360' },
    { tag: '58', value: 'ID' },
    { tag: '59', value: account.holderName.slice(0, 25) },
    { tag: '60', value: 'JAKARTA' },
  ]);
}

/**
 * What a payer's app reads from a QRIS: the QR as the service validates it, the sandbox account it pays (null for a
 * merchant outside the sandbox: any real shop's QR), and the bill reference it carries.
 */
export type ReadQris = {
  qris: QrisPayment;
  sandboxMerchant: { providerCode: string; accountRef: string } | null;
  reference: string | null;
};

const invalid = (message: string) => new SandboxError(400, 'INVALID_QRIS', message);

// another network's template need not be TLV inside: only the sandbox's own is read
const subFieldsOf = (value: string): TlvField[] => {
  try {
    return parseTlv(value);
  } catch (err) {
    if (err instanceof EmvQrError) return [];
    throw err;
  }
};

/** Reads a QRIS payload checked as the service checks it (src/qris-payload.ts): CRC, tags, amount, tip. */
export function readQris(payload: string): ReadQris {
  const parsed = parseQrisPayment(payload);
  if (!parsed.ok) throw invalid(`The QRIS payload is not valid: ${parsed.reason}`);
  // the parser read every field already: these cannot throw
  const fields = parseTlv(payload);
  const sandboxTemplate = fields
    .filter(f => Number(f.tag) >= 26 && Number(f.tag) <= 51)
    .map(f => subFieldsOf(f.value))
    .find(sub => findTlv(sub, '00') === sandboxQrisGui);
  let sandboxMerchant: ReadQris['sandboxMerchant'] = null;
  if (sandboxTemplate) {
    const accountRef = findTlv(sandboxTemplate, '01');
    const providerCode = findTlv(sandboxTemplate, '02');
    // the sandbox's own network names an account, or the QR pays nobody
    if (!accountRef || !providerCode)
      throw new SandboxError(404, 'MERCHANT_NOT_FOUND', `The ${sandboxQrisGui} merchant of this QRIS names no account`);
    sandboxMerchant = { providerCode, accountRef };
  }
  const additional = subFieldsOf(findTlv(fields, '62') ?? '');
  const reference = findTlv(additional, '01') ?? findTlv(additional, '05') ?? null;
  return { qris: parsed.qris, sandboxMerchant, reference };
}

/**
 * What the payer pays for a QR, tip included, as a wallet computes it: a static QR's amount is the payer's (required);
 * a dynamic QR's is tag 54 plus the tip its tags fix (src/qris-payload.ts), or at least tag 54 when it asks the payer
 * for a tip (tag 55 = 01). Another amount is refused.
 */
export function amountToPay(qris: QrisPayment, typedAmount: number | undefined): number {
  if (qris.amount === null) {
    if (typedAmount === undefined)
      throw new SandboxError(
        400,
        'AMOUNT_REQUIRED',
        'A static QRIS has no amount (tag 54): give `amount`, or pay a dynamic QRIS',
      );
    return typedAmount;
  }
  const due = qris.amount + qrisTip(qris, qris.amount);
  if (typedAmount === undefined) return due;
  const accepted = qris.tip?.kind === 'prompt' ? typedAmount >= due : typedAmount === due;
  if (!accepted)
    throw new SandboxError(
      400,
      'AMOUNT_MISMATCH',
      `The QRIS asks for ${due}${qris.tip?.kind === 'prompt' ? ' or more' : ''}, not ${typedAmount}`,
    );
  return typedAmount;
}
