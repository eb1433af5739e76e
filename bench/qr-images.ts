/**
 * Uploaded images that are hard on a QR decoder, made the same every time (a seeded generator): the benchmark's load
 * and the tests' slow decodes.
 */
import QRCode from 'qrcode';
import sharp from 'sharp';

/** mulberry32: a small seeded generator of floats in [0, 1). */
function seeded(seed: number) {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A side x side PNG of random RGB noise (1,000 px: about 3 MB): no QR, and every retry of the decoder runs on it. */
export async function noisePng(seed: number, side = 1000): Promise<Buffer> {
  const next = seeded(seed);
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(next() * 256);
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * A QR of `text` (300 px) in the middle of 1,000 px of noise: it reads, but only at a late retry (scaled down), after
 * about 2 s of earlier attempts on this machine; a decode with a deadline of a few hundred ms gives up on it.
 */
export async function qrInNoisePng(text: string, seed: number): Promise<Buffer> {
  const qr = await QRCode.toBuffer(text, { type: 'png', width: 300, margin: 1 });
  return sharp(await noisePng(seed))
    .composite([{ input: qr, left: 350, top: 350 }])
    .png()
    .toBuffer();
}
