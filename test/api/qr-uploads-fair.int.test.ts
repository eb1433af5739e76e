import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noisePng } from '../../bench/qr-images.ts';
import { cleanPng, noiseInDecoder, upload, walletsOf, type Wallet } from '../support/qr-uploads.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The QR decoder shared between users (src/qr-decode-queue.ts), through HTTP and real worker threads. Pictures of
// noise decode nothing: each holds its thread for the whole deadline. A clean QR is no QRIS: 400 QR_NOT_QRIS once read.
let shared: TestService; // one thread, 2 images of a user and 4 of all waiting, 1 s a picture
let twoThreads: TestService; // two threads, 1 image of a user waiting
let limited: TestService; // one thread, nothing waiting, 3 uploads a key
beforeAll(async () => {
  const unlimited = { QR_UPLOAD_LIMIT_PER_KEY: '1000', QR_UPLOAD_LIMIT_PER_USER: '1000' };
  const decoder = (threads: number, queue: number, perTenant: number, deadlineMs: number) => ({
    QR_DECODE_THREADS: String(threads),
    QR_DECODE_QUEUE: String(queue),
    QR_DECODE_QUEUE_PER_TENANT: String(perTenant),
    QR_DECODE_DEADLINE_MS: String(deadlineMs),
  });
  [shared, twoThreads, limited] = await Promise.all([
    startTestService({ ...decoder(1, 4, 2, 1000), ...unlimited }),
    startTestService({ ...decoder(2, 4, 1, 1500), ...unlimited }),
    startTestService({ ...decoder(1, 0, 0, 3000), QR_UPLOAD_LIMIT_PER_KEY: '3', QR_UPLOAD_LIMIT_PER_USER: '1000' }),
  ]);
});
afterAll(async () => {
  await Promise.all([shared?.close(), twoThreads?.close(), limited?.close()]);
});

const codeOf = (response: LightMyRequestResponse) => (response.json() as { code?: string }).code;
const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Uploads of several users, each answer noted in the order the answers come. */
function answersInOrder(service: TestService) {
  const order: string[] = [];
  const send = (who: string, { caller, accountId }: Pick<Wallet, 'caller' | 'accountId'>, image: Buffer) =>
    upload(service, caller, accountId, image).then(response => {
      order.push(`${who}:${codeOf(response)}`);
      return response;
    });
  return { order, send };
}

describe('the QR decoder shared fairly between users', () => {
  it("answers a fourth user's clean QR every time while three users flood the decoder with noise", async () => {
    const [victim, ...flooders] = await walletsOf(shared, 4);
    const [noise, clean] = await Promise.all([noisePng(11), cleanPng()]);
    const flood = { on: true, busy: 0, notFound: 0 };
    // three uploads in flight a user (the most one user may have), each sent again once answered, a moment after a
    // refusal: together more than the queue of all takes
    const flooding = flooders.flatMap(({ caller, accountId }) =>
      [0, 1, 2].map(async () => {
        while (flood.on) {
          const response = await upload(shared, caller, accountId, noise);
          if (codeOf(response) === 'QR_NOT_FOUND') flood.notFound++;
          else {
            expect(response.statusCode, response.body).toBe(429);
            expect(response.headers['retry-after']).toBe('1');
            flood.busy++;
            await pause(250);
          }
        }
      }),
    );
    try {
      const victimCodes = [];
      for (let probe = 0; probe < 3; probe++) {
        // the decoder full of noise again: a user's images refused as busy since the last probe
        const busyBefore = flood.busy;
        while (flood.busy === busyBefore) await pause(20);
        victimCodes.push(codeOf(await upload(shared, victim.caller, victim.accountId, clean)));
      }
      expect(victimCodes).toEqual(Array(3).fill('QR_NOT_QRIS'));
      expect(flood.notFound, 'the noise held the decoder').toBeGreaterThanOrEqual(3);
    } finally {
      flood.on = false;
      await Promise.all(flooding);
    }
  }, 60_000);

  it("keeps a user's extra images waiting behind its first or refuses them, and puts its noise behind another's clean QRs", async () => {
    const [sender, other] = await walletsOf(shared, 2);
    const [noise, clean] = await Promise.all([noisePng(12), cleanPng()]);
    const { order, send } = answersInOrder(shared);
    // four at once: one in the thread, two waiting, the fourth refused with Retry-After
    const noises = [0, 1, 2, 3].map(() => send('noise', sender, noise));
    const refused = await Promise.race(noises);
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'QR_DECODER_BUSY' });
    expect(refused.headers['retry-after']).toBe('1'); // a thread is free within one deadline
    // the other user's two clean QRs, sent while the noise holds the thread, go before the noise that waited longer:
    // the sender has used a deadline of decoder time, the other user a moment
    const cleans = [0, 1].map(() => send('clean', other, clean));
    await Promise.all([...noises, ...cleans]);
    expect(order).toEqual([
      'noise:QR_DECODER_BUSY',
      'noise:QR_NOT_FOUND',
      'clean:QR_NOT_QRIS',
      'clean:QR_NOT_QRIS',
      'noise:QR_NOT_FOUND',
      'noise:QR_NOT_FOUND',
    ]);
  });

  it('decodes at most one image of a user at a time: a thread is left for another user', async () => {
    const [sender, other] = await walletsOf(twoThreads, 2);
    const [noise, clean] = await Promise.all([noisePng(13), cleanPng()]);
    const { order, send } = answersInOrder(twoThreads);
    // three at once with two threads: one in a thread, one waiting, the third refused
    const noises = [0, 1, 2].map(() => send('noise', sender, noise));
    expect(codeOf(await Promise.race(noises))).toBe('QR_DECODER_BUSY');
    await Promise.all([...noises, send('clean', other, clean)]);
    expect(order).toEqual(['noise:QR_DECODER_BUSY', 'clean:QR_NOT_QRIS', 'noise:QR_NOT_FOUND', 'noise:QR_NOT_FOUND']);
  });

  it("spends none of a user's uploads on a refusal because the decoder is busy", async () => {
    const [sender, waiting] = await walletsOf(limited, 2);
    const clean = await cleanPng();
    const { noise } = await noiseInDecoder(limited, sender.caller, sender.accountId, 14);
    // as many refusals as the key's limit (3), while the noise holds the only thread
    for (let i = 0; i < 3; i++) {
      const busy = await upload(limited, waiting.caller, waiting.accountId, clean);
      expect(busy.json()).toMatchObject({ code: 'QR_DECODER_BUSY' });
    }
    expect(codeOf(await noise)).toBe('QR_NOT_FOUND');
    // the key's three uploads are all still there, and a fourth is one too many
    for (let i = 0; i < 3; i++)
      expect(codeOf(await upload(limited, waiting.caller, waiting.accountId, clean))).toBe('QR_NOT_QRIS');
    const spent = await upload(limited, waiting.caller, waiting.accountId, clean);
    expect(spent.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('for this API key') });
  });
});
