import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmvQr, parseTlv } from '../../src/emv-qr.ts';
import { merchantPayment, merchantQris } from '../support/qris-merchants.ts';
import { expectStatus, sandboxHarness, type SandboxHarness } from './sandbox-harness.ts';

/**
 * WALLET-A pays any valid QRIS, as a real wallet does: the QR of a shop outside the sandbox is debited from the wallet
 * with the merchant of tag 59 named, a sandbox merchant's QR still credits its account, and an invalid one moves nothing.
 */
let sandbox: SandboxHarness;
let token: string;
const payer = '081266660001';
beforeAll(async () => {
  sandbox = await sandboxHarness();
  token = (await sandbox.loginWallet('WALLET-A', payer)).sessionToken;
  // room for every generated payment: each is below 10,000,000
  expectStatus(
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: payer,
      type: 'CREDIT',
      amount: 5_000_000_000,
    }),
    201,
  );
});
afterAll(async () => sandbox?.close());

let referenceSeed = 0;
const nextReference = () => `ref-qr-${++referenceSeed}`;
const payQris = (body: { reference: string; qris: string; amount: number }) =>
  sandbox.app.inject({
    method: 'POST',
    url: `/providers/WALLET-A/accounts/${payer}/qris-payments`,
    headers: { authorization: `Bearer ${token}` },
    payload: body,
  });
const balance = () => sandbox.balanceOf('WALLET-A', payer, token);
const transactions = async () =>
  (await sandbox.get(`/sandbox/accounts/WALLET-A/${payer}`)).json<{
    transactions: {
      id: string;
      type: string;
      amount: number;
      description: string;
      senderName: string;
      reference: string | null;
    }[];
  }>().transactions;

describe('a QRIS of a merchant outside the sandbox', () => {
  it('is paid: the wallet debited by the amount with its tip, a DEBIT naming the merchant of tag 59', async () => {
    await fc.assert(
      fc.asyncProperty(merchantPayment, async ({ qris, total }) => {
        const before = await balance();
        const reference = nextReference();
        const paid = await payQris({ reference, qris: qris.payload, amount: total });
        expectStatus(paid, 200);
        expect(await balance()).toBe(before - total);
        const mine = (await transactions()).filter(t => t.reference === reference);
        expect(mine).toEqual([
          expect.objectContaining({
            id: paid.json().transactionId,
            type: 'DEBIT',
            amount: total,
            senderName: qris.merchantName,
            description: `Pembayaran QRIS ke ${qris.merchantName}`,
          }),
        ]);
        const status = await sandbox.get(`/providers/WALLET-A/accounts/${payer}/transfers/${reference}`, token);
        expect(status.json()).toEqual({ status: 'SUCCESS', transactionId: paid.json().transactionId });
      }),
      { numRuns: 60 },
    );
  });

  it("takes a dynamic QR's amount with the tip its tags fix, and refuses another before anything moves", async () => {
    const qr = (tipFields: { tag: string; value: string }[]) =>
      buildEmvQr([
        { tag: '00', value: '01' },
        { tag: '01', value: '12' },
        { tag: '26', value: '0014ID.CO.QRIS.WWW0118936000140000012345' },
        { tag: '52', value: '5812' },
        { tag: '53', value: '360' },
        { tag: '54', value: '20000' },
        ...tipFields,
        { tag: '58', value: 'ID' },
        { tag: '59', value: 'WARUNG BU SRI' },
        { tag: '60', value: 'SOLO' },
      ]);
    const fixed = qr([
      { tag: '55', value: '02' },
      { tag: '56', value: '1500' },
    ]);
    const percent = qr([
      { tag: '55', value: '03' },
      { tag: '57', value: '2.5' },
    ]);
    const prompt = qr([{ tag: '55', value: '01' }]);
    const before = await balance();
    expectStatus(await payQris({ reference: nextReference(), qris: fixed, amount: 20_000 }), 400, 'AMOUNT_MISMATCH');
    expectStatus(await payQris({ reference: nextReference(), qris: percent, amount: 20_499 }), 400, 'AMOUNT_MISMATCH');
    expectStatus(await payQris({ reference: nextReference(), qris: prompt, amount: 19_999 }), 400, 'AMOUNT_MISMATCH');
    expect(await balance()).toBe(before);

    expectStatus(await payQris({ reference: nextReference(), qris: fixed, amount: 21_500 }), 200);
    expectStatus(await payQris({ reference: nextReference(), qris: percent, amount: 20_500 }), 200);
    expectStatus(await payQris({ reference: nextReference(), qris: prompt, amount: 23_000 }), 200); // the payer's own tip
    expect(await balance()).toBe(before - 21_500 - 20_500 - 23_000);
  });

  it('is refused when the QR is not a valid QRIS, moving nothing', async () => {
    const sample = fc.sample(merchantQris, { numRuns: 1, seed: 7 })[0]!;
    const fields = parseTlv(sample.payload).filter(f => f.tag !== '63');
    const without = (tag: string) => buildEmvQr(fields.filter(f => f.tag !== tag));
    const replaced = (tag: string, value: string) => buildEmvQr(fields.map(f => (f.tag === tag ? { tag, value } : f)));
    const changed = `${sample.payload.slice(0, 30)}${sample.payload[30] === 'X' ? 'Y' : 'X'}${sample.payload.slice(31)}`;
    const invalid = [
      changed, // the CRC no longer matches
      `${sample.payload.slice(0, -4)}0000`,
      replaced('53', '840'),
      replaced('58', 'SG'),
      replaced('01', '13'),
      buildEmvQr(fields.filter(f => Number(f.tag) < 26 || Number(f.tag) > 51)), // no merchant account
      buildEmvQr([...fields.filter(f => f.tag !== '01' && f.tag !== '54'), { tag: '01', value: '12' }]), // dynamic without tag 54
      buildEmvQr([...fields.filter(f => f.tag !== '54'), { tag: '54', value: '1500.50' }]),
      without('00'),
    ];
    const before = await balance();
    for (const qris of invalid) {
      const reference = nextReference();
      expectStatus(await payQris({ reference, qris, amount: 10_000 }), 400, 'INVALID_QRIS');
      expect((await sandbox.get(`/providers/WALLET-A/accounts/${payer}/transfers/${reference}`, token)).json()).toEqual(
        { status: 'NOT_FOUND' },
      );
    }
    expect(await balance()).toBe(before);
  });

  it('is refused above the QRIS cap of 10,000,000', async () => {
    const qris = fc.sample(
      merchantQris.filter(q => q.amount === null && q.tip === null),
      { numRuns: 1, seed: 3 },
    )[0]!;
    const before = await balance();
    expectStatus(
      await payQris({ reference: nextReference(), qris: qris.payload, amount: 10_000_001 }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    expectStatus(await payQris({ reference: nextReference(), qris: qris.payload, amount: 10_000_000 }), 200);
    expect(await balance()).toBe(before - 10_000_000);
  });

  it('cannot be paid into the sandbox by POST /sandbox/payments: no account of its merchant is there to credit', async () => {
    const { qris, total } = fc.sample(merchantPayment, { numRuns: 1, seed: 11 })[0]!;
    expectStatus(
      await sandbox.post('/sandbox/payments', { qris: qris.payload, amount: total }),
      404,
      'MERCHANT_NOT_FOUND',
    );
  });
});

describe("a sandbox merchant's QRIS", () => {
  it('still credits the merchant account, the DEBIT naming the merchant of tag 59', async () => {
    const merchant = await sandbox.loginWallet('WALLET-D', '081266660002');
    const staticQr = (await sandbox.get('/providers/WALLET-D/accounts/081266660002/qris', merchant.sessionToken)).json<{
      payload: string;
    }>().payload;
    const merchantBefore = await sandbox.balanceOf('WALLET-D', '081266660002', merchant.sessionToken);
    const reference = nextReference();
    expectStatus(await payQris({ reference, qris: staticQr, amount: 12_345 }), 200);
    expect(await sandbox.balanceOf('WALLET-D', '081266660002', merchant.sessionToken)).toBe(merchantBefore + 12_345);
    expect((await transactions()).filter(t => t.reference === reference)).toEqual([
      expect.objectContaining({ type: 'DEBIT', amount: 12_345, senderName: merchant.account.holderName.slice(0, 25) }),
    ]);
  });
});
