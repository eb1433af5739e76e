import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { qrisMaxAmount } from '../../qris-payload.ts';
import { providerOrThrow, SandboxError } from './errors.ts';
import type { Faults } from './faults.ts';
import type { QrisPayee, SandboxPayments } from './payments.ts';
import type { SandboxAccount, SandboxState, TransferRecord } from './state.ts';

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
  ['016', 'Maybank Indonesia', 'MAYBANK'],
  ['147', 'Bank Muamalat', 'MUAMALAT'],
].map(([instId, name, instLocalName]) => ({
  instId: instId!,
  name: name!,
  instLocalName: instLocalName!,
  payMethod: 'BANK_TRANSFER',
  payOption: 'ONLINE',
}));

const givenNames = [
  'Budi',
  'Siti',
  'Agus',
  'Dewi',
  'Rina',
  'Andi',
  'Putri',
  'Eko',
  'Wahyu',
  'Ayu',
  'Joko',
  'Lestari',
  'Hendra',
  'Maya',
  'Rudi',
  'Intan',
];
const familyNames = [
  'Santoso',
  'Wijaya',
  'Saputra',
  'Kurniawan',
  'Lestari',
  'Hidayat',
  'Pratama',
  'Nugroho',
  'Setiawan',
  'Sari',
  'Halim',
  'Gunawan',
];

/** The holder of a bank account, derived from the bank and the number: the same answer every time. */
export function holderNameOf(instId: string, accountNumber: string): string {
  const h = createHash('sha256').update(`${instId}:${accountNumber}`).digest();
  return `${givenNames[h[0]! % givenNames.length]} ${familyNames[h[1]! % familyNames.length]}`.toUpperCase();
}

type Destination = { instId: string; instLocalName: string; accountNumber: string };
export type TransferAnswer = { transactionId: string };
export type TransferStatusAnswer = TransferRecord['outcome'] | { status: 'NOT_FOUND' };

/** What the money moves towards once the wallet is debited: nothing more outside the sandbox (a bank, a shop's QR), a CREDIT for a sandbox merchant's QR. */
type Sending = {
  reference: string;
  amount: number;
  request: string;
  description: string;
  counterparty: string;
  deliver: () => void;
};

const timeoutAnswer = () =>
  new SandboxError(504, 'TIMEOUT', 'no answer in time (sandbox fault): ask the transfer status by its reference');

/** The destination's holder and bank, or the provider's refusal of it. */
function inquiryOf(input: Destination) {
  const bank = sandboxBanks.find(b => b.instId === input.instId);
  if (!bank) throw new SandboxError(400, 'UNKNOWN_BANK', `No bank ${input.instId}`);
  if (bank.instLocalName !== input.instLocalName)
    throw new SandboxError(400, 'BANK_MISMATCH', `bank mismatch: ${input.instLocalName} is not ${bank.name}`);
  if (!/^\d{10,16}$/.test(input.accountNumber))
    throw new SandboxError(400, 'INVALID_ACCOUNT', 'invalid account number: 10 to 16 digits');
  if (input.accountNumber.startsWith('999'))
    throw new SandboxError(400, 'INVALID_ACCOUNT', `invalid account number ${input.accountNumber}`);
  return { accountName: holderNameOf(input.instId, input.accountNumber), bank };
}

/** Moves the money once per reference, under the transfer faults switched on. Checks that can refuse come before. */
async function sendOnce(
  state: SandboxState,
  faults: Faults,
  account: SandboxAccount,
  s: Sending,
): Promise<TransferAnswer> {
  const known = state.findTransfer(account, s.reference);
  if (known && known.request !== s.request)
    throw new SandboxError(409, 'REFERENCE_REUSED', `reference ${s.reference} was used for another transfer`);
  if (known?.outcome.status === 'SUCCESS') return { transactionId: known.outcome.transactionId };
  if (known) throw new SandboxError(400, 'TRANSFER_FAILED', known.outcome.reason);

  const fault = faults.takeTransferFault(account.providerCode);
  if (fault === 'refuse')
    throw new SandboxError(400, 'TRANSFER_REFUSED', 'transfer refused by the provider (sandbox fault)');
  if (s.amount > account.balance)
    throw new SandboxError(400, 'INSUFFICIENT_BALANCE', `balance insufficient: ${account.balance} available`);
  const record = (outcome: TransferRecord['outcome']) =>
    state.saveTransfer({
      providerCode: account.providerCode,
      accountRef: account.accountRef,
      reference: s.reference,
      request: s.request,
      outcome,
    });

  const debit = state.record(account, {
    type: 'DEBIT',
    amount: s.amount,
    description: s.description,
    senderName: s.counterparty,
    reference: s.reference,
  });
  if (fault === 'fail-after-accept') {
    state.record(account, {
      type: 'CREDIT',
      amount: s.amount,
      description: `Refund: ${s.description}`,
      senderName: 'WALLET-A',
      reference: s.reference,
    });
    record({ status: 'FAILED', reason: 'the destination returned the transfer (sandbox fault)' });
  } else {
    s.deliver();
    record({ status: 'SUCCESS', transactionId: debit.id });
  }
  if (fault === null) return { transactionId: debit.id };
  // done (or given back) already: only the answer is late
  const holdMs = faults.transferHoldMs(account.providerCode);
  if (holdMs > 0) await sleep(holdMs);
  throw timeoutAnswer();
}

/** The account, when its provider sends transfers (404 otherwise). */
function walletOf(account: SandboxAccount) {
  if (!providerOrThrow(account.providerCode).transfers)
    throw new SandboxError(404, 'TRANSFERS_NOT_SUPPORTED', `${account.providerCode} accounts do not send transfers`);
  return account;
}

/**
 * Outbound transfers of a WALLET-A account: bank transfers and QR payments by the caller's reference. The wallet is
 * debited at once (a DEBIT carrying the reference, whose id is the transaction id answered); the same reference again
 * moves money once and answers the same (another request under it: 409). Records live in the state file.
 *
 * Faults, counted down per transfer (bank or QR):
 * - refuse: 400 TRANSFER_REFUSED, nothing moves, the status says NOT_FOUND;
 * - timeout: done, but the answer (504) is held `transferHoldMs`: a connector waiting less times out, the status says SUCCESS;
 * - fail-after-accept: debited, then given back (a CREDIT with the same reference), answered as a timeout; the status
 *   says FAILED, and the wallet has no net debit.
 */
export function sandboxTransfers(state: SandboxState, faults: Faults, payments: SandboxPayments) {
  const send = (account: SandboxAccount, sending: Sending) => sendOnce(state, faults, account, sending);

  return {
    banks(account: SandboxAccount) {
      walletOf(account);
      return sandboxBanks;
    },
    inquire(account: SandboxAccount, input: Destination): { accountName: string } {
      walletOf(account);
      return { accountName: inquiryOf(input).accountName };
    },
    transferToBank(
      account: SandboxAccount,
      input: Destination & { reference: string; amount: number },
    ): Promise<TransferAnswer> {
      walletOf(account);
      const { accountName, bank } = inquiryOf(input);
      return send(account, {
        reference: input.reference,
        amount: input.amount,
        request: `bank ${input.instId} ${input.accountNumber} ${input.amount}`,
        description: `Transfer ke ${bank.instLocalName} ${input.accountNumber}`,
        counterparty: accountName,
        deliver: () => undefined, // the bank is outside the sandbox
      });
    },
    /**
     * Pays any QRIS that passes the service's validation, as a real wallet does: a DEBIT naming the merchant of tag 59.
     * A sandbox merchant's QR also credits its account (as `POST /sandbox/payments {qris}` does), so one user's wallet
     * pays another user's payment QR end to end; any other merchant is outside the sandbox, like a bank.
     */
    payQris(
      account: SandboxAccount,
      input: { reference: string; qris: string; amount: number },
    ): Promise<TransferAnswer> {
      walletOf(account);
      // refused before any money moves: an invalid QR, a sandbox merchant's unknown account, another amount
      const payee: QrisPayee = payments.qrisPayee(input.qris, input.amount);
      if (payee.amount > qrisMaxAmount)
        throw new SandboxError(
          400,
          'AMOUNT_OUT_OF_RANGE',
          `A QRIS payment is at most ${qrisMaxAmount}, not ${payee.amount}`,
        );
      const receiving = payee.account;
      return send(account, {
        reference: input.reference,
        amount: payee.amount,
        request: `qris ${createHash('sha256').update(input.qris).digest('hex')} ${input.amount}`,
        description: `Pembayaran QRIS ke ${payee.merchantName}`,
        counterparty: payee.merchantName,
        deliver: () => {
          if (receiving) payments.creditQris(receiving, payee, account.holderName);
        },
      });
    },
    status(account: SandboxAccount, reference: string): TransferStatusAnswer {
      return state.findTransfer(walletOf(account), reference)?.outcome ?? { status: 'NOT_FOUND' };
    },
  };
}

export type SandboxTransfers = ReturnType<typeof sandboxTransfers>;
