import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTlv, findTlv, hasValidCrc, parseTlv, toDynamicQr, withCrc } from '../../src/emv-qr.ts';
import QRCode from 'qrcode';
import { qrPng } from '../../src/api/payment-page.ts';
import { expectStatus, sandboxHarness, type SandboxHarness } from './sandbox-harness.ts';

/** Paying into sandbox accounts as a customer would: by QRIS, by virtual account, by transfer. */
let sandbox: SandboxHarness;
beforeEach(async () => {
  sandbox = await sandboxHarness();
});
afterEach(async () => sandbox.close());

const merchantPhone = '081233330001';
const pay = (body: Record<string, unknown>) => sandbox.post('/sandbox/payments', body);
const lastTransaction = async (providerCode: string, accountRef: string, token: string) =>
  (await sandbox.get(`/providers/${providerCode}/accounts/${accountRef}/transactions`, token))
    .json()
    .transactions.at(-1);

/** What a merchant's dynamic QR is: the static one, point of initiation '12', tag 54 with the amount, a new CRC. */
function dynamicFrom(staticPayload: string, amount: number): string {
  const fields = parseTlv(staticPayload)
    .filter(f => f.tag !== '63')
    .map(f => (f.tag === '01' ? { tag: '01', value: '12' } : f));
  fields.splice(fields.findIndex(f => f.tag === '53') + 1, 0, { tag: '54', value: String(amount) });
  return withCrc(buildTlv(fields));
}

describe('QRIS', () => {
  it('shows a static EMVCo QRIS for a QRIS wallet merchant', async () => {
    const { sessionToken, account } = await sandbox.loginWallet('WALLET-D', merchantPhone);
    const response = await sandbox.get(`/providers/WALLET-D/accounts/${merchantPhone}/qris`, sessionToken);
    expectStatus(response, 200);
    const payload = response.json().payload as string;
    expect(hasValidCrc(payload)).toBe(true);
    expect(payload.slice(-8, -4)).toBe('6304');
    const fields = parseTlv(payload);
    expect(fields.map(f => f.tag)).toEqual(['00', '01', '26', '52', '53', '58', '59', '60', '63']);
    expect(Object.fromEntries(fields.filter(f => !['26', '63'].includes(f.tag)).map(f => [f.tag, f.value]))).toEqual({
      '00': '01',
      '01': '11',
      '52': '5812',
      '53': '360',
      '58': 'ID',
      '59': account.holderName,
      '60': 'JAKARTA',
    });
    const merchant = parseTlv(findTlv(fields, '26')!);
    expect(findTlv(merchant, '00')).toBe('ID.CO.SANDBOX.WWW');
    expect(findTlv(merchant, '01')).toBe(merchantPhone);
    // the same account always shows the same code
    expect((await sandbox.get(`/providers/WALLET-D/accounts/${merchantPhone}/qris`, sessionToken)).json().payload).toBe(
      payload,
    );
  });

  it('has no QRIS for wallets and banks without it, and needs the session', async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-A', merchantPhone);
    expectStatus(
      await sandbox.get(`/providers/WALLET-A/accounts/${merchantPhone}/qris`, sessionToken),
      404,
      'QRIS_NOT_SUPPORTED',
    );
    expectStatus(await sandbox.get(`/providers/WALLET-D/accounts/${merchantPhone}/qris`), 401, 'SESSION_EXPIRED');
  });

  it('pays a dynamic QRIS into the merchant account, amount from tag 54', async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-C', merchantPhone);
    const before = await sandbox.balanceOf('WALLET-C', merchantPhone, sessionToken);
    const staticQr = (await sandbox.get(`/providers/WALLET-C/accounts/${merchantPhone}/qris`, sessionToken)).json()
      .payload as string;
    const dynamic = dynamicFrom(staticQr, 150_123);
    expect(toDynamicQr(staticQr, 150_123)).toBe(dynamic);

    const paid = await pay({ qris: dynamic });
    expectStatus(paid, 201);
    expect(paid.json()).toEqual({
      transactionId: expect.any(String),
      providerCode: 'WALLET-C',
      accountRef: merchantPhone,
      amount: 150_123,
    });
    expect(await sandbox.balanceOf('WALLET-C', merchantPhone, sessionToken)).toBe(before + 150_123);
    expect(await lastTransaction('WALLET-C', merchantPhone, sessionToken)).toMatchObject({
      id: paid.json().transactionId,
      type: 'CREDIT',
      amount: 150_123,
      senderName: 'SANDBOX CUSTOMER',
      occurredAt: sandbox.clock.now().toISOString(),
    });
  });

  it('refuses a static QRIS without a typed amount, a broken CRC, and a mismatching amount', async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-E', merchantPhone);
    const staticQr = (await sandbox.get(`/providers/WALLET-E/accounts/${merchantPhone}/qris`, sessionToken)).json()
      .payload as string;
    expectStatus(await pay({ qris: staticQr }), 400, 'AMOUNT_REQUIRED');
    expectStatus(await pay({ qris: staticQr, amount: 20_000 }), 201); // the payer typed it
    const dynamic = dynamicFrom(staticQr, 50_000);
    const tampered = dynamic.replace('540550000', '540560000'); // amount changed, CRC kept
    expect(tampered).not.toBe(dynamic);
    expectStatus(await pay({ qris: tampered }), 400, 'INVALID_QRIS');
    expectStatus(await pay({ qris: `${dynamic.slice(0, -4)}0000` }), 400, 'INVALID_QRIS');
    expectStatus(await pay({ qris: dynamic, amount: 49_999 }), 400, 'AMOUNT_MISMATCH');
    // checked as the service checks a QRIS: no currency (53) nor country (58) is no QRIS
    const partial = withCrc(
      buildTlv([
        { tag: '00', value: '01' },
        { tag: '01', value: '12' },
        { tag: '26', value: buildTlv([{ tag: '00', value: 'ID.CO.ELSEWHERE' }]) },
        { tag: '54', value: '1000' },
      ]),
    );
    expectStatus(await pay({ qris: partial }), 400, 'INVALID_QRIS');
    // a valid QRIS of a shop outside the sandbox: there is no account here to credit
    const foreign = withCrc(
      buildTlv([
        { tag: '00', value: '01' },
        { tag: '01', value: '12' },
        { tag: '26', value: buildTlv([{ tag: '00', value: 'ID.CO.ELSEWHERE' }]) },
        { tag: '53', value: '360' },
        { tag: '54', value: '1000' },
        { tag: '58', value: 'ID' },
        { tag: '59', value: 'TOKO LAIN' },
      ]),
    );
    expectStatus(await pay({ qris: foreign }), 404, 'MERCHANT_NOT_FOUND');
  });
});

describe('QRIS by image: the QR a payer scans, uploaded as the body', () => {
  const payImage = (image: Buffer, query = '', contentType = 'image/png') =>
    sandbox.app.inject({
      method: 'POST',
      url: `/sandbox/payments${query}`,
      headers: { 'content-type': contentType },
      payload: image,
    });

  it("pays the QRIS a PNG shows, decoded off the event loop, as the payload itself pays; a static QR's amount typed in ?amount=", async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-D', merchantPhone);
    const before = await sandbox.balanceOf('WALLET-D', merchantPhone, sessionToken);
    const staticQr = (await sandbox.get(`/providers/WALLET-D/accounts/${merchantPhone}/qris`, sessionToken)).json()
      .payload as string;

    const paid = await payImage(await qrPng(toDynamicQr(staticQr, 72_345)));
    expectStatus(paid, 201);
    expect(paid.json()).toEqual({
      transactionId: expect.any(String),
      providerCode: 'WALLET-D',
      accountRef: merchantPhone,
      amount: 72_345,
    });
    expect(await lastTransaction('WALLET-D', merchantPhone, sessionToken)).toMatchObject({
      id: paid.json().transactionId,
      type: 'CREDIT',
      amount: 72_345,
      senderName: 'SANDBOX CUSTOMER',
    });

    const typed = await payImage(await QRCode.toBuffer(staticQr, { type: 'png', width: 256 }), '?amount=5000');
    expectStatus(typed, 201);
    expect(typed.json().amount).toBe(5000);
    expect(await sandbox.balanceOf('WALLET-D', merchantPhone, sessionToken)).toBe(before + 72_345 + 5000);
  });

  it("refuses what is no QRIS image, as the service refuses a transfer's QR image, and moves nothing", async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-D', merchantPhone);
    const before = await sandbox.balanceOf('WALLET-D', merchantPhone, sessionToken);
    expectStatus(await payImage(Buffer.from('not a picture at all')), 400, 'QR_IMAGE_NOT_AN_IMAGE');
    const blank = await QRCode.toBuffer('x', { type: 'png', width: 256 }).then(png => png.subarray(0, 33)); // a header, no pixels
    expectStatus(await payImage(blank), 400);
    expectStatus(
      await payImage(await QRCode.toBuffer('https://example.com/not-a-payment', { type: 'png', width: 256 })),
      400,
      'INVALID_QRIS',
    );
    const staticQr = (await sandbox.get(`/providers/WALLET-D/accounts/${merchantPhone}/qris`, sessionToken)).json()
      .payload as string;
    expectStatus(await payImage(await QRCode.toBuffer(staticQr, { type: 'png', width: 256 })), 400, 'AMOUNT_REQUIRED');
    expectStatus(await payImage(Buffer.from('{}'), '', 'image/gif'), 415);
    expect(await sandbox.balanceOf('WALLET-D', merchantPhone, sessionToken)).toBe(before);
  });
});

describe('virtual accounts', () => {
  it('credits a registered VA number’s account, with the VA number as reference', async () => {
    const { sessionToken } = await sandbox.loginWallet('WALLET-A', merchantPhone);
    const registered = await sandbox.post('/sandbox/virtual-accounts', {
      providerCode: 'WALLET-A',
      accountRef: merchantPhone,
      vaNumber: '8808123456789',
    });
    expectStatus(registered, 201);
    expect(registered.json()).toEqual({
      vaNumber: '8808123456789',
      providerCode: 'WALLET-A',
      accountRef: merchantPhone,
    });
    const paid = await pay({ vaNumber: '8808123456789', amount: 75_000 });
    expectStatus(paid, 201);
    expect(paid.json()).toMatchObject({ providerCode: 'WALLET-A', accountRef: merchantPhone, amount: 75_000 });
    expect(await lastTransaction('WALLET-A', merchantPhone, sessionToken)).toMatchObject({
      type: 'CREDIT',
      amount: 75_000,
      reference: '8808123456789',
      senderName: 'SANDBOX CUSTOMER',
    });
  });

  it('refuses an unknown VA, a VA number taken by another account, and a VA payment without amount', async () => {
    expectStatus(await pay({ vaNumber: '8808000000000', amount: 75_000 }), 404, 'VA_NOT_FOUND');
    await sandbox.post('/sandbox/virtual-accounts', {
      providerCode: 'WALLET-A',
      accountRef: merchantPhone,
      vaNumber: '8808000000001',
    });
    expectStatus(
      await sandbox.post('/sandbox/virtual-accounts', {
        providerCode: 'WALLET-A',
        accountRef: merchantPhone,
        vaNumber: '8808000000001',
      }),
      201,
    );
    expectStatus(
      await sandbox.post('/sandbox/virtual-accounts', {
        providerCode: 'WALLET-A',
        accountRef: '081299999999',
        vaNumber: '8808000000001',
      }),
      409,
      'VA_TAKEN',
    );
    expectStatus(await pay({ vaNumber: '8808000000001' }), 400, 'INVALID_REQUEST');
  });
});

describe('transfers to an account number', () => {
  it('credits the account of that provider, or the one account of that number the sandbox knows', async () => {
    const { sessionToken } = (
      await sandbox.loginBank('BANK-BCA', { username: 'toko', password: 'rahasia', accountNumber: '1200000001' })
    ).json();
    const before = await sandbox.balanceOf('BANK-BCA', '1200000001', sessionToken);
    expectStatus(await pay({ providerCode: 'BANK-BCA', accountNumber: '1200000001', amount: 10_000 }), 201);
    const paid = await pay({ accountNumber: '1200000001', amount: 5_000 });
    expectStatus(paid, 201);
    expect(paid.json()).toMatchObject({ providerCode: 'BANK-BCA', accountRef: '1200000001', amount: 5_000 });
    expect(await sandbox.balanceOf('BANK-BCA', '1200000001', sessionToken)).toBe(before + 15_000);
    expect(await lastTransaction('BANK-BCA', '1200000001', sessionToken)).toMatchObject({
      senderName: 'SANDBOX CUSTOMER',
      amount: 5_000,
    });
  });

  it('asks for a providerCode when the number is unknown or ambiguous, and one way to pay at a time', async () => {
    expectStatus(await pay({ accountNumber: '1200000002', amount: 5_000 }), 404, 'ACCOUNT_NOT_FOUND');
    await pay({ providerCode: 'BANK-BCA', accountNumber: '1200000002', amount: 1 });
    await pay({ providerCode: 'BANK-BRI', accountNumber: '1200000002', amount: 1 });
    expectStatus(await pay({ accountNumber: '1200000002', amount: 5_000 }), 400, 'AMBIGUOUS_ACCOUNT');
    expectStatus(await pay({ accountNumber: '1200000002', vaNumber: '1', amount: 5_000 }), 400, 'INVALID_REQUEST');
    expectStatus(await pay({ amount: 5_000 }), 400, 'INVALID_REQUEST');
    expectStatus(
      await pay({ providerCode: 'BANK-BCA', accountNumber: '1200000002', amount: 0 }),
      400,
      'INVALID_REQUEST',
    );
  });
});
