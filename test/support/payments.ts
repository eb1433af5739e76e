import { Jimp } from 'jimp';
import jsqrModule from 'jsqr';
import type { keyHolder } from './http.ts';
import { sandboxOf, eventually } from './sandbox.ts';
import type { TestService } from './service.ts';

/** Whoever calls /api/v1 with a key: a keyHolder, or a key made on the dashboard's page. */
type Caller = Pick<Awaited<ReturnType<typeof keyHolder>>, 'call'>;

// jsqr is CommonJS with an ESM-style default in its types: the function is the module itself at run time
const jsQR = ((jsqrModule as unknown as { default?: typeof jsqrModule }).default ??
  jsqrModule) as unknown as typeof jsqrModule.default;

let phoneSeed = 0;
export const freshPhone = () =>
  `0815${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeed).padStart(5, '0')}`;

/** A service wallet linked by phone number (QRIS-DYNAMIC). */
export async function linkServiceWallet(caller: Caller, providerCode = 'WALLET-D') {
  const phoneNumber = freshPhone();
  const response = await caller.call('POST', '/api/v1/accounts', {
    type: 'ewallet',
    providerCode,
    accountName: providerCode,
    intervalMinutes: 60,
    phoneNumber,
  });
  if (response.statusCode !== 200) throw new Error(`link ${providerCode}: ${response.statusCode} ${response.body}`);
  return { accountId: response.json().accountId as string, phoneNumber };
}

/** A WALLET-A account, created with its PIN and activated by its OTP flow (DIRECT and virtual accounts). */
export async function linkWalletA(service: TestService, caller: Caller) {
  const phoneNumber = freshPhone();
  const created = await caller.call('POST', '/api/v1/accounts', {
    type: 'ewallet',
    providerCode: 'WALLET-A',
    accountName: 'A',
    intervalMinutes: 60,
    phoneNumber,
    pin: '123456',
  });
  const accountId = created.json().accountId as string;
  const sent = await caller.call('POST', '/api/v1/accounts', {
    action: 'wallet-a-send-otp',
    phoneNumber,
    pin: '123456',
    accountId,
  });
  const otp = await sandboxOf(service).otp(phoneNumber);
  const verified = await caller.call('POST', '/api/v1/accounts', {
    action: 'wallet-a-verify-otp',
    sessionId: sent.json().sessionId,
    otp,
    accountId,
  });
  if (verified.statusCode !== 200) throw new Error(`wallet A login: ${verified.statusCode} ${verified.body}`);
  return { accountId, phoneNumber };
}

let orderSeed = 0;

/** A payment request with a new order id (counted: each test file has a database of its own). */
export const paymentBody = (walletAccountId: string, overrides: Record<string, unknown> = {}) => ({
  amount: 50_000,
  walletAccountId,
  redirectUrl: 'https://shop.example/thanks',
  orderId: `order-${++orderSeed}`,
  ...overrides,
});

export async function createPayment(caller: Caller, body: Record<string, unknown>) {
  const response = await caller.call('POST', '/api/v1/payments', body);
  if (response.statusCode !== 200) throw new Error(`create payment: ${response.statusCode} ${response.body}`);
  return response.json().data as {
    id: string;
    status: string;
    amount: number;
    uniqueCode: number;
    totalAmount: number;
    type: string;
    qrisImage?: string;
    accountNumber?: string;
    paymentUrl: string;
    expiresAt: string;
  };
}

export async function statusOf(caller: Caller, paymentId: string) {
  return (await caller.call('GET', `/api/v1/payments/status/${paymentId}`)).json().data as {
    status: string;
    [k: string]: unknown;
  };
}

/** Syncs the receiving account now and waits until the payment reaches `status`. */
export async function syncUntil(caller: Caller, accountId: string, paymentId: string, status: string) {
  const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
  if (refreshed.statusCode !== 200) throw new Error(`refresh: ${refreshed.statusCode} ${refreshed.body}`);
  return eventually(async () => {
    const current = await statusOf(caller, paymentId);
    return current.status === status ? current : null;
  });
}

/** Reads a QR image back to its payload, as a payer's phone would. */
export async function decodeQrPng(png: Buffer) {
  const image = await Jimp.read(png);
  const decoded = jsQR(new Uint8ClampedArray(image.bitmap.data), image.bitmap.width, image.bitmap.height);
  return { payload: decoded?.data ?? null, width: image.bitmap.width, height: image.bitmap.height };
}
