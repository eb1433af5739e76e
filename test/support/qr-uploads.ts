import type { LightMyRequestResponse } from 'fastify';
import QRCode from 'qrcode';
import { expect } from 'vitest';
import { noisePng } from '../../bench/qr-images.ts';
import { keyCallerOf, multipartForm, signedInBrowser } from './pages.ts';
import { linkWalletA } from './payments.ts';
import type { TestService } from './service.ts';

export type Caller = Awaited<ReturnType<typeof keyCallerOf>>;
export type Wallet = Awaited<ReturnType<typeof walletOf>>;

/** The text of the clean QR: a link, no QRIS. */
export const notQris = 'https://example.com/not-a-payment';

/** A clean QR that reads at the first attempt and is no QRIS: answered 400 QR_NOT_QRIS once decoded. */
export const cleanPng = () => QRCode.toBuffer(notQris, { type: 'png', width: 256 });

/** A signed-in user (a tenant of the decoder) with a WALLET-A account and a key. */
export async function walletOf(service: TestService) {
  const { browser } = await signedInBrowser(service);
  const caller = await keyCallerOf(service, browser);
  const { accountId } = await linkWalletA(service, caller);
  return { browser, caller, accountId };
}

/** `count` users with their wallets, one after another (signedInBrowser names a user after the browser made last). */
export async function walletsOf(service: TestService, count: 2): Promise<[Wallet, Wallet]>;
export async function walletsOf(service: TestService, count: 4): Promise<[Wallet, Wallet, Wallet, Wallet]>;
export async function walletsOf(service: TestService, count: number): Promise<Wallet[]> {
  const wallets: Wallet[] = [];
  for (let i = 0; i < count; i++) wallets.push(await walletOf(service));
  return wallets;
}

/** A QR transfer of the image through the key surface. */
export const upload = (service: TestService, caller: Caller, accountId: string, image: Buffer) => {
  const { payload, headers } = multipartForm(
    { action: 'wallet-a-qris-create', amount: '1000' },
    { name: 'qrImage', bytes: image, type: 'image/png' },
  );
  return service.app.inject({
    method: 'POST',
    url: `/api/v1/accounts/${accountId}/transfer`,
    headers: { 'x-api-key': caller.key, ...headers },
    payload,
  });
};

/** Uploads a clean QR until one is refused as busy (the first image is then in the decoder), or `first` has ended. */
async function busyWhile(
  service: TestService,
  caller: Caller,
  accountId: string,
  first: Promise<unknown>,
): Promise<LightMyRequestResponse | null> {
  let ended = false;
  const end = () => (ended = true);
  first.then(end, end);
  const probe = await cleanPng();
  while (!ended) {
    const response = await upload(service, caller, accountId, probe);
    if (response.statusCode === 429) return response;
  }
  return null;
}

/**
 * A picture of noise in the single decoder of a service where nothing waits, seen there by a clean upload of the same
 * user refused as busy. A probe can reach the decoder first (the noise still on its way through the multipart parser)
 * and the noise is then the one refused: it is sent again, a few times at most.
 */
export async function noiseInDecoder(service: TestService, caller: Caller, accountId: string, seed: number) {
  const image = await noisePng(seed);
  for (let attempt = 1; attempt <= 5; attempt++) {
    const noise = upload(service, caller, accountId, image);
    const busy = await busyWhile(service, caller, accountId, noise);
    if (busy) return { noise, busy };
    const refused = await noise;
    expect(refused.json(), 'the noise ended without being refused as busy, and no probe was').toMatchObject({
      code: 'QR_DECODER_BUSY',
    });
  }
  throw new Error('the noise never reached the decoder before a probe did');
}
