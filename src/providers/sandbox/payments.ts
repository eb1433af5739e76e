import { isValidAccountRef } from './catalogue.ts';
import { providerOrThrow, SandboxError } from './errors.ts';
import { amountToPay, readQris, sandboxQrisGui } from './qris.ts';
import type { SandboxAccount, SandboxState } from './state.ts';

/** Money paid in as a customer would: by QRIS, into a virtual account, or by transfer to an account number. */
export type PaymentAnswer = { transactionId: string; providerCode: string; accountRef: string; amount: number };

export const customerName = 'SANDBOX CUSTOMER';

/**
 * Whom a QRIS pays and how much: the sandbox account that owns it (null for a merchant outside the sandbox, named by
 * tag 59 only), the amount with any tip, the bill reference it carries.
 */
export type QrisPayee = {
  account: SandboxAccount | null;
  merchantName: string;
  amount: number;
  reference: string | null;
};

/** The account, created on the fly (deterministic data) when it was never seen; a malformed accountRef is 400. */
export function openAccountFor(state: SandboxState, providerCode: string, accountRef: string): SandboxAccount {
  const provider = providerOrThrow(providerCode);
  if (!state.findAccount(providerCode, accountRef) && !isValidAccountRef(provider, accountRef))
    throw new SandboxError(
      400,
      'INVALID_ACCOUNT_REF',
      provider.type === 'bank'
        ? 'accountRef must be an account number (4 to 20 digits)'
        : 'accountRef must be a phone number',
    );
  return state.openAccount(providerCode, accountRef);
}

/**
 * Whom a QRIS pays and how much, checked before any money moves: the QR as the service validates it, the amount
 * (amountToPay), and a sandbox merchant's account (its provider must take QRIS).
 */
function qrisPayeeIn(state: SandboxState, qris: string, typedAmount: number | undefined): QrisPayee {
  const read = readQris(qris);
  const amount = amountToPay(read.qris, typedAmount);
  const merchantName = read.qris.merchantName;
  if (!read.sandboxMerchant) return { account: null, merchantName, amount, reference: read.reference };
  const provider = providerOrThrow(read.sandboxMerchant.providerCode);
  if (!provider.qris)
    throw new SandboxError(400, 'QRIS_NOT_SUPPORTED', `${provider.providerCode} does not take QRIS payments`);
  const account = openAccountFor(state, read.sandboxMerchant.providerCode, read.sandboxMerchant.accountRef);
  return { account, merchantName, amount, reference: read.reference };
}

/** A virtual account paying into the account; one already paying into another is 409. */
function registerVirtualAccount(
  state: SandboxState,
  input: { providerCode: string; accountRef: string; vaNumber: string },
) {
  const account = openAccountFor(state, input.providerCode, input.accountRef);
  const taken = state.virtualAccounts.get(input.vaNumber);
  if (taken && (taken.providerCode !== account.providerCode || taken.accountRef !== account.accountRef))
    throw new SandboxError(409, 'VA_TAKEN', `Virtual account ${input.vaNumber} already pays into another account`);
  const registered = {
    vaNumber: input.vaNumber,
    providerCode: account.providerCode,
    accountRef: account.accountRef,
  };
  state.virtualAccounts.set(input.vaNumber, registered);
  state.changed();
  return registered;
}

/** The one account the sandbox knows by this number: none is 404, several (at different providers) 400. */
function onlyAccountNumbered(state: SandboxState, accountNumber: string): SandboxAccount {
  const matches = [...state.accounts.values()].filter(a => a.accountRef === accountNumber);
  if (matches.length === 0)
    throw new SandboxError(404, 'ACCOUNT_NOT_FOUND', `No account ${accountNumber}; give providerCode to open it`);
  if (matches.length > 1)
    throw new SandboxError(400, 'AMBIGUOUS_ACCOUNT', `${accountNumber} exists at several providers; give providerCode`);
  return matches[0]!;
}

/** `onCredit`: money a customer paid landed in a sandbox account (the provider's push, src/providers/sandbox/notifications.ts). */
export function sandboxPayments(
  state: SandboxState,
  onCredit: (account: SandboxAccount, transactionId: string) => void = () => {},
) {
  const credit = (
    account: SandboxAccount,
    amount: number,
    description: string,
    reference: string | null,
    senderName = customerName,
  ): PaymentAnswer => {
    const added = state.record(account, { type: 'CREDIT', amount, description, senderName, reference });
    onCredit(account, added.id);
    return { transactionId: added.id, providerCode: account.providerCode, accountRef: account.accountRef, amount };
  };

  const qrisPayee = (qris: string, typedAmount: number | undefined) => qrisPayeeIn(state, qris, typedAmount);

  /** The CREDIT a sandbox merchant receives for its QR, tip included. */
  const creditQris = (account: SandboxAccount, payee: QrisPayee, senderName: string) =>
    credit(account, payee.amount, 'QRIS payment', payee.reference, senderName);

  return {
    qrisPayee,

    registerVirtualAccount: (input: { providerCode: string; accountRef: string; vaNumber: string }) =>
      registerVirtualAccount(state, input),

    creditQris,

    /**
     * Pays a sandbox merchant's QRIS as a customer would (`POST /sandbox/payments {qris}`), tip included. A merchant
     * outside the sandbox has no account here to credit: 404.
     */
    payQris(qris: string, typedAmount: number | undefined): PaymentAnswer {
      const payee = qrisPayee(qris, typedAmount);
      if (!payee.account)
        throw new SandboxError(
          404,
          'MERCHANT_NOT_FOUND',
          `No ${sandboxQrisGui} merchant in this QRIS: ${payee.merchantName} has no sandbox account to credit`,
        );
      return creditQris(payee.account, payee, customerName);
    },

    payVirtualAccount(vaNumber: string, amount: number): PaymentAnswer {
      const va = state.virtualAccounts.get(vaNumber);
      if (!va)
        throw new SandboxError(
          404,
          'VA_NOT_FOUND',
          `No virtual account ${vaNumber}; register it with POST /sandbox/virtual-accounts`,
        );
      return credit(state.openAccount(va.providerCode, va.accountRef), amount, `VA payment ${vaNumber}`, vaNumber);
    },

    /** Without providerCode the account number must name exactly one account the sandbox knows. */
    transfer(providerCode: string | undefined, accountNumber: string, amount: number): PaymentAnswer {
      if (providerCode !== undefined)
        return credit(openAccountFor(state, providerCode, accountNumber), amount, 'Transfer', null);
      return credit(onlyAccountNumbered(state, accountNumber), amount, 'Transfer', null);
    },
  };
}

export type SandboxPayments = ReturnType<typeof sandboxPayments>;
