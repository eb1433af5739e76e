import { buildEmvQr, buildTlv, EmvQrError, findTlv, hasValidCrc, parseTlv } from '../../emv-qr.ts';
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

/** tipIndicator: the QR has tag 55 (a tip asked of the payer, fixed or a percentage), so the payer may pay above tag 54. */
export type QrisPayee = { providerCode: string; accountRef: string; amount: number | null; reference: string | null; tipIndicator: boolean };

const invalid = (message: string) => new SandboxError(400, 'INVALID_QRIS', message);

/** Reads what a payer's app reads from a QRIS payload: whom to pay, how much (tag 54, if any), the bill reference. */
export function readQris(payload: string): QrisPayee {
  if (!hasValidCrc(payload)) throw invalid('The QRIS payload has no valid CRC (tag 63)');
  try {
    const fields = parseTlv(payload);
    const merchant = fields
      .filter(f => Number(f.tag) >= 26 && Number(f.tag) <= 51)
      .map(f => parseTlv(f.value))
      .find(sub => findTlv(sub, '00') === sandboxQrisGui);
    const accountRef = merchant && findTlv(merchant, '01');
    const providerCode = merchant && findTlv(merchant, '02');
    if (!accountRef || !providerCode) throw new SandboxError(404, 'MERCHANT_NOT_FOUND', `No ${sandboxQrisGui} merchant in this QRIS payload`);
    const amountText = findTlv(fields, '54');
    if (amountText !== undefined && !/^[1-9][0-9]{0,12}(\.0{1,2})?$/.test(amountText)) throw invalid(`Tag 54 amount ${amountText} is not whole rupiah`);
    const additional = findTlv(fields, '62');
    const additionalFields = additional ? parseTlv(additional) : [];
    const reference = findTlv(additionalFields, '01') ?? findTlv(additionalFields, '05') ?? null;
    const amount = amountText === undefined ? null : Number.parseInt(amountText, 10);
    return { providerCode, accountRef, amount, reference, tipIndicator: findTlv(fields, '55') !== undefined };
  } catch (err) {
    if (err instanceof EmvQrError) throw invalid(`The QRIS payload is malformed: ${err.message}`);
    throw err;
  }
}
