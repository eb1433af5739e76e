import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qrInNoisePng } from '../../bench/qr-images.ts';
import { readQrImage } from '../../src/qr-image.ts';
import { keyCallerOf, textOf } from '../support/pages.ts';
import { cleanPng, noiseInDecoder, notQris, upload, walletOf } from '../support/qr-uploads.ts';
import { startTestService, type TestService } from '../support/service.ts';

// QR images are decoded off the event loop, a bounded number at a time, each within a deadline, and the uploads of a
// key and of a user are limited. Small settings, so that the tests reach every bound.
let decoding: TestService; // one thread, nothing waiting, 3 s a picture
let hurried: TestService; // 300 ms a picture
let limited: TestService; // 2 uploads a key, 3 a user
beforeAll(async () => {
  const unlimited = { QR_UPLOAD_LIMIT_PER_KEY: '1000', QR_UPLOAD_LIMIT_PER_USER: '1000' };
  [decoding, hurried, limited] = await Promise.all([
    startTestService({ QR_DECODE_THREADS: '1', QR_DECODE_QUEUE: '0', QR_DECODE_DEADLINE_MS: '3000', ...unlimited }),
    startTestService({ QR_DECODE_THREADS: '1', QR_DECODE_DEADLINE_MS: '300', ...unlimited }),
    startTestService({ QR_UPLOAD_LIMIT_PER_KEY: '2', QR_UPLOAD_LIMIT_PER_USER: '3' }),
  ]);
});
afterAll(async () => {
  await Promise.all([decoding?.close(), hurried?.close(), limited?.close()]);
});

describe('QR images are decoded off the event loop', () => {
  it('answers /health while a picture of noise is being decoded: the health check ends first', async () => {
    const { caller, accountId } = await walletOf(decoding);
    const ended: string[] = [];
    const noise = (await noiseInDecoder(decoding, caller, accountId, 1)).noise.then(
      response => (ended.push('noise'), response),
    );
    // into its retries: decoded on this thread, the noise would hold the event loop for seconds from here
    await new Promise(resolve => setTimeout(resolve, 200));
    const health = await decoding.app.inject({ method: 'GET', url: '/health' });
    ended.push('health');
    expect(health.statusCode).toBe(200);
    expect((await noise).json()).toMatchObject({ code: 'QR_NOT_FOUND' });
    expect(ended).toEqual(['health', 'noise']);
  });

  it('gives up on an image past its deadline with 400 QR_NOT_FOUND, though its QR reads given seconds', async () => {
    const { caller, accountId } = await walletOf(hurried);
    const slow = await qrInNoisePng(notQris, 2);
    const response = await upload(hurried, caller, accountId, slow);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'QR_NOT_FOUND', message: 'QR could not be decoded from the image' });
    // the thread that was terminated has been replaced: the next image reads
    const clean = await upload(hurried, caller, accountId, await cleanPng());
    expect(clean.json()).toMatchObject({ code: 'QR_NOT_QRIS' });
    // the premise: without a deadline (on this thread, seconds) the same image reads
    expect(await readQrImage(slow)).toBe(notQris);
  });

  it('answers 429 QR_DECODER_BUSY with Retry-After beyond the images in flight, and decodes again after', async () => {
    const { caller, accountId } = await walletOf(decoding);
    const { noise, busy } = await noiseInDecoder(decoding, caller, accountId, 3);
    expect(busy?.statusCode).toBe(429);
    expect(busy?.headers['retry-after']).toBe('3'); // a thread is free within one deadline
    expect(busy?.json()).toMatchObject({ code: 'QR_DECODER_BUSY' });
    expect((await noise).json()).toMatchObject({ code: 'QR_NOT_FOUND' });
    expect((await upload(decoding, caller, accountId, await cleanPng())).json()).toMatchObject({ code: 'QR_NOT_QRIS' });
  });
});

describe('QR uploads are limited per API key and per user', () => {
  it('answers 429 with Retry-After beyond the key limit, then the user limit, the dashboard form counting for its user', async () => {
    const { browser, caller: firstKey, accountId } = await walletOf(limited);
    const secondKey = await keyCallerOf(limited, browser);
    const image = await cleanPng();
    const refusedAs = (response: LightMyRequestResponse) => [
      response.statusCode,
      response.statusCode === 429 ? response.headers['retry-after'] : null,
    ];

    // a file refused from its header costs nothing
    const notImage = await upload(limited, firstKey, accountId, Buffer.from('not a picture'));
    expect(notImage.json()).toMatchObject({ code: 'QR_IMAGE_NOT_AN_IMAGE' });
    for (let i = 0; i < 2; i++)
      expect((await upload(limited, firstKey, accountId, image)).json()).toMatchObject({ code: 'QR_NOT_QRIS' });
    const keySpent = await upload(limited, firstKey, accountId, image);
    expect(refusedAs(keySpent)).toEqual([429, expect.stringMatching(/^[1-9]\d*$/)]);
    expect(keySpent.json()).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('for this API key'),
    });

    // the user's third upload, by another key of theirs; the fourth is one too many, by key or by page
    expect((await upload(limited, secondKey, accountId, image)).json()).toMatchObject({ code: 'QR_NOT_QRIS' });
    const userSpent = await upload(limited, secondKey, accountId, image);
    expect(refusedAs(userSpent)).toEqual([429, expect.stringMatching(/^[1-9]\d*$/)]);
    expect(userSpent.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('for this user') });
    await browser.get(`/dashboard/accounts/${accountId}/transfer`);
    const page = await browser.postMultipart(
      `/dashboard/accounts/${accountId}/transfer/qris`,
      { amount: '1000' },
      { name: 'qrImage', bytes: image, type: 'image/png' },
    );
    expect(refusedAs(page)).toEqual([429, expect.stringMatching(/^[1-9]\d*$/)]);
    expect(textOf(page.body, 'notice')).toMatch(
      /^Terlalu banyak gambar QR untuk pengguna ini; coba lagi dalam [1-9]\d* detik/,
    );

    // another user is not limited by this one
    const other = await walletOf(limited);
    expect((await upload(limited, other.caller, other.accountId, image)).json()).toMatchObject({ code: 'QR_NOT_QRIS' });
  });
});
