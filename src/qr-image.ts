import { Jimp } from 'jimp';
import jsqrModule from 'jsqr';
import sharp from 'sharp';
import { refuse } from './errors.ts';

// jsqr is CommonJS with an ESM-style default in its types: the function is the module itself at run time
const jsQR = ((jsqrModule as unknown as { default?: typeof jsqrModule }).default ??
  jsqrModule) as unknown as typeof jsqrModule.default;

/** The limits of an uploaded QR image, checked before a pixel is decoded. */
export const qrImageLimits = { maxBytes: 5 * 1024 * 1024, maxSide: 4000 };

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height as the file's header declares them, and its kind; null when it is neither PNG nor JPEG. */
export function declaredSize(bytes: Buffer): { kind: 'png' | 'jpeg'; width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(png) && bytes.toString('latin1', 12, 16) === 'IHDR')
    return { kind: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  // JPEG: walk the segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG and DAC), which holds the size
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { kind: 'jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return null;
}

/** The checks made before decoding: size, kind by magic bytes, declared dimensions; refused with a 400. */
export function checkQrImage(bytes: Buffer) {
  if (bytes.length > qrImageLimits.maxBytes)
    throw refuse('QR_IMAGE_TOO_LARGE', {
      message: `qrImage is larger than ${qrImageLimits.maxBytes / 1024 / 1024} MB`,
    });
  const size = declaredSize(bytes);
  if (!size) throw refuse('QR_IMAGE_NOT_AN_IMAGE', { errors: [{ path: 'body.qrImage', message: 'PNG or JPEG only' }] });
  if (size.width < 1 || size.height < 1 || size.width > qrImageLimits.maxSide || size.height > qrImageLimits.maxSide)
    throw refuse('QR_IMAGE_TOO_LARGE', {
      message: `qrImage declares ${size.width} x ${size.height} pixels; at most ${qrImageLimits.maxSide} a side`,
    });
  return size;
}

// every image is decoded once: libvips' cache of operations would only keep uploads' pixels in memory
sharp.cache(false);

/** The longest side an image is decoded to: a 12-megapixel photo is mostly background, and jsqr's time grows with pixels. */
const scanSide = 1000;

/**
 * The image's pixels at most `scanSide` a side, as RGBA. sharp (libvips) decodes a large JPEG at a reduced scale
 * directly (shrink-on-load), off the event loop, in tens of milliseconds where decoding in JavaScript took seconds.
 */
async function decodeScaled(bytes: Buffer, declared: { width: number; height: number }) {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: declared.width * declared.height, failOn: 'error' })
      .resize({ width: scanSide, height: scanSide, fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return Jimp.fromBitmap({ data, width: info.width, height: info.height });
  } catch {
    throw refuse('QR_IMAGE_NOT_AN_IMAGE', { message: 'qrImage could not be read as an image' });
  }
}

type Bitmap = { data: Buffer; width: number; height: number };
// jsqr's 'onlyInvert' fails (it inverts only when asked for both): a light-on-dark QR is inverted here instead
type Inversion = 'dontInvert' | 'attemptBoth';
const scan = (b: Bitmap, inversion: Inversion) =>
  jsQR(new Uint8ClampedArray(b.data.buffer, b.data.byteOffset, b.data.length), b.width, b.height, {
    inversionAttempts: inversion,
  })?.data ?? null;

/**
 * The text of the QR code in a PNG or JPEG, checked first (checkQrImage), then decoded so that phone photos work too:
 * scaled to at most 1,000 px a side as it is decoded (decodeScaled), then tried cheapest and likeliest first, the first
 * that reads wins: as is (a clean PNG reads there), in greyscale with the contrast raised, scaled down further and up,
 * each dark on light only; then inverted (a light-on-dark QR), and turned by 90 degrees both ways. A picture without a
 * QR goes through every attempt (seconds of noise), so the service calls this in a worker (src/qr-decoding.ts).
 */
export async function readQrImage(bytes: Buffer): Promise<string> {
  const image = await decodeScaled(bytes, checkQrImage(bytes));
  const contrasted = () => image.clone().greyscale().normalize().contrast(0.3);
  const attempts: [() => Bitmap, Inversion][] = [
    [() => image.bitmap, 'dontInvert'],
    [() => contrasted().bitmap, 'dontInvert'],
    [() => image.clone().greyscale().normalize().scale(0.5).bitmap, 'dontInvert'],
    [
      () =>
        Math.max(image.bitmap.width, image.bitmap.height) < 400
          ? image.clone().scale(2).bitmap
          : image.clone().greyscale().scale(0.3).bitmap,
      'dontInvert',
    ],
    [() => contrasted().invert().bitmap, 'dontInvert'],
    [() => image.clone().greyscale().normalize().rotate(90).bitmap, 'attemptBoth'],
  ];
  for (const [bitmap, inversion] of attempts) {
    const text = scan(bitmap(), inversion);
    if (text) return text;
  }
  throw refuse('QR_NOT_FOUND');
}
