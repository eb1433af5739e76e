import fc from 'fast-check';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { linkWalletA } from '../support/payments.ts';
import { merchantPayment, merchantQris } from '../support/qris-merchants.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A WALLET-A account pays the QR of any shop through POST /api/v1/accounts/:id/transfer (wallet-a-qris-create), as a
 * real wallet would: a photographed QRIS of a merchant outside the sandbox, static or dynamic, with or without a tip.
 */
let service: TestService;
beforeAll(async () => {
  // a property pays many QRs with one key: the upload limits are another test's subject (qr-uploads)
  service = await startTestService({ QR_UPLOAD_LIMIT_PER_KEY: '1000', QR_UPLOAD_LIMIT_PER_USER: '1000' });
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Mutation = { id: string; type: string; amount: number; description: string; senderName: string };
type SandboxTransaction = { id: string; type: string; amount: number; senderName: string };

/** The QR transfer's multipart form, as a phone app sends it: the fields, then the image. */
function qrForm(fields: Record<string, string>, png: Buffer) {
  const boundary = `----qris${nextUuid()}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  parts.push(
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="qrImage"; filename="qr.png"\r\ncontent-type: image/png\r\n\r\n`,
    ),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const payByQr = async (caller: Caller, accountId: string, payload: string, typedAmount: number | null) => {
  const png = await QRCode.toBuffer(payload, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 480 });
  const fields: Record<string, string> = {
    action: 'wallet-a-qris-create',
    ...(typedAmount === null ? {} : { amount: String(typedAmount) }),
  };
  const form = qrForm(fields, png);
  return service.app.inject({
    method: 'POST',
    url: `/api/v1/accounts/${accountId}/transfer`,
    headers: { 'x-api-key': caller.key, ...form.headers },
    payload: form.payload,
  });
};

const balanceOf = async (caller: Caller, accountId: string) =>
  (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.balance as number;
const debitsOf = async (caller: Caller, accountId: string) =>
  (await caller.call('GET', `/api/v1/mutations?accountId=${accountId}&type=DEBIT&limit=100`)).json().data as Mutation[];
const sandboxTransactions = async (phone: string) => {
  const response = await fetch(`${service.sandboxUrl}/sandbox/accounts/WALLET-A/${phone}`);
  return ((await response.json()) as { transactions: SandboxTransaction[] }).transactions;
};
/** What appeared in `after` that `before` did not hold. */
const added = <T extends { id: string }>(before: T[], after: T[]) =>
  after.filter(t => !before.some(b => b.id === t.id));

/** A linked WALLET-A account with room for every generated payment (each below 10,000,000), synchronised. */
async function richWallet(caller: Caller) {
  const wallet = await linkWalletA(service, caller);
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-A',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: 1_000_000_000,
    senderName: 'Top up',
  });
  const refreshed = await caller.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
  expect(refreshed.statusCode, refreshed.body).toBe(200);
  return wallet;
}

describe('QR transfer to a merchant outside the sandbox', () => {
  it('pays any valid QRIS: 200, the balance down by the amount with its tip, a DEBIT naming the merchant of tag 59 in the service and at the provider', async () => {
    const owner = await keyHolder(service);
    const { accountId, phoneNumber } = await richWallet(owner);
    await fc.assert(
      fc.asyncProperty(merchantPayment, async ({ qris, typed, total }) => {
        const [balanceBefore, debitsBefore, providerBefore] = await Promise.all([
          balanceOf(owner, accountId),
          debitsOf(owner, accountId),
          sandboxTransactions(phoneNumber),
        ]);

        const paid = await payByQr(owner, accountId, qris.payload, typed);
        expect(paid.statusCode, paid.body).toBe(200);
        expect(paid.json()).toEqual({ success: true, message: expect.stringContaining(qris.merchantName) });

        // both at once: the service's balance and DEBIT mutation, and the provider's own DEBIT
        expect(await balanceOf(owner, accountId)).toBe(balanceBefore - total);
        expect(added(debitsBefore, await debitsOf(owner, accountId))).toEqual([
          expect.objectContaining({
            type: 'DEBIT',
            amount: total,
            senderName: qris.merchantName,
            description: `Pembayaran QRIS ke ${qris.merchantName}`,
          }),
        ]);
        expect(added(providerBefore, await sandboxTransactions(phoneNumber))).toEqual([
          expect.objectContaining({ type: 'DEBIT', amount: total, senderName: qris.merchantName }),
        ]);
      }),
      { numRuns: 25 },
    );
    // the next sync finds the provider's copies of those debits and records none twice
    const debitsBefore = await debitsOf(owner, accountId);
    const balance = await balanceOf(owner, accountId);
    expect((await owner.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);
    expect(await debitsOf(owner, accountId)).toHaveLength(debitsBefore.length);
    expect(await balanceOf(owner, accountId)).toBe(balance);
  }, 120_000);

  it('still refuses a QR whose payload is not a valid QRIS, moving nothing', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await richWallet(owner);
    const { payload } = fc.sample(merchantQris, { numRuns: 1, seed: 5 })[0]!;
    const before = await balanceOf(owner, accountId);
    const brokenCrc = `${payload.slice(0, -4)}${payload.endsWith('0000') ? '1111' : '0000'}`;
    const refused = await payByQr(owner, accountId, brokenCrc, 10_000);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'QR_NOT_QRIS' });
    expect(await balanceOf(owner, accountId)).toBe(before);
  });
});
