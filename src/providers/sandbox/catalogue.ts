/** What the sandbox plays: four banks and six e-wallets, each with the login style of the real one. */
export type SandboxLoginStyle =
  | { kind: 'credentials' } // username + password + account number
  | { kind: 'otp'; otpLength: number; pinAt: 'otp' | 'verify' | null; mayAskSecondOtp: boolean; direct: boolean };

export type SandboxProvider = {
  providerCode: string;
  name: string;
  type: 'bank' | 'ewallet';
  login: SandboxLoginStyle;
  /** Merchant accounts of this wallet show a static QRIS code and can be paid by QR. */
  qris: boolean;
  /** Its accounts send money out: to bank accounts and by paying QRIS codes (WALLET-A). */
  transfers: boolean;
};

const bank = (providerCode: string, name: string): SandboxProvider => ({
  providerCode,
  name,
  type: 'bank',
  login: { kind: 'credentials' },
  qris: false,
  transfers: false,
});

const wallet = (
  providerCode: string,
  name: string,
  login: { otpLength: number; pinAt?: 'otp' | 'verify'; mayAskSecondOtp?: boolean; direct?: boolean },
  qris: boolean,
): SandboxProvider => ({
  providerCode,
  name,
  type: 'ewallet',
  login: {
    kind: 'otp',
    otpLength: login.otpLength,
    pinAt: login.pinAt ?? null,
    mayAskSecondOtp: login.mayAskSecondOtp ?? false,
    direct: login.direct ?? false,
  },
  qris,
  transfers: providerCode === 'WALLET-A',
});

export const sandboxProviders: readonly SandboxProvider[] = [
  bank('BANK-BCA', 'Bank Central Asia'),
  bank('BANK-BRI', 'Bank Rakyat Indonesia'),
  bank('BANK-MANDIRI', 'Bank Mandiri'),
  bank('BANK-BNI', 'Bank Negara Indonesia'),
  wallet('WALLET-A', 'Wallet A', { otpLength: 4, pinAt: 'otp' }, false),
  wallet('WALLET-A-BUSINESS', 'Wallet A Business', { otpLength: 6, direct: true }, true),
  wallet('WALLET-B', 'Wallet B', { otpLength: 6, pinAt: 'verify' }, false),
  wallet('WALLET-C', 'Wallet C', { otpLength: 6, mayAskSecondOtp: true }, true),
  wallet('WALLET-D', 'Wallet D', { otpLength: 6, direct: true }, true),
  wallet('WALLET-E', 'Wallet E', { otpLength: 6, direct: true }, true),
];

export function findSandboxProvider(providerCode: string): SandboxProvider | undefined {
  return sandboxProviders.find(p => p.providerCode === providerCode);
}

export const accountNumberPattern = /^[0-9]{4,20}$/;
export const phonePattern = /^\+?[0-9]{8,15}$/;

/** accountRef is the account number at a bank and the phone number at a wallet. */
export function isValidAccountRef(provider: SandboxProvider, accountRef: string): boolean {
  return (provider.type === 'bank' ? accountNumberPattern : phonePattern).test(accountRef);
}
