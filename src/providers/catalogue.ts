import { isGatewayMethod, type PaymentType } from '../domain/payment-methods.ts';

export type { PaymentType };

/** The providers the service can link, and how: the source of provider codes (GET /api/v1/providers). */

export type Provider = {
  providerCode: string;
  name: string;
  type: 'bank' | 'ewallet';
  paymentTypes: PaymentType[];
  loginFlow: 'credentials' | 'otp' | 'direct';
};

export const providers: readonly Provider[] = [
  { providerCode: 'BANK-BCA', name: 'Bank Central Asia', type: 'bank', paymentTypes: [], loginFlow: 'credentials' },
  { providerCode: 'BANK-BRI', name: 'Bank Rakyat Indonesia', type: 'bank', paymentTypes: [], loginFlow: 'credentials' },
  { providerCode: 'BANK-MANDIRI', name: 'Bank Mandiri', type: 'bank', paymentTypes: [], loginFlow: 'credentials' },
  { providerCode: 'BANK-BNI', name: 'Bank Negara Indonesia', type: 'bank', paymentTypes: [], loginFlow: 'credentials' },
  {
    providerCode: 'WALLET-A',
    name: 'Wallet A',
    type: 'ewallet',
    paymentTypes: ['DIRECT', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3'],
    loginFlow: 'otp',
  },
  {
    providerCode: 'WALLET-A-BUSINESS',
    name: 'Wallet A Business',
    type: 'ewallet',
    paymentTypes: ['QRIS-DYNAMIC'],
    loginFlow: 'direct',
  },
  { providerCode: 'WALLET-B', name: 'Wallet B', type: 'ewallet', paymentTypes: [], loginFlow: 'otp' },
  { providerCode: 'WALLET-C', name: 'Wallet C', type: 'ewallet', paymentTypes: ['QRIS-DYNAMIC'], loginFlow: 'otp' },
  { providerCode: 'WALLET-D', name: 'Wallet D', type: 'ewallet', paymentTypes: ['QRIS-DYNAMIC'], loginFlow: 'direct' },
  { providerCode: 'WALLET-E', name: 'Wallet E', type: 'ewallet', paymentTypes: ['QRIS-DYNAMIC'], loginFlow: 'direct' },
];

export function findProvider(providerCode: string): Provider | undefined {
  return providers.find(p => p.providerCode === providerCode);
}

/**
 * Whether a provider can call the service when money lands in one of its accounts (a notification, a hint that
 * triggers a check): e-wallets do, as QRIS acquirers' callbacks do; banks are only read. The catalogue says who can;
 * a secret configured for the provider (PROVIDER_NOTIFICATION_SECRETS) says who does.
 */
export function offersNotifications(providerCode: string): boolean {
  return findProvider(providerCode)?.type === 'ewallet';
}

/**
 * The gateway methods an account of this provider serves (its payment types the gateway takes: QRIS-DYNAMIC, VA), as
 * the catalogue says now: a holding account serves a method added to its provider without being marked again.
 */
export function gatewayMethodsOf(providerCode: string): PaymentType[] {
  return (findProvider(providerCode)?.paymentTypes ?? []).filter(isGatewayMethod);
}
