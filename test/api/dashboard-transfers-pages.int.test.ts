import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { keyCallerOf, signedInBrowser, textOf } from '../support/pages.ts';
import { createPayment, linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** A signed-in browser whose WALLET-A account holds exactly `balance` in the sandbox, synchronised. */
async function fundedWallet(balance: number) {
  const { browser } = await signedInBrowser(service);
  const caller = await keyCallerOf(service, browser);
  const wallet = await linkWalletA(service, caller);
  const sandbox = sandboxOf(service);
  const seeded = (await sandbox.account('WALLET-A', wallet.phoneNumber)).balance;
  if (seeded > 0)
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: wallet.phoneNumber,
      type: 'DEBIT',
      amount: seeded,
      senderName: 'Spent',
    });
  await sandbox.addTransaction({
    providerCode: 'WALLET-A',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: balance,
    senderName: 'Top up',
  });
  expect((await caller.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`)).statusCode).toBe(200);
  const balanceNow = async () =>
    (await caller.call('GET', `/api/v1/accounts/${wallet.accountId}`)).json().data.balance as number;
  expect(await balanceNow()).toBe(balance);
  return { browser, caller, ...wallet, balanceNow };
}

describe('the transfer pages of a WALLET-A account', () => {
  it('send a bank transfer once the holder name was shown, once however often the button is pressed', async () => {
    const { browser, accountId, phoneNumber, balanceNow } = await fundedWallet(500_000);
    const page = await browser.get(`/dashboard/accounts/${accountId}/transfer`);
    expect(page.statusCode).toBe(200);
    const instId = /<option value="([^"]+)"/.exec(page.body)![1]!;
    expect((await browser.get(`/dashboard/accounts/${accountId}`)).body).toContain(
      `href="/dashboard/accounts/${accountId}/transfer"`,
    );

    const tooSmall = await browser.post(`/dashboard/accounts/${accountId}/transfer/bank`, {
      instId,
      accountNumber: '1234567890',
      amount: '9999',
    });
    expect(tooSmall.statusCode).toBe(400);
    expect(textOf(tooSmall.body, 'notice')).toContain('at least 10000');
    expect(tooSmall.body).toContain('value="1234567890"');
    const unknown = await browser.post(`/dashboard/accounts/${accountId}/transfer/bank`, {
      instId,
      accountNumber: '9991234567',
      amount: '150000',
    });
    expect(unknown.statusCode).toBe(400);

    const checked = await browser.post(`/dashboard/accounts/${accountId}/transfer/bank`, {
      instId,
      accountNumber: '1234567890',
      amount: '150000',
    });
    expect(checked.statusCode, checked.body).toBe(200);
    expect(textOf(checked.body, 'holder-name')).toMatch(/\S/);
    expect(textOf(checked.body, 'transfer-total')).toBe('Rp 150.000');
    expect(await balanceNow()).toBe(500_000); // nothing moves before the second step
    const send = {
      bankAccountIndexNo: hidden(checked.body, 'bankAccountIndexNo')!,
      amount: hidden(checked.body, 'amount')!,
      idempotencyKey: hidden(checked.body, 'idempotencyKey')!,
    };
    const sent = await browser.post(`/dashboard/accounts/${accountId}/transfer/bank/send`, send);
    expect(sent.headers.location).toBe(`/dashboard/accounts/${accountId}?done=transferred`);
    const again = await browser.post(`/dashboard/accounts/${accountId}/transfer/bank/send`, send); // a second click
    expect(again.headers.location).toBe(`/dashboard/accounts/${accountId}?done=transferred`);
    expect(await balanceNow()).toBe(350_000);
    expect((await sandboxOf(service).account('WALLET-A', phoneNumber)).balance).toBe(350_000);
  });

  it("pay another user's QRIS payment from its QR image, and refuse a file that is not an image", async () => {
    const { browser, accountId, balanceNow } = await fundedWallet(200_000);
    const merchant = await keyHolder(service);
    const { accountId: shopAccount } = await linkServiceWallet(merchant);
    const bill = await createPayment(merchant, paymentBody(shopAccount, { type: 'QRIS-DYNAMIC', amount: 45_000 }));
    const png = (await service.app.inject({ method: 'GET', url: `/pay/${bill.id}/qris.png` })).rawPayload;

    await browser.get(`/dashboard/accounts/${accountId}/transfer`);
    const notImage = await browser.postMultipart(
      `/dashboard/accounts/${accountId}/transfer/qris`,
      {},
      { name: 'qrImage', bytes: Buffer.from('bukan gambar'), type: 'image/png' },
    );
    expect(notImage.statusCode).toBe(400);
    expect(textOf(notImage.body, 'notice')).toMatch(/^Berkas bukan gambar PNG atau JPEG/);
    const bare = await browser.postMultipart(
      `/dashboard/accounts/${accountId}/transfer/qris`,
      { _csrf: '' },
      { name: 'qrImage', bytes: png, type: 'image/png' },
    );
    expect(bare.statusCode).toBe(403);
    expect(await balanceNow()).toBe(200_000);

    const paid = await browser.postMultipart(
      `/dashboard/accounts/${accountId}/transfer/qris`,
      {},
      { name: 'qrImage', bytes: png, type: 'image/png' },
    );
    expect(paid.statusCode, paid.body).toBe(303);
    expect(paid.headers.location).toBe(`/dashboard/accounts/${accountId}?done=paid`);
    expect(await balanceNow()).toBe(200_000 - bill.totalAmount);
  });

  it("answer 400 for an account of another provider and 404 for another user's WALLET-A account", async () => {
    const { browser } = await signedInBrowser(service);
    const caller = await keyCallerOf(service, browser);
    const { accountId: walletD } = await linkServiceWallet(caller);
    expect((await browser.get(`/dashboard/accounts/${walletD}/transfer`)).statusCode).toBe(400);
    const other = await fundedWallet(100_000);
    expect((await browser.get(`/dashboard/accounts/${other.accountId}/transfer`)).statusCode).toBe(404);
    await browser.get('/dashboard');
    expect(
      (
        await browser.post(`/dashboard/accounts/${other.accountId}/transfer/bank`, {
          instId: 'x',
          accountNumber: '1234567890',
          amount: '50000',
        })
      ).statusCode,
    ).toBe(404);
    expect(await other.balanceNow()).toBe(100_000);
  });
});
