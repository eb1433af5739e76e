/**
 * The service's event loop while QR images of noise are decoded: the service started as `npm start` starts
 * it, in its own process; this process sends `uploads` 1,000 x 1,000 noise PNGs at once as QR transfers of one
 * WALLET-A account, and asks GET /health every 25 ms (one at a time) from just before the first upload until the last
 * is answered. When the noise was decoded on the event loop, four froze every call for 26 s.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import QRCode from 'qrcode';
import { freePort } from '../src/db/free-port.ts';
import { sleep } from './harness.ts';
import { merchant, postJson } from './payments.ts';
import { killOnExit, startService } from './processes.ts';
import { noisePng } from './qr-images.ts';

export type HealthUnderNoise = {
  /** ms of each /health asked while the uploads were in flight */
  health: number[];
  /** ms of each /health asked before the first upload */
  idleHealth: number[];
  uploads: { status: number; code: string; ms: number }[];
  /** ms from the first upload sent to the last answered */
  uploadsMs: number;
};

/** A key and a WALLET-A account of the running service, logged in by its OTP in the sandbox. */
async function walletAccount(url: string, sandboxUrl: string) {
  const m = await merchant(url, 23, 0);
  const api = (body: unknown) => postJson(`${url}/api/v1/accounts`, body, { 'x-api-key': m.key });
  const phoneNumber = '081377723001';
  const created = await api({
    type: 'ewallet',
    providerCode: 'WALLET-A',
    accountName: 'QR payer',
    intervalMinutes: 1440,
    phoneNumber,
    pin: '123456',
  });
  const accountId = created.accountId as string;
  const sent = await api({ action: 'wallet-a-send-otp', phoneNumber, pin: '123456', accountId });
  const otp = ((await (await fetch(`${sandboxUrl}/sandbox/otp?phone=${phoneNumber}`)).json()) as { code: string }).code;
  await api({ action: 'wallet-a-verify-otp', sessionId: sent.sessionId, otp, accountId });
  return { key: m.key, accountId };
}

async function uploadQr(url: string, key: string, accountId: string, image: Buffer) {
  const form = new FormData();
  form.set('action', 'wallet-a-qris-create');
  form.set('amount', '1000');
  form.set('qrImage', new Blob([image], { type: 'image/png' }), 'qr.png');
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/accounts/${accountId}/transfer`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code ?? 'OK', ms: performance.now() - started };
}

/** GET /health every `everyMs` (one at a time) until `stop` is set; the time each took, by when it was asked. */
async function pollHealth(url: string, everyMs: number, until: () => boolean) {
  const samples: { at: number; ms: number }[] = [];
  while (!until()) {
    const at = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    const ms = performance.now() - at;
    samples.push({ at, ms });
    await sleep(Math.max(0, everyMs - ms));
  }
  return samples;
}

export async function healthUnderNoise(checkout: string, uploads: number): Promise<HealthUnderNoise> {
  const images = await Promise.all(Array.from({ length: uploads }, (_, i) => noisePng(100 + i)));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-qr-uploads-'));
  const service = await startService({
    checkout,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    logFile: path.join(dataDir, 'service.log'),
  });
  const stopOnExit = killOnExit([service]);
  try {
    const { key, accountId } = await walletAccount(service.url, service.sandboxUrl);
    // as in steady state: the decoder's threads started by an upload before (not a QRIS: answered 400, moves nothing)
    await uploadQr(service.url, key, accountId, await QRCode.toBuffer('warm-up', { type: 'png', width: 256 }));

    let done = false;
    const polling = pollHealth(service.url, 25, () => done);
    await sleep(250);
    const sent = performance.now();
    const answers = await Promise.all(images.map(image => uploadQr(service.url, key, accountId, image)));
    const answered = performance.now();
    done = true;
    const samples = await polling;
    return {
      health: samples.filter(s => s.at >= sent && s.at < answered).map(s => s.ms),
      idleHealth: samples.filter(s => s.at < sent).map(s => s.ms),
      uploads: answers,
      uploadsMs: answered - sent,
    };
  } finally {
    await service.stop();
    stopOnExit();
  }
}
