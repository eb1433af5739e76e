/**
 * The connector port: how the service talks to a bank or an e-wallet. The sandbox provider and, later, real
 * providers sit behind it. Everything crossing it is parsed once and typed.
 */
export type ProviderSession = { token: string; expiresAt: string };

export type ProviderTransaction = {
  id: string;
  type: 'CREDIT' | 'DEBIT';
  amount: number;
  description: string;
  senderName: string;
  reference: string | null;
  occurredAt: string;
};

export type LoggedIn = { kind: 'session'; session: ProviderSession; holderName: string };
export type SecondOtpRequired = { kind: 'second-otp'; challengeId: string; expiresAt: string };

export type ProviderFailure =
  | 'invalid-credentials' // username/password or PIN refused
  | 'session-expired' // relogin needed
  | 'wrong-otp'
  | 'challenge-expired' // OTP session expired, locked or used
  | 'unavailable' // outage, timeout, open circuit, 5xx after retries
  | 'insufficient-balance' // a transfer the wallet's balance at the provider cannot cover: nothing moved
  | 'rejected'; // the provider refused the request for another reason (4xx)

export class ProviderError extends Error {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface ProviderConnector {
  loginBank(
    providerCode: string,
    input: { username: string; password: string; accountNumber: string },
  ): Promise<LoggedIn>;
  /** Wallets whose merchant accounts are linked by phone number alone (loginFlow 'direct'). */
  loginDirect(providerCode: string, input: { phoneNumber: string }): Promise<LoggedIn>;
  sendOtp(
    providerCode: string,
    input: { phoneNumber: string; pin?: string; channel: 'MESSENGER' | 'SMS' },
  ): Promise<{ challengeId: string; expiresAt: string; otpLength: number }>;
  verifyOtp(
    providerCode: string,
    input: { challengeId: string; otp: string; pin?: string },
  ): Promise<LoggedIn | SecondOtpRequired>;
  fetchBalance(providerCode: string, accountRef: string, session: ProviderSession): Promise<number>;
  fetchTransactions(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    after: string | null,
  ): Promise<{ transactions: ProviderTransaction[]; hasMore: boolean }>;
  fetchStaticQris(providerCode: string, accountRef: string, session: ProviderSession): Promise<string>;
  /** Opens a virtual account number paying into the account (for one payment). */
  openVirtualAccount(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    vaNumber: string,
  ): Promise<void>;

  // outbound transfers (WALLET-A): each carries our reference, by which its outcome can be asked
  /** The banks a transfer can go to. */
  listBanks(providerCode: string, accountRef: string, session: ProviderSession): Promise<BankEntry[]>;
  /** The holder's name of a bank account; ProviderError 'rejected' for an invalid number or a bank mismatch. */
  inquireBankAccount(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    input: BankDestination,
  ): Promise<{ accountName: string }>;
  /**
   * Sends `amount` from the wallet to a bank account. ProviderError 'insufficient-balance' or 'rejected': refused,
   * nothing moved (the message is the provider's reason: invalid account, bank mismatch, amount mismatch...);
   * 'unavailable' (a timeout, a 5xx among them): the outcome is unknown, ask transferStatus by the reference.
   */
  transferToBank(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    input: BankDestination & { reference: string; amount: number },
  ): Promise<TransferReceipt>;
  /** Pays a QRIS payload from the wallet (the amount includes any tip); failures as transferToBank. */
  payQris(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    input: { reference: string; qris: string; amount: number },
  ): Promise<TransferReceipt>;
  /** What became of the transfer with our `reference`: done (with the provider's transaction id), failed, or never seen. */
  transferStatus(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    reference: string,
  ): Promise<TransferStatus>;
}

/** A bank a transfer can go to, as the provider lists it (copied unchanged into bank-init). */
export type BankEntry = { instId: string; name: string; instLocalName: string; payMethod: string; payOption: string };

export type BankDestination = { instId: string; instLocalName: string; accountNumber: string };

/** A transfer the provider did: its transaction id, the `id` of the DEBIT it lists in the wallet's transactions. */
export type TransferReceipt = { transactionId: string };

export type TransferStatus =
  { status: 'SUCCESS'; transactionId: string } | { status: 'FAILED'; reason: string } | { status: 'NOT_FOUND' };

/**
 * When no provider is configured at all (SANDBOX_PORT=0 and no SANDBOX_URL): every method of the port, the transfer
 * ones included, says unavailable. Not a thenable: `then` is absent, so awaiting the connector itself does not hang.
 */
export const unreachableProviders: ProviderConnector = new Proxy({} as ProviderConnector, {
  get: (_target, name) =>
    name === 'then'
      ? undefined
      : async () => {
          throw new ProviderError('unavailable', 'no provider is configured');
        },
});
