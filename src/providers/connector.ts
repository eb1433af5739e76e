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
  loginBank(providerCode: string, input: { username: string; password: string; accountNumber: string }): Promise<LoggedIn>;
  /** Wallets whose merchant accounts are linked by phone number alone (loginFlow 'direct'). */
  loginDirect(providerCode: string, input: { phoneNumber: string }): Promise<LoggedIn>;
  sendOtp(
    providerCode: string,
    input: { phoneNumber: string; pin?: string; channel: 'MESSENGER' | 'SMS' },
  ): Promise<{ challengeId: string; expiresAt: string; otpLength: number }>;
  verifyOtp(providerCode: string, input: { challengeId: string; otp: string; pin?: string }): Promise<LoggedIn | SecondOtpRequired>;
  fetchBalance(providerCode: string, accountRef: string, session: ProviderSession): Promise<number>;
  fetchTransactions(
    providerCode: string,
    accountRef: string,
    session: ProviderSession,
    after: string | null,
  ): Promise<{ transactions: ProviderTransaction[]; hasMore: boolean }>;
  fetchStaticQris(providerCode: string, accountRef: string, session: ProviderSession): Promise<string>;
  /** Opens a virtual account number paying into the account (for one payment). */
  openVirtualAccount(providerCode: string, accountRef: string, session: ProviderSession, vaNumber: string): Promise<void>;
}

/** When no provider is configured at all (SANDBOX_PORT=0 and no SANDBOX_URL): every call says unavailable. */
export const unreachableProviders: ProviderConnector = new Proxy({} as ProviderConnector, {
  get: () => async () => {
    throw new ProviderError('unavailable', 'no provider is configured');
  },
});
