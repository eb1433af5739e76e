import { createHash } from 'node:crypto';
import type { SandboxAccount, SandboxTransaction } from './state.ts';

/**
 * The data an account starts with, derived only from a hash of provider and accountRef (and the time it is
 * first seen, for the dates), so the same inputs always give the same holder, balance and history.
 */
const holderNames = [
  'BUDI SANTOSO',
  'SITI RAHAYU',
  'AGUS SETIAWAN',
  'DEWI LESTARI',
  'RINA WIJAYA',
  'HENDRA GUNAWAN',
  'PUTRI AMELIA',
  'ANDI PRATAMA',
  'NUR HIDAYAH',
  'EKO PRASETYO',
];
const senderNames = ['TOKO MAJU JAYA', 'CV SINAR ABADI', 'PT KARYA MANDIRI', 'WARUNG BU SRI', 'DIMAS ARYA'];
const creditDescriptions = ['Transfer masuk', 'Pembayaran pesanan', 'Top up saldo'];
const debitDescriptions = ['Pembayaran listrik', 'Pembelian pulsa', 'Transfer keluar'];

const dayMs = 24 * 60 * 60 * 1000;
const historyLength = 3;

const digest = (text: string) => createHash('sha256').update(text).digest();
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

/** A version-5-shaped UUID made of hash bytes: stable across runs and machines. */
export function stableUuid(text: string): string {
  const bytes = digest(text).subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function seedAccount(providerCode: string, accountRef: string, now: Date): SandboxAccount {
  const key = `sandbox:${providerCode}:${accountRef}`;
  const base = digest(key);
  const holderName = pick(holderNames, base.readUInt32BE(4));
  const transactions: SandboxTransaction[] = [];
  for (let i = 0; i < historyLength; i++) {
    const h = digest(`${key}:history:${i}`);
    const type = h[0]! % 3 === 0 ? 'DEBIT' : 'CREDIT';
    // days apart, each within its own day: the history stays in order and before the account is first seen
    const occurredAt = new Date(now.getTime() - (historyLength - i) * dayMs + (h.readUInt16BE(5) % 600) * 60_000);
    transactions.push({
      id: stableUuid(`${key}:history:${i}`),
      type,
      amount: (10 + (h.readUInt32BE(1) % 4991)) * 100,
      description: pick(type === 'CREDIT' ? creditDescriptions : debitDescriptions, h[7]!),
      senderName: type === 'CREDIT' ? pick(senderNames, h[8]!) : holderName,
      reference: `SBX${h.subarray(9, 14).toString('hex').toUpperCase()}`,
      occurredAt: occurredAt.toISOString(),
    });
  }
  return {
    providerCode,
    accountRef,
    holderName,
    balance: 1_000_000 + (base.readUInt32BE(0) % 90_001) * 100,
    createdAt: now.toISOString(),
    transactions,
  };
}
