/**
 * EMVCo merchant-presented QR (the format of QRIS): tag-length-value fields and the CRC that closes them.
 * Lengths count characters, two digits each; tag 63 holds the CRC16-CCITT of everything before its value.
 */
export type TlvField = { tag: string; value: string };

export class EmvQrError extends Error {}

const tagPattern = /^[0-9]{2}$/;

export function buildTlv(fields: readonly TlvField[]): string {
  return fields
    .map(({ tag, value }) => {
      if (!tagPattern.test(tag)) throw new EmvQrError(`tag ${JSON.stringify(tag)} is not two digits`);
      if (value.length > 99) throw new EmvQrError(`value of tag ${tag} is longer than 99 characters`);
      return `${tag}${String(value.length).padStart(2, '0')}${value}`;
    })
    .join('');
}

export function parseTlv(payload: string): TlvField[] {
  const fields: TlvField[] = [];
  let at = 0;
  while (at < payload.length) {
    const tag = payload.slice(at, at + 2);
    const length = payload.slice(at + 2, at + 4);
    if (!tagPattern.test(tag) || !/^[0-9]{2}$/.test(length)) throw new EmvQrError(`malformed field at position ${at}`);
    const end = at + 4 + Number(length);
    if (end > payload.length) throw new EmvQrError(`field ${tag} at position ${at} runs past the end`);
    fields.push({ tag, value: payload.slice(at + 4, end) });
    at = end;
  }
  return fields;
}

export function findTlv(fields: readonly TlvField[], tag: string): string | undefined {
  return fields.find(f => f.tag === tag)?.value;
}

// the CRC of every byte value, so that the checksum takes one lookup per byte instead of eight shifts
const crcTable = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/** CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, over the UTF-8 bytes. */
export function crc16ccitt(text: string): number {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = ((crc << 8) ^ crcTable[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

const crcHex = (text: string) => crc16ccitt(text).toString(16).toUpperCase().padStart(4, '0');

/** Appends tag 63 to a payload that does not hold one yet. */
export function withCrc(payloadWithoutCrc: string): string {
  const head = `${payloadWithoutCrc}6304`;
  return `${head}${crcHex(head)}`;
}

/** The payload ends in tag 63 and its CRC matches (hex digits in either case). */
export function hasValidCrc(payload: string): boolean {
  if (payload.length < 8 || payload.slice(-8, -4) !== '6304') return false;
  return payload.slice(-4).toUpperCase() === crcHex(payload.slice(0, -4));
}

/** Builds a whole payload: the fields in tag order (any tag 63 dropped), then the CRC. */
export function buildEmvQr(fields: readonly TlvField[]): string {
  // tags are two digits: comparing the strings orders them as numbers
  const ordered = fields.filter(f => f.tag !== '63').sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return withCrc(buildTlv(ordered));
}

/** Tags a dynamic QR does not keep: point of initiation, amount, and the tip (55 indicator, 56 fixed, 57 percentage). */
const replacedForBill = new Set(['01', '54', '55', '56', '57']);

/**
 * Turns a static payload into a dynamic one for an amount: point of initiation '12', tag 54, a new CRC. A tip the
 * static QR asks for or fixes is left out: a bill is paid to the rupiah (its unique code tells it apart), and a
 * payment with a tip added would match no bill.
 */
export function toDynamicQr(staticPayload: string, amount: number): string {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new EmvQrError('amount must be a positive whole number');
  const fields = parseTlv(staticPayload).filter(f => !replacedForBill.has(f.tag));
  return buildEmvQr([...fields, { tag: '01', value: '12' }, { tag: '54', value: String(amount) }]);
}
