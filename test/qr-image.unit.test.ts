import { deflateSync } from 'node:zlib';
import { Jimp } from 'jimp';
import QRCode from 'qrcode';
import { describe, expect, it, vi } from 'vitest';
import { declaredSize, readQrImage } from '../src/qr-image.ts';

const payload = 'HELLO-QRIS-0002010102112644';

/** A PNG chunk: length, type, data, CRC32. */
function chunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
function crc32(bytes: Buffer) {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A tiny PNG file whose header says width x height: its pixels would inflate to gigabytes (a decompression bomb). */
function bombPng(width: number, height: number) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = deflateSync(Buffer.alloc(64 * 1024)); // the first rows of zeros; the rest would follow
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG header (SOI, APP0, SOF0) declaring width x height, with nothing after it. */
function jpegHeader(width: number, height: number) {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

const cleanPng = () => QRCode.toBuffer(payload, { type: 'png', width: 256, margin: 2 });

describe('reading the QR of an uploaded image', () => {
  it('reads a clean PNG', async () => {
    expect(await readQrImage(await cleanPng())).toBe(payload);
  });

  it('reads a phone-like photo: bigger, turned, in JPEG, on a grey background', async () => {
    const qr = await Jimp.read(await cleanPng());
    const photo = new Jimp({ width: 2400, height: 1800, color: 0x9a9a9aff });
    photo.composite(qr.resize({ w: 700, h: 700 }).rotate(15), 800, 500);
    const jpeg = await photo.getBuffer('image/jpeg', { quality: 65 });
    expect(declaredSize(jpeg)).toEqual({ kind: 'jpeg', width: 2400, height: 1800 });
    expect(await readQrImage(jpeg)).toBe(payload);
  });

  it('reads an inverted QR and one turned a quarter', async () => {
    const inverted = await (await Jimp.read(await cleanPng())).invert().getBuffer('image/png');
    expect(await readQrImage(inverted)).toBe(payload);
    const turned = await (await Jimp.read(await cleanPng())).rotate(90).getBuffer('image/png');
    expect(await readQrImage(turned)).toBe(payload);
  });

  it('answers QR_NOT_FOUND for a picture without a QR', async () => {
    const blank = await new Jimp({ width: 300, height: 300, color: 0xffffffff }).getBuffer('image/png');
    await expect(readQrImage(blank)).rejects.toMatchObject({ code: 'QR_NOT_FOUND' });
  });

  it.each([
    ['text', Buffer.from('not an image at all')],
    ['a GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1')],
    ['a truncated PNG signature', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
  ])('refuses %s as not an image', async (_case, bytes) => {
    await expect(readQrImage(bytes)).rejects.toMatchObject({ code: 'QR_IMAGE_NOT_AN_IMAGE' });
  });

  it('refuses a decompression bomb and an oversized JPEG from their headers, before decoding a pixel', async () => {
    const read = vi.spyOn(Jimp, 'read');
    const started = performance.now();
    const bomb = bombPng(50_000, 50_000);
    expect(bomb.length).toBeLessThan(2000);
    await expect(readQrImage(bomb)).rejects.toMatchObject({ code: 'QR_IMAGE_TOO_LARGE' });
    await expect(readQrImage(jpegHeader(10_000, 10_000))).rejects.toMatchObject({ code: 'QR_IMAGE_TOO_LARGE' });
    await expect(readQrImage(Buffer.concat([await cleanPng(), Buffer.alloc(5 * 1024 * 1024)]))).rejects.toMatchObject({
      code: 'QR_IMAGE_TOO_LARGE',
    });
    expect(read).not.toHaveBeenCalled();
    expect(performance.now() - started).toBeLessThan(1000);
    read.mockRestore();
  });
});
