import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';
import { qrisPayload } from '../qris/build.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
const transfer = (caller: Caller, accountId: string, body: unknown, headers: Record<string, string> = {}) =>
  service.app.inject({
    method: 'POST',
    url: `/api/v1/accounts/${accountId}/transfer`,
    headers: { 'x-api-key': caller.key, ...headers },
    payload: body as never,
  });

/** A multipart form as a phone app sends it. */
function form(fields: Record<string, string>, file?: { name: string; bytes: Buffer; type: string }) {
  const boundary = `----test${nextUuid()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${file.name}"; filename="qr"\r\ncontent-type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
const qrTransfer = (
  caller: Caller,
  accountId: string,
  fields: Record<string, string>,
  file?: { name: string; bytes: Buffer; type: string },
  headers: Record<string, string> = {},
) => {
  const { payload, headers: formHeaders } = form(fields, file);
  return service.app.inject({
    method: 'POST',
    url: `/api/v1/accounts/${accountId}/transfer`,
    headers: { 'x-api-key': caller.key, ...formHeaders, ...headers },
    payload,
  });
};

/** A WALLET-A account with `balance` rupiah in the sandbox, synchronised. */
async function fundedWallet(caller: Caller, balance: number) {
  const wallet = await linkWalletA(service, caller);
  // exactly `balance`: what the sandbox seeded the wallet with is spent first
  const seeded = (await sandbox.account('WALLET-A', wallet.phoneNumber)).balance;
  if (seeded > 0)
    await sandbox.addTransaction({
      providerCode: 'WALLET-A',
      accountRef: wallet.phoneNumber,
      type: 'DEBIT',
      amount: seeded,
      senderName: 'Spent',
      description: 'spent',
    });
  await sandbox.addTransaction({
    providerCode: 'WALLET-A',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: balance,
    senderName: 'Top up',
    description: 'top up',
  });
  const refreshed = await caller.call('GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
  expect(refreshed.statusCode, refreshed.body).toBe(200);
  const seen = new Set<string>();
  for (const type of ['DEBIT', 'CREDIT'] as const)
    for (const m of await mutationsOf(caller, wallet.accountId, type)) seen.add(m.id);
  history.set(wallet.accountId, seen);
  expect(await balanceOf(caller, wallet.accountId)).toBe(balance);
  return { ...wallet, balance };
}
const balanceOf = async (caller: Caller, accountId: string) =>
  (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.balance as number;
/** The sandbox gives a new wallet some history of its own: the mutations each wallet had when it was funded. */
const history = new Map<string, Set<string>>();
const mutationsOf = async (caller: Caller, accountId: string, type: 'DEBIT' | 'CREDIT') =>
  (
    (await caller.call('GET', `/api/v1/mutations?accountId=${accountId}&type=${type}&limit=100`)).json().data as {
      id: string;
      amount: number;
      description: string;
    }[]
  ).filter(m => !history.get(accountId)?.has(m.id));
/** The wallet's DEBIT mutations since it was funded: the transfers'. */
const debits = (caller: Caller, accountId: string) => mutationsOf(caller, accountId, 'DEBIT');
const credits = (caller: Caller, accountId: string) => mutationsOf(caller, accountId, 'CREDIT');

async function bankList(caller: Caller, accountId: string) {
  const listed = await transfer(caller, accountId, { action: 'wallet-a-bank-list' });
  expect(listed.statusCode, listed.body).toBe(200);
  return listed.json().data as {
    instId: string;
    name: string;
    instLocalName: string;
    payMethod: string;
    payOption: string;
  }[];
}

async function bankInit(caller: Caller, accountId: string, amount: number, accountNumber = '1234567890') {
  const bank = (await bankList(caller, accountId))[0]!;
  return transfer(caller, accountId, { action: 'wallet-a-bank-init', accountNumber, amount: String(amount), ...bank });
}

describe('transfer: which account', () => {
  it('answers 404 for an unknown account, another owner account or a malformed id, and 400 for another provider', async () => {
    const owner = await keyHolder(service);
    const other = await keyHolder(service);
    const { accountId } = await linkWalletA(service, owner);
    expect((await transfer(other, accountId, { action: 'wallet-a-bank-list' })).statusCode).toBe(404);
    expect((await transfer(owner, nextUuid(), { action: 'wallet-a-bank-list' })).statusCode).toBe(404);
    expect((await transfer(owner, 'not-a-uuid', { action: 'wallet-a-bank-list' })).statusCode).toBe(404);
    const { accountId: walletD } = await linkServiceWallet(owner);
    const refused = await transfer(owner, walletD, { action: 'wallet-a-bank-list' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'TRANSFER_NOT_SUPPORTED' });
    expect((await qrTransfer(other, accountId, { action: 'wallet-a-qris-create', amount: '1000' })).statusCode).toBe(
      404,
    );
  });

  it('answers 401 without a key and 400 for an unknown action', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await linkWalletA(service, owner);
    expect(
      (
        await service.app.inject({
          method: 'POST',
          url: `/api/v1/accounts/${accountId}/transfer`,
          payload: { action: 'wallet-a-bank-list' },
        })
      ).statusCode,
    ).toBe(401);
    expect((await transfer(owner, accountId, { action: 'wallet-a-teleport' })).statusCode).toBe(400);
    expect((await transfer(owner, accountId, {})).statusCode).toBe(400);
  });
});

describe('bank transfer: list, init, create', () => {
  it('answers 400 when the provider cannot list the banks', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await linkWalletA(service, owner);
    await sandbox.faults({ providerCode: 'WALLET-A', outage: true });
    const response = await transfer(owner, accountId, { action: 'wallet-a-bank-list' });
    await sandbox.clearFaults();
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BANK_LIST_FAILED' });
  });

  it('publishes transfer.completed and transfer.failed webhooks', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 500_000);
    const done = (await bankInit(owner, accountId, 20_000)).json().data.bankAccountIndexNo as string;
    expect(
      (await transfer(owner, accountId, { action: 'wallet-a-bank-create', bankAccountIndexNo: done, amount: '20000' }))
        .statusCode,
    ).toBe(200);
    const refused = (await bankInit(owner, accountId, 30_000)).json().data.bankAccountIndexNo as string;
    await sandbox.faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    expect(
      (
        await transfer(owner, accountId, {
          action: 'wallet-a-bank-create',
          bankAccountIndexNo: refused,
          amount: '30000',
        })
      ).statusCode,
    ).toBe(500);
    await sandbox.clearFaults();
    const published = await eventually(async () => {
      const rows = (
        await query<{ type: string; body: string }>(
          service.pool,
          'TransferWebhooks',
          `select type, body from webhook_events where owner_id = $1 and type like 'transfer.%' order by type`,
          [owner.id],
        )
      ).rows;
      return rows.length === 2 && rows;
    });
    expect(published.map(r => r.type)).toEqual(['transfer.completed', 'transfer.failed']);
    expect(JSON.parse(published[0]!.body).data).toMatchObject({
      id: done,
      accountId,
      kind: 'bank',
      amount: 20_000,
      status: 'COMPLETED',
    });
    expect(JSON.parse(published[1]!.body).data).toMatchObject({
      id: refused,
      status: 'FAILED',
      reason: expect.any(String),
    });
  });

  it('lists banks with the fields bank-init copies', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await linkWalletA(service, owner);
    const banks = await bankList(owner, accountId);
    expect(banks.length).toBeGreaterThan(3);
    for (const bank of banks)
      expect(Object.keys(bank).sort()).toEqual(['instId', 'instLocalName', 'name', 'payMethod', 'payOption']);
  });

  it('validates a destination: the holder name, and a bankAccountIndexNo', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 500_000);
    const init = await bankInit(owner, accountId, 100_000);
    expect(init.statusCode, init.body).toBe(200);
    expect(init.json()).toEqual({
      success: true,
      data: { bankAccountIndexNo: expect.any(String), accountName: expect.any(String) },
    });
    expect((await bankInit(owner, accountId, 100_000)).json().data.accountName).toBe(init.json().data.accountName); // derived from the number
  });

  it.each([
    ['a missing field', { accountNumber: undefined }, 'VALIDATION_ERROR'],
    ['an amount below 10,000', { amount: '9999' }, 'VALIDATION_ERROR'],
    ['an amount that is not a number', { amount: '10.000,50' }, 'VALIDATION_ERROR'],
    ['an invalid account number (999...)', { accountNumber: '9991234567' }, 'BANK_ACCOUNT_VALIDATION_FAILED'],
  ])('bank-init refuses %s (400)', async (_case, overrides, code) => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 500_000);
    const bank = (await bankList(owner, accountId))[0]!;
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-init',
      accountNumber: '1234567890',
      amount: '100000',
      ...bank,
      ...overrides,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code });
  });

  it('bank-init refuses more than the balance (400)', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const response = await bankInit(owner, accountId, balance + 1);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BALANCE_INSUFFICIENT' });
  });

  it('bank-init refuses a bank mismatch (400)', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 500_000);
    const [first, second] = await bankList(owner, accountId);
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-init',
      accountNumber: '1234567890',
      amount: '100000',
      ...first,
      instLocalName: second!.instLocalName,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BANK_ACCOUNT_VALIDATION_FAILED' });
  });

  it('bank-create debits at once with a DEBIT mutation, once; the next sync records the provider copy once', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 120_000)).json().data.bankAccountIndexNo as string;
    const created = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '120000',
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toEqual({ success: true, message: expect.any(String) });
    expect(await balanceOf(owner, accountId)).toBe(balance - 120_000);
    expect((await debits(owner, accountId)).map(d => d.amount)).toEqual([120_000]);

    const again = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '120000',
    });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'BANK_ACCOUNT_INDEX_INVALID' });

    expect((await owner.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);
    expect((await debits(owner, accountId)).map(d => d.amount)).toEqual([120_000]);
    expect(await balanceOf(owner, accountId)).toBe(balance - 120_000);
  });

  it.each([
    ['no bankAccountIndexNo', { bankAccountIndexNo: undefined }, 'VALIDATION_ERROR'],
    ['an unknown bankAccountIndexNo', { bankAccountIndexNo: nextUuid() }, 'BANK_ACCOUNT_INDEX_INVALID'],
    ['another amount than the validated one', { amount: '120001' }, 'TRANSFER_AMOUNT_MISMATCH'],
    ['an amount below 10,000', { amount: '5000' }, 'VALIDATION_ERROR'],
  ])('bank-create refuses %s (400), moving nothing', async (_case, overrides, code) => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 120_000)).json().data.bankAccountIndexNo as string;
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '120000',
      ...overrides,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code });
    expect(await balanceOf(owner, accountId)).toBe(balance);
    expect(await debits(owner, accountId)).toEqual([]);
  });

  it('bank-create refuses an index that expired (15 minutes)', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 120_000)).json().data.bankAccountIndexNo as string;
    service.clock.advance(15 * 60_000);
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '120000',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BANK_ACCOUNT_INDEX_INVALID' });
  });

  it('moves money once when five creates race with one index', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        transfer(owner, accountId, { action: 'wallet-a-bank-create', bankAccountIndexNo: index, amount: '100000' }),
      ),
    );
    expect(answers.map(a => a.statusCode).sort()).toEqual([200, 400, 400, 400, 400]);
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000);
    expect((await debits(owner, accountId)).map(d => d.amount)).toEqual([100_000]);
    await owner.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000); // the provider moved it once too
  });

  it('answers the same Idempotency-Key and body with the same answer, moving money once', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    const body = { action: 'wallet-a-bank-create', bankAccountIndexNo: index, amount: '100000' };
    const first = await transfer(owner, accountId, body, { 'idempotency-key': 'pay-rent-1' });
    const second = await transfer(owner, accountId, body, { 'idempotency-key': 'pay-rent-1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000);
  });

  it('answers twins racing with one Idempotency-Key as the first one is answered, once the provider said it, moving money once', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    const body = { action: 'wallet-a-bank-create', bankAccountIndexNo: index, amount: '100000' };
    await sandbox.faults({ providerCode: 'WALLET-A', latencyMs: 300 }); // the provider is slow: the twins arrive while it works
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => transfer(owner, accountId, body, { 'idempotency-key': 'race-rent-1' })),
      );
      expect(answers.map(a => a.statusCode)).toEqual([200, 200, 200, 200]);
      expect(new Set(answers.map(a => a.body)).size).toBe(1);
      expect(answers[0]!.json()).toMatchObject({ success: true });
    } finally {
      await sandbox.clearFaults();
    }
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000);
    expect((await debits(owner, accountId)).map(d => d.amount)).toEqual([100_000]);
  });

  it('refuses bank-create beyond the balance (400) when another transfer took it', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 150_000);
    const most = balance - 20_000;
    const first = (await bankInit(owner, accountId, most)).json().data.bankAccountIndexNo as string;
    const second = (await bankInit(owner, accountId, 30_000)).json().data.bankAccountIndexNo as string;
    expect(
      (
        await transfer(owner, accountId, {
          action: 'wallet-a-bank-create',
          bankAccountIndexNo: first,
          amount: String(most),
        })
      ).statusCode,
    ).toBe(200);
    const refused = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: second,
      amount: '30000',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'BALANCE_INSUFFICIENT' });
  });
});

describe('provider refusals and unknown outcomes', () => {
  it('answers 500 TRANSFER_FAILED with nothing debited when the provider refuses', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    await sandbox.faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '100000',
    });
    await sandbox.clearFaults();
    expect(response.statusCode, response.body).toBe(500);
    expect(response.json()).toMatchObject({ code: 'TRANSFER_FAILED' });
    expect(await balanceOf(owner, accountId)).toBe(balance);
    expect(await debits(owner, accountId)).toEqual([]);
  });

  it('keeps an unconfirmed transfer debited, then learns it went through', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    await sandbox.faults({ providerCode: 'WALLET-A', transferTimeout: 1 });
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '100000',
    });
    await sandbox.clearFaults();
    expect(response.statusCode, response.body).toBe(500);
    expect(response.json()).toMatchObject({ code: 'TRANSFER_UNCONFIRMED' });
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000);
    await service.transferOutcomes.tick();
    await eventually(
      async () =>
        (await query(service.pool, 'TransferStatus', 'select status from transfers where id = $1', [index])).rows[0]
          ?.status === 'COMPLETED',
    );
    await owner.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect((await debits(owner, accountId)).map(d => d.amount)).toEqual([100_000]);
    expect(await balanceOf(owner, accountId)).toBe(balance - 100_000);
  });

  it('gives an unconfirmed transfer back with a CREDIT when the provider says it failed', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 500_000);
    const index = (await bankInit(owner, accountId, 100_000)).json().data.bankAccountIndexNo as string;
    await sandbox.faults({ providerCode: 'WALLET-A', transferFailAfterAccept: 1 });
    const response = await transfer(owner, accountId, {
      action: 'wallet-a-bank-create',
      bankAccountIndexNo: index,
      amount: '100000',
    });
    await sandbox.clearFaults();
    expect(response.json()).toMatchObject({ code: 'TRANSFER_UNCONFIRMED' });
    await service.transferOutcomes.tick();
    await eventually(
      async () =>
        (await query(service.pool, 'TransferStatus', 'select status from transfers where id = $1', [index])).rows[0]
          ?.status === 'FAILED',
    );
    expect(await balanceOf(owner, accountId)).toBe(balance);
    const before = (await credits(owner, accountId)).length;
    await owner.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(await balanceOf(owner, accountId)).toBe(balance);
    expect((await credits(owner, accountId)).length).toBe(before); // the provider's refund is not recorded a second time
  });
});

describe('QR transfer (wallet-a-qris-create)', () => {
  it("pays another user's QRIS-DYNAMIC payment from a photo of its QR, which then completes", async () => {
    const merchant = await keyHolder(service);
    const { accountId: shop } = await linkServiceWallet(merchant);
    const bill = await createPayment(merchant, paymentBody(shop, { type: 'QRIS-DYNAMIC', amount: 35_000 }));
    const png = (await service.app.inject({ method: 'GET', url: `/pay/${bill.id}/qris.png` })).rawPayload;
    const { Jimp } = await import('jimp');
    const photo = await (
      await Jimp.read(png)
    )
      .resize({ w: 900, h: 900 })
      .rotate(12)
      .getBuffer('image/jpeg', { quality: 70 });

    const payer = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(payer, 100_000);
    const paid = await qrTransfer(
      payer,
      accountId,
      { action: 'wallet-a-qris-create', amount: String(bill.totalAmount) },
      { name: 'qrImage', bytes: Buffer.from(photo), type: 'image/jpeg' },
    );
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toEqual({ success: true, message: expect.any(String) });
    expect(await balanceOf(payer, accountId)).toBe(balance - bill.totalAmount);
    expect((await debits(payer, accountId)).map(d => d.amount)).toEqual([bill.totalAmount]);
    await merchant.call('GET', `/api/v1/accounts/${shop}/refresh`);
    await eventually(async () => (await statusOf(merchant, bill.id)).status === 'COMPLETED');
  });

  it.each([
    ['no qrImage', null, 'QR_IMAGE_MISSING'],
    [
      'a file that is not an image',
      { name: 'qrImage', bytes: Buffer.from('hello, not a picture'), type: 'image/png' },
      'QR_IMAGE_NOT_AN_IMAGE',
    ],
  ])('refuses %s (400)', async (_case, file, code) => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 100_000);
    const response = await qrTransfer(
      owner,
      accountId,
      { action: 'wallet-a-qris-create', amount: '1000' },
      file ?? undefined,
    );
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code });
  });

  it('refuses a QR that is not QRIS, and a QRIS beyond the balance (400)', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 10_000);
    const notQris = await QRCode.toBuffer('https://example.com/not-a-payment', { type: 'png', width: 256 });
    const refused = await qrTransfer(
      owner,
      accountId,
      { action: 'wallet-a-qris-create', amount: '1000' },
      { name: 'qrImage', bytes: notQris, type: 'image/png' },
    );
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'QR_NOT_QRIS' });

    const merchant = await keyHolder(service);
    const { accountId: shop } = await linkServiceWallet(merchant);
    const bill = await createPayment(merchant, paymentBody(shop, { type: 'QRIS-DYNAMIC', amount: balance + 1_000 }));
    const png = (await service.app.inject({ method: 'GET', url: `/pay/${bill.id}/qris.png` })).rawPayload;
    expect((await decodeQrPng(png)).payload).toBeTruthy();
    const tooMuch = await qrTransfer(
      owner,
      accountId,
      { action: 'wallet-a-qris-create', amount: String(bill.totalAmount) },
      { name: 'qrImage', bytes: png, type: 'image/png' },
    );
    expect(tooMuch.statusCode, tooMuch.body).toBe(400);
    expect(tooMuch.json()).toMatchObject({ code: 'BALANCE_INSUFFICIENT' });
    expect(await balanceOf(owner, accountId)).toBe(balance);
  });

  it('refuses an amount below 1 rupiah, a missing amount for a static QRIS, and another amount than a dynamic QRIS fixes (400), moving nothing', async () => {
    const owner = await keyHolder(service);
    const { accountId, balance } = await fundedWallet(owner, 100_000);
    const staticQr = {
      name: 'qrImage',
      bytes: await QRCode.toBuffer(qrisPayload(), { type: 'png', width: 256 }),
      type: 'image/png',
    };
    const zero = await qrTransfer(owner, accountId, { action: 'wallet-a-qris-create', amount: '0' }, staticQr);
    expect(zero.statusCode, zero.body).toBe(400);
    expect(zero.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'body', message: 'at least 1' }] });
    const missing = await qrTransfer(owner, accountId, { action: 'wallet-a-qris-create' }, staticQr);
    expect(missing.statusCode, missing.body).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR' });

    const merchant = await keyHolder(service);
    const { accountId: shop } = await linkServiceWallet(merchant);
    const bill = await createPayment(merchant, paymentBody(shop, { type: 'QRIS-DYNAMIC', amount: 20_000 }));
    const png = (await service.app.inject({ method: 'GET', url: `/pay/${bill.id}/qris.png` })).rawPayload;
    const other = await qrTransfer(
      owner,
      accountId,
      { action: 'wallet-a-qris-create', amount: String(bill.totalAmount + 1) },
      { name: 'qrImage', bytes: png, type: 'image/png' },
    );
    expect(other.statusCode, other.body).toBe(400);
    expect(other.json()).toMatchObject({ code: 'QR_AMOUNT_MISMATCH' });
    expect(await balanceOf(owner, accountId)).toBe(balance);
    expect(await debits(owner, accountId)).toEqual([]);
  });

  it('refuses an image over 5 MB before reading it', async () => {
    const owner = await keyHolder(service);
    const { accountId } = await fundedWallet(owner, 100_000);
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 0);
    big.write('\x89PNG\r\n\x1a\n', 0, 'latin1');
    const response = await qrTransfer(
      owner,
      accountId,
      { action: 'wallet-a-qris-create', amount: '1000' },
      { name: 'qrImage', bytes: big, type: 'image/png' },
    );
    expect(response.statusCode, response.body).toBe(400);
  });
});
