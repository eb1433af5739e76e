import { createHash } from 'node:crypto';
import { SandboxError } from './errors.ts';
import type { Faults } from './faults.ts';
import type { SandboxPayments } from './payments.ts';
import { readQris } from './qris.ts';
import type { SandboxAccount, SandboxState } from './state.ts';

/** The banks a WALLET-A transfer can go to (instLocalName: the wallet's own code for the bank). */
export const sandboxBanks = [
  ['014', 'Bank Central Asia', 'BCA'],
  ['002', 'Bank Rakyat Indonesia', 'BRI'],
  ['008', 'Bank Mandiri', 'MANDIRI'],
  ['009', 'Bank Negara Indonesia', 'BNI'],
  ['022', 'Bank CIMB Niaga', 'CIMB'],
  ['013', 'Bank Permata', 'PERMATA'],
  ['011', 'Bank Danamon', 'DANAMON'],
  ['451', 'Bank Syariah Indonesia', 'BSI'],
  ['200', 'Bank Tabungan Negara', 'BTN'],
  ['028', 'Bank OCBC NISP', 'OCBC'],
].map(([instId, name, instLocalName]) => ({ instId: instId!, name: name!, instLocalName: instLocalName!, payMethod: 'BANK_TRANSFER', payOption: 'ONLINE' }));

const givenNames = ['Budi', 'Siti', 'Agus', 'Dewi', 'Rina', 'Andi', 'Putri', 'Eko', 'Wahyu', 'Ayu', 'Joko', 'Lestari', 'Hendra', 'Maya', 'Rudi', 'Intan'];
const familyNames = ['Santoso', 'Wijaya', 'Saputra', 'Kurniawan', 'Lestari', 'Hidayat', 'Pratama', 'Nugroho', 'Setiawan', 'Sari', 'Halim', 'Gunawan'];

/** The holder of a bank account, derived from the bank and the number: the same answer every time. */
export function holderNameOf(instId: string, accountNumber: string): string {
  const h = createHash('sha256').update(`${instId}:${accountNumber}`).digest();
  return `${givenNames[h[0]! % givenNames.length]} ${familyNames[h[1]! % familyNames.length]}`.toUpperCase();
}

export type TransferRecord = { status: 'SUCCESS'; transactionId: string } | { status: 'FAILED'; reason: string };

/**
 * Outbound transfers from a wallet: bank transfers and QR payments, by the caller's reference (the same reference twice
 * moves money once and answers the same), with the DEBIT carrying the reference. Faults: refuse (nothing moves),
 * timeout (done, but answered 504: the caller must ask the status), fail after accept (debited and given back, answered
 * 504; the status says FAILED).
 */
export function sandboxTransfers(state: SandboxState, faults: Faults, payments: SandboxPayments) {
  const records = new Map<string, TransferRecord>();
  const key = (account: SandboxAccount, reference: string) => `${account.providerCode}:${account.accountRef}:${reference}`;

  function inquire(input: { instId: string; instLocalName: string; accountNumber: string }) {
    const bank = sandboxBanks.find(b => b.instId === input.instId);
    if (!bank) throw new SandboxError(400, 'UNKNOWN_BANK', `No bank ${input.instId}`);
    if (bank.instLocalName !== input.instLocalName) throw new SandboxError(400, 'BANK_MISMATCH', `bank mismatch: ${input.instLocalName} is not ${bank.name}`);
    if (!/^\d{10,16}$/.test(input.accountNumber)) throw new SandboxError(400, 'INVALID_ACCOUNT', 'invalid account number: 10 to 16 digits');
    if (input.accountNumber.startsWith('999')) throw new SandboxError(400, 'INVALID_ACCOUNT', `invalid account number ${input.accountNumber}`);
    return { accountName: holderNameOf(input.instId, input.accountNumber), bank };
  }

  /** Moves the money once per reference, under the faults switched on; `credit` pays the other side, if any. */
  function send(account: SandboxAccount, reference: string, amount: number, description: string, counterparty: string, credit: () => void) {
    const known = records.get(key(account, reference));
    if (known?.status === 'SUCCESS') return { transactionId: known.transactionId };
    if (known) throw new SandboxError(400, 'TRANSFER_FAILED', known.reason);
    const fault = faults.takeTransferFault(account.providerCode);
    if (fault === 'refuse') throw new SandboxError(400, 'TRANSFER_REFUSED', 'transfer refused by the provider (sandbox fault)');
    if (amount > account.balance) throw new SandboxError(400, 'INSUFFICIENT_BALANCE', `balance insufficient: ${account.balance} available`);
    const debit = state.record(account, { type: 'DEBIT', amount, description, senderName: counterparty, reference });
    if (fault === 'fail-after-accept') {
      state.record(account, { type: 'CREDIT', amount, description: `Refund: ${description}`, senderName: 'WALLET-A', reference });
      records.set(key(account, reference), { status: 'FAILED', reason: 'the destination bank returned the transfer' });
      throw new SandboxError(504, 'TIMEOUT', 'no answer in time (sandbox fault)');
    }
    credit();
    records.set(key(account, reference), { status: 'SUCCESS', transactionId: debit.id });
    if (fault === 'timeout') throw new SandboxError(504, 'TIMEOUT', 'no answer in time (sandbox fault)');
    return { transactionId: debit.id };
  }

  return {
    banks: () => sandboxBanks,
    inquire: (input: { instId: string; instLocalName: string; accountNumber: string }) => ({ accountName: inquire(input).accountName }),
    transferToBank(account: SandboxAccount, input: { reference: string; instId: string; instLocalName: string; accountNumber: string; amount: number }) {
      const { accountName, bank } = inquire(input);
      return send(account, input.reference, input.amount, `Transfer ke ${bank.instLocalName} ${input.accountNumber}`, accountName, () => undefined);
    },
    payQris(account: SandboxAccount, input: { reference: string; qris: string; amount: number }) {
      const payee = readQris(input.qris); // refused before any money moves: an unreadable QR, an unknown merchant
      if (payee.amount !== null && payee.amount > input.amount)
        throw new SandboxError(400, 'AMOUNT_MISMATCH', `The QRIS asks for ${payee.amount}, not ${input.amount}`);
      return send(account, input.reference, input.amount, 'Pembayaran QRIS', 'QRIS MERCHANT', () => {
        // the receiving account that owns the QR is paid as a customer's payment would be: a dynamic QR's own amount
        // (a tip above it goes with it), a static one what the payer typed
        payments.payQris(input.qris, payee.amount === null ? input.amount : undefined);
      });
    },
    status(account: SandboxAccount, reference: string): { status: 'SUCCESS'; transactionId: string } | { status: 'FAILED'; reason: string } | { status: 'NOT_FOUND' } {
      return records.get(key(account, reference)) ?? { status: 'NOT_FOUND' };
    },
  };
}

export type SandboxTransfers = ReturnType<typeof sandboxTransfers>;
