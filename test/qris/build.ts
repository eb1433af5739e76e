import { buildEmvQr, type TlvField } from '../../src/emv-qr.ts';

/** A QRIS payload from its parts, as a merchant's QR carries them (tags in order, CRC last). */
export function qrisPayload(
  parts: {
    initiation?: '11' | '12';
    amount?: string;
    tip?: { indicator: string; fixed?: string; percent?: string };
    merchantName?: string;
    country?: string;
    currency?: string;
    accountTag?: string | null;
  } = {},
): string {
  const fields: TlvField[] = [
    { tag: '00', value: '01' },
    { tag: '01', value: parts.initiation ?? (parts.amount ? '12' : '11') },
    ...(parts.accountTag === null
      ? []
      : [{ tag: parts.accountTag ?? '26', value: '0016ID.CO.QRIS.WWW0215ID10200000000010303UMI' }]),
    { tag: '52', value: '5411' },
    { tag: '53', value: parts.currency ?? '360' },
    ...(parts.amount ? [{ tag: '54', value: parts.amount }] : []),
    ...(parts.tip ? [{ tag: '55', value: parts.tip.indicator }] : []),
    ...(parts.tip?.fixed ? [{ tag: '56', value: parts.tip.fixed }] : []),
    ...(parts.tip?.percent ? [{ tag: '57', value: parts.tip.percent }] : []),
    { tag: '58', value: parts.country ?? 'ID' },
    { tag: '59', value: parts.merchantName ?? 'TOKO MAJU' },
    { tag: '60', value: 'BANDUNG' },
  ];
  return buildEmvQr(fields);
}
