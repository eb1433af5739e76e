import { refuse } from '../errors.ts';

/**
 * A bank account holder's name as the bank's inquiry answers it, compared with the name a payout is meant for. Banks
 * answer in capitals, with or without spaces and punctuation, often with a title or a company's legal form the requester
 * did not type (or typed differently): "BPK JOKO WIJAYA", "PT. MAJU JAYA TBK". These are ignored; every other letter and
 * digit must be the same, in the same order.
 */

/**
 * Titles and legal forms dropped from either end of a name (never from its middle, where they may be part of it):
 * Indonesian honorifics (Bapak, Ibu, Saudara/Saudari, Tuan, Nyonya, Nona, Haji/Hajah) with their abbreviations, the
 * English ones banks use, and the legal forms of Indonesian businesses (PT, CV, UD, PD, firma, koperasi, yayasan, Tbk,
 * Persero).
 */
export const holderNameAffixes: ReadonlySet<string> = new Set([
  'BPK',
  'BP',
  'BAPAK',
  'IBU',
  'IB',
  'SDR',
  'SDRI',
  'SAUDARA',
  'SAUDARI',
  'TN',
  'TUAN',
  'NY',
  'NYONYA',
  'NN',
  'NONA',
  'HJ',
  'HAJI',
  'HAJAH',
  'MR',
  'MRS',
  'MS',
  'MISS',
  'PT',
  'CV',
  'UD',
  'PD',
  'FA',
  'FIRMA',
  'KOP',
  'KOPERASI',
  'YAYASAN',
  'TBK',
  'PERSERO',
]);

/** The words of a name: letters and digits only (accents dropped), in capitals. */
function words(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(w => w.length > 0);
}

/**
 * The name as compared: its words without titles and legal forms at either end, joined without spaces (a bank may write
 * "JOKOWIJAYA" for "Joko Wijaya"). Empty when nothing else is left.
 */
export function comparableHolderName(name: string): string {
  const w = words(name);
  let start = 0;
  let end = w.length;
  while (start < end && holderNameAffixes.has(w[start]!)) start++;
  while (end > start && holderNameAffixes.has(w[end - 1]!)) end--;
  return w.slice(start, end).join('');
}

/** The bank's answer names the holder asked for; a name that is only a title or a legal form matches nothing. */
export function holderNamesMatch(asked: string, answered: string): boolean {
  const a = comparableHolderName(asked);
  return a.length > 0 && a === comparableHolderName(answered);
}

/** An admin's decision to pay although the bank named someone else: why, and who decided. */
export type HolderOverride = { reason: string; by: string };

/**
 * What a payout records of the holder: the bank's answer (`answered`; null: never asked) compared with the holder the
 * merchant asked for. A mismatch is paid only with an admin's override (409 WITHDRAWAL_HOLDER_MISMATCH without one),
 * and the override is kept with the payout; on names that match an override says nothing and is not kept.
 */
export function checkedHolder(
  asked: string,
  answered: string | null,
  override: HolderOverride | undefined,
): { holderName?: string; holderOverride?: HolderOverride } {
  if (answered === null) return {};
  if (holderNamesMatch(asked, answered)) return { holderName: answered };
  if (!override)
    throw refuse('WITHDRAWAL_HOLDER_MISMATCH', {
      message: `The bank names the holder ${answered}, not ${asked}: an admin's override with a reason pays it`,
      params: { asked, answered },
    });
  return { holderName: answered, holderOverride: override };
}
