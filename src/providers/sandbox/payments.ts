import { isValidAccountRef } from './catalogue.ts';
import { providerOrThrow, SandboxError } from './errors.ts';
import { readQris } from './qris.ts';
import type { SandboxAccount, SandboxState } from './state.ts';

/** Money paid in as a customer would: by QRIS, into a virtual account, or by transfer to an account number. */
export type PaymentAnswer = { transactionId: string; providerCode: string; accountRef: string; amount: number };

export const customerName = 'SANDBOX CUSTOMER';

/** Whom a QRIS pays (the account that owns it), how much, and the bill reference it carries. */
export type QrisPayee = { account: SandboxAccount; amount: number; reference: string | null };

/** The account, created on the fly (deterministic data) when it was never seen; a malformed accountRef is 400. */
export function openAccountFor(state: SandboxState, providerCode: string, accountRef: string): SandboxAccount {
  const provider = providerOrThrow(providerCode);
  if (!state.findAccount(providerCode, accountRef) && !isValidAccountRef(provider, accountRef))
    throw new SandboxError(400, 'INVALID_ACCOUNT_REF', provider.type === 'bank' ? 'accountRef must be an account number (4 to 20 digits)' : 'accountRef must be a phone number');
  return state.openAccount(providerCode, accountRef);
}

export function sandboxPayments(state: SandboxState) {
  const credit = (account: SandboxAccount, amount: number, description: string, reference: string | null, senderName = customerName): PaymentAnswer => {
    const added = state.record(account, { type: 'CREDIT', amount, description, senderName, reference });
    return { transactionId: added.id, providerCode: account.providerCode, accountRef: account.accountRef, amount };
  };

  /**
   * Whom a QRIS pays and how much, checked before any money moves: a dynamic QR carries its amount (tag 54), a static
   * one needs `amount` typed by the payer.
   */
  const qrisPayee = (qris: string, typedAmount: number | undefined): QrisPayee => {
    const payee = readQris(qris);
    const provider = providerOrThrow(payee.providerCode);
    if (!provider.qris) throw new SandboxError(400, 'QRIS_NOT_SUPPORTED', `${provider.providerCode} does not take QRIS payments`);
    if (payee.amount === null && typedAmount === undefined)
      throw new SandboxError(400, 'AMOUNT_REQUIRED', 'A static QRIS has no amount (tag 54): give `amount`, or pay a dynamic QRIS');
    if (payee.amount !== null && typedAmount !== undefined && payee.amount !== typedAmount && !(payee.tipIndicator && typedAmount > payee.amount))
      throw new SandboxError(400, 'AMOUNT_MISMATCH', `The QRIS asks for ${payee.amount}, not ${typedAmount}`);
    const account = openAccountFor(state, payee.providerCode, payee.accountRef);
    return { account, amount: typedAmount ?? payee.amount!, reference: payee.reference };
  };

  return {
    qrisPayee,

    registerVirtualAccount(input: { providerCode: string; accountRef: string; vaNumber: string }) {
      const account = openAccountFor(state, input.providerCode, input.accountRef);
      const taken = state.virtualAccounts.get(input.vaNumber);
      if (taken && (taken.providerCode !== account.providerCode || taken.accountRef !== account.accountRef))
        throw new SandboxError(409, 'VA_TAKEN', `Virtual account ${input.vaNumber} already pays into another account`);
      const registered = { vaNumber: input.vaNumber, providerCode: account.providerCode, accountRef: account.accountRef };
      state.virtualAccounts.set(input.vaNumber, registered);
      state.changed();
      return registered;
    },

    /** Pays a QRIS as a customer would (`POST /sandbox/payments {qris}`); a tip above a dynamic QR's amount goes with it. */
    payQris(qris: string, typedAmount: number | undefined, senderName = customerName): PaymentAnswer {
      const payee = qrisPayee(qris, typedAmount);
      return credit(payee.account, payee.amount, 'QRIS payment', payee.reference, senderName);
    },

    payVirtualAccount(vaNumber: string, amount: number): PaymentAnswer {
      const va = state.virtualAccounts.get(vaNumber);
      if (!va) throw new SandboxError(404, 'VA_NOT_FOUND', `No virtual account ${vaNumber}; register it with POST /sandbox/virtual-accounts`);
      return credit(state.openAccount(va.providerCode, va.accountRef), amount, `VA payment ${vaNumber}`, vaNumber);
    },

    /** Without providerCode the account number must name exactly one account the sandbox knows. */
    transfer(providerCode: string | undefined, accountNumber: string, amount: number): PaymentAnswer {
      if (providerCode !== undefined) return credit(openAccountFor(state, providerCode, accountNumber), amount, 'Transfer', null);
      const matches = [...state.accounts.values()].filter(a => a.accountRef === accountNumber);
      if (matches.length === 0) throw new SandboxError(404, 'ACCOUNT_NOT_FOUND', `No account ${accountNumber}; give providerCode to open it`);
      if (matches.length > 1) throw new SandboxError(400, 'AMBIGUOUS_ACCOUNT', `${accountNumber} exists at several providers; give providerCode`);
      return credit(matches[0]!, amount, 'Transfer', null);
    },
  };
}

export type SandboxPayments = ReturnType<typeof sandboxPayments>;
