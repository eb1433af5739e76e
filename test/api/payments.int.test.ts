import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTlv, hasValidCrc, parseTlv } from '../../src/emv-qr.ts';
import { unmatchedCredits } from '../../src/projections/reconciliation.ts';
import { account, accountStream } from '../../src/domain/account.ts';
import { handleCommand, load } from '../../src/store/commands/handle.ts';
import { payment, paymentStream } from '../../src/domain/payments.ts';
import { payableClaim, payableClaimStream } from '../../src/domain/payments-payable-claims.ts';
import { receivingStream } from '../../src/domain/payments-receiving.ts';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
  syncUntil,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
const post = (caller: Caller, body: unknown, headers: Record<string, string> = {}) =>
  service.app.inject({
    method: 'POST',
    url: '/api/v1/payments',
    headers: { 'x-api-key': caller.key, ...headers },
    payload: body as never,
  });

describe('POST /api/v1/payments: QRIS-DYNAMIC', () => {
  it('bills amount + a unique code with a dynamic QR whose image decodes to a valid payload of the total', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const created = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 75_000 }));
    expect(created.statusCode, created.body).toBe(200);
    const { status, data } = created.json();
    expect(status).toBe('success');
    expect(data).toMatchObject({ status: 'PENDING', type: 'QRIS-DYNAMIC', amount: 75_000, walletAccountId: accountId });
    expect(data.uniqueCode).toBeGreaterThanOrEqual(1);
    expect(data.uniqueCode).toBeLessThanOrEqual(999);
    expect(data.totalAmount).toBe(75_000 + data.uniqueCode);
    expect(data.paymentUrl).toBe(`${service.config.publicBaseUrl}/pay/${data.id}`);
    expect(Date.parse(data.expiresAt) - service.clock.now().getTime()).toBe(60 * 60_000);

    const image = await service.app.inject({ method: 'GET', url: new URL(data.qrisImage).pathname });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    const decoded = await decodeQrPng(image.rawPayload);
    expect([decoded.width, decoded.height]).toEqual([256, 256]);
    expect(decoded.payload).not.toBeNull();
    expect(hasValidCrc(decoded.payload!)).toBe(true);
    const fields = parseTlv(decoded.payload!);
    expect(findTlv(fields, '01')).toBe('12'); // dynamic: point of initiation 12
    expect(Number(findTlv(fields, '54'))).toBe(data.totalAmount);
  });

  it('completes when the customer pays the QR and the account is synchronised, and links the mutation', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const png = await service.app.inject({ method: 'GET', url: new URL(payment.qrisImage!).pathname });
    const { payload } = await decodeQrPng(png.rawPayload);
    await sandbox.pay({ qris: payload! });
    const completed = await syncUntil(caller, accountId, payment.id, 'COMPLETED');
    expect(completed).toMatchObject({ id: payment.id, status: 'COMPLETED', totalAmount: payment.totalAmount });
    const mutation = await eventually(async () => {
      const list = (await caller.call('GET', `/api/v1/mutations?accountId=${accountId}&type=CREDIT&limit=100`)).json()
        .data as { amount: number; payment?: { id: string } }[];
      return list.find(m => m.payment?.id === payment.id);
    });
    expect(mutation.amount).toBe(payment.totalAmount);
  });

  it('keeps a payment pending when the credit has another amount, and expires it at expiresAt', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    const billedFrom = service.clock.now();
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }));
    expect(Date.parse(payment.expiresAt) - service.clock.now().getTime()).toBe(5 * 60_000);
    await sandbox.addTransaction({
      providerCode: 'WALLET-D',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: payment.totalAmount + 1,
    });
    await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    await service.sagas.waitFor(await service.store.headPosition());
    expect((await statusOf(caller, payment.id)).status).toBe('PENDING');
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'EXPIRED');
    // paid after it expired: the credit is kept, the payment stays expired
    await sandbox.addTransaction({
      providerCode: 'WALLET-D',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: payment.totalAmount,
    });
    await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    await service.sagas.waitFor(await service.store.headPosition());
    expect((await statusOf(caller, payment.id)).status).toBe('EXPIRED');
    const events = await service.store.readStream(paymentStream(payment.id));
    expect(events.map(e => e.type)).toEqual(['PaymentCreated', 'PaymentExpired']);
    // finance sees both credits as unmatched, the late one next to the payment it most likely paid
    await service.projections.waitFor(await service.store.headPosition());
    const unmatched = (
      await unmatchedCredits(service.pool, { from: billedFrom, to: new Date(service.clock.now().getTime() + 1) })
    ).filter(c => c.accountId === accountId);
    expect(unmatched.map(c => [c.amount, c.latePaymentId])).toEqual([
      [payment.totalAmount + 1, null],
      [payment.totalAmount, payment.id],
    ]);
  });
});

describe('legacy static QRIS payments', () => {
  it('stay payable: the payer types the total into the static QR, and the payment completes', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' })); // captures the account's static QRIS
    const linked = (await load(service.deps, accountStream(accountId), account)).state;
    const staticQris = linked.status === 'linked' ? linked.staticQris! : '';
    expect(findTlv(parseTlv(staticQris), '01')).toBe('11');
    // a payment of the old kind, as an import of the previous system would hold it
    const paymentId = nextUuid();
    const now = service.clock.now();
    const expiresAt = new Date(now.getTime() + 3_600_000);
    const context = { actor: 'test:legacy-import', now };
    const reserved = await handleCommand(
      service.deps,
      payableClaimStream(accountId, 42_005),
      payableClaim,
      { type: 'ClaimTotal', accountId, paymentId, amount: 42_000, uniqueCode: 5, expiresAt, now },
      context,
    );
    const payable = reserved.state.holder!;
    await handleCommand(
      service.deps,
      paymentStream(paymentId),
      payment,
      {
        type: 'CreatePayment',
        payment: {
          paymentId,
          ownerId: caller.id,
          orderId: 'LEGACY-1',
          receivingAccountId: accountId,
          providerCode: 'WALLET-D',
          type: 'QRIS',
          methodSelection: 'fixed',
          amount: 42_000,
          uniqueCode: payable.uniqueCode,
          totalAmount: payable.totalAmount,
          accountNumber: null,
          qrisPayload: staticQris,
          redirectUrl: 'https://shop.example',
          expiresAt: expiresAt.toISOString(),
          createdAt: now.toISOString(),
          requestHash: 'legacy',
          gateway: null,
        },
      },
      context,
    );
    await sandbox.pay({ qris: staticQris, amount: payable.totalAmount });
    const completed = await syncUntil(caller, accountId, paymentId, 'COMPLETED');
    expect(completed).toMatchObject({ type: 'QRIS', totalAmount: payable.totalAmount });
  });
});

describe('POST /api/v1/payments: WALLET-A', () => {
  it('gives a virtual account its own number and no unique code, and completes on a credit to that number', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK2', amount: 120_000 }));
    expect(payment).toMatchObject({ type: 'VA-BANK2', uniqueCode: 0, totalAmount: 120_000 });
    expect(payment.accountNumber).toMatch(/^88820[0-9]{11}$/);
    expect(payment.qrisImage).toBeUndefined();
    await sandbox.pay({ vaNumber: payment.accountNumber!, amount: 120_000 });
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
  });

  it('bills DIRECT transfers to the wallet number with a unique code', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'DIRECT', amount: 30_000 }));
    expect(payment.accountNumber).toBe(phoneNumber);
    expect(payment.totalAmount).toBe(30_000 + payment.uniqueCode);
    await sandbox.pay({ accountNumber: phoneNumber, providerCode: 'WALLET-A', amount: payment.totalAmount });
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
  });

  it('lets the payer choose the method when no type is given, then bills it and completes it', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const created = await post(caller, paymentBody(accountId, { amount: 64_000 }));
    expect(created.statusCode, created.body).toBe(200);
    const data = created.json().data;
    expect(data).toMatchObject({ type: null, methodSelection: 'payer', amount: 64_000, status: 'PENDING' });
    for (const absent of ['uniqueCode', 'totalAmount', 'qrisImage', 'accountNumber'])
      expect(data).not.toHaveProperty(absent);

    const page = await service.app.inject({ method: 'GET', url: `/pay/${data.id}` });
    for (const type of ['DIRECT', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3'])
      expect(page.body).toContain(`data-type="${type}"`);

    const choose = (type: unknown, id = data.id) =>
      service.app.inject({ method: 'POST', url: `/pay/${id}/method`, payload: { type } as never });
    expect((await choose('QRIS-DYNAMIC')).statusCode).toBe(400); // not a WALLET-A type
    expect((await choose(undefined)).statusCode).toBe(400);
    expect((await choose('VA-BANK1', nextUuid())).statusCode).toBe(404);
    const chosen = await choose('VA-BANK1');
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.json().data).toMatchObject({
      type: 'VA-BANK1',
      uniqueCode: 0,
      totalAmount: 64_000,
      accountNumber: expect.stringMatching(/^88810[0-9]{11}$/),
    });
    expect((await choose('VA-BANK1')).json().data.accountNumber).toBe(chosen.json().data.accountNumber); // the same choice again
    // the payable and the choice in one append: no crash can leave one without the other
    const reservedAt = (await service.store.readStream(receivingStream(accountId))).find(
      e => (e.data as { paymentId?: string }).paymentId === data.id,
    )!;
    const chosenAt = (await service.store.readStream(paymentStream(data.id))).find(
      e => e.type === 'PaymentMethodChosen',
    )!;
    expect(reservedAt.type).toBe('PayableReserved');
    expect(chosenAt.position.commit).toBe(reservedAt.position.commit);
    const other = await choose('DIRECT');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'PAYMENT_METHOD_CHOSEN' });
    expect(await statusOf(caller, data.id)).toMatchObject({
      type: 'VA-BANK1',
      methodSelection: 'payer',
      totalAmount: 64_000,
    });

    await sandbox.pay({ vaNumber: chosen.json().data.accountNumber, amount: 64_000 });
    await syncUntil(caller, accountId, data.id, 'COMPLETED');
  });

  it('refuses a method choice once the payment expired', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const created = await createPayment(caller, paymentBody(accountId, { expiresInMinutes: 5 }));
    service.clock.advance(5 * 60_000);
    const late = await service.app.inject({
      method: 'POST',
      url: `/pay/${created.id}/method`,
      payload: { type: 'DIRECT' },
    });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'PAYMENT_NOT_PENDING' });
  });
});

describe('POST /api/v1/payments: rules and errors', () => {
  it.each([
    ['DIRECT on a QRIS wallet', 'WALLET-D', 'DIRECT'],
    ['a virtual account on a QRIS wallet', 'WALLET-E', 'VA-BANK1'],
    ['static QRIS', 'WALLET-D', 'QRIS'],
    ['an unknown type', 'WALLET-D', 'CASH'],
  ])('answers 400 for %s', async (_case, providerCode, type) => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, providerCode);
    const response = await post(caller, paymentBody(accountId, { type }));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'PAYMENT_TYPE_NOT_SUPPORTED' });
  });

  it('answers 400 for a bank account, 404 for an unknown or foreign account, 403 for GATEWAY', async () => {
    const caller = await keyHolder(service);
    const stranger = await keyHolder(service);
    const bank = await caller.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-BRI',
      accountName: 'B',
      intervalMinutes: 60,
      accountNumber: String(Date.now()).slice(-10),
      username: 'u',
      password: 'p',
    });
    expect((await post(caller, paymentBody(bank.json().accountId))).statusCode).toBe(400);
    expect((await post(caller, paymentBody(nextUuid()))).statusCode).toBe(404);
    const { accountId } = await linkServiceWallet(caller);
    const foreign = await post(stranger, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    expect((await post(caller, paymentBody('GATEWAY'))).statusCode).toBe(403);
  });

  it.each([
    ['no amount', { amount: undefined }],
    ['amount 0', { amount: 0 }],
    ['a fractional amount', { amount: 10.5 }],
    ['amount as text', { amount: '10000' }],
    ['no walletAccountId', { walletAccountId: undefined }],
    ['a walletAccountId that is no UUID', { walletAccountId: 'abc' }],
    ['no redirectUrl', { redirectUrl: undefined }],
    ['a javascript: redirectUrl', { redirectUrl: 'javascript:alert(1)' }],
    ['no orderId', { orderId: undefined }],
    ['a blank orderId', { orderId: '  ' }],
    ['expiresInMinutes below 5', { expiresInMinutes: 4 }],
    ['expiresInMinutes above a week', { expiresInMinutes: 10_081 }],
  ])('answers 400 for %s, and creates nothing', async (_case, overrides) => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const before = await service.store.headPosition();
    const response = await post(caller, paymentBody(accountId, overrides));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    expect(await service.store.headPosition()).toEqual(before);
  });

  it('says the limit for a redirectUrl over 2000 characters, not that it is no URL', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const long = `https://shop.example/${'a'.repeat(2000)}`;
    const response = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', redirectUrl: long }));
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ path: 'body.redirectUrl', message: 'at most 2000 characters' }]);
  });

  it('answers 409 for a second payment of an order that is still pending, and bills it again once that expired', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const first = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-1', expiresInMinutes: 5 }),
    );
    const second = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-1' }));
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'ORDER_PENDING' });
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    const again = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-1' }));
    expect(again.id).not.toBe(first.id);
  });

  it('answers 409 ORDER_ALREADY_PAID for a new payment of an order that was paid: a retrying shop cannot bill twice', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const paid = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-PAID' }));
    const png = await service.app.inject({ method: 'GET', url: new URL(paid.qrisImage!).pathname });
    await sandbox.pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    await syncUntil(caller, accountId, paid.id, 'COMPLETED');
    const again = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-PAID' }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 'ORDER_ALREADY_PAID' });
    service.clock.advance(24 * 60 * 60_000); // however long after
    expect(
      (await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-PAID' }))).json(),
    ).toMatchObject({
      code: 'ORDER_ALREADY_PAID',
    });
  });

  it('answers the same payment for the same Idempotency-Key and body, 422 for another body', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const body = paymentBody(accountId, { type: 'QRIS-DYNAMIC' });
    const key = { 'idempotency-key': `k-${nextUuid()}` };
    const [a, b] = await Promise.all([post(caller, body, key), post(caller, body, key)]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    expect(b.json().data.id).toBe(a.json().data.id);
    const c = await post(caller, body, key);
    expect(c.json().data).toEqual(a.json().data);
    const other = await post(caller, { ...body, amount: body.amount + 1 }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('never gives two pending payments of one account the same total, however many are created at once', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const created = await Promise.all(
      Array.from({ length: 25 }, () =>
        createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 10_000 })),
      ),
    );
    expect(new Set(created.map(p => p.totalAmount)).size).toBe(25);
  });

  it('answers 400 when the receiving account is inactive', async () => {
    const caller = await keyHolder(service);
    const created = await caller.call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-A',
      accountName: 'A',
      intervalMinutes: 60,
      phoneNumber: '081577700001',
      pin: '123456',
    });
    const response = await post(caller, paymentBody(created.json().accountId, { type: 'DIRECT' }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'ACCOUNT_INACTIVE' });
  });
});

describe('GET /api/v1/payments/status/:paymentId', () => {
  it('answers the payment to its owner, 404 to anyone else or for an unknown id, 400 for a malformed one, 401 without a key', async () => {
    const caller = await keyHolder(service);
    const stranger = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const mine = await caller.call('GET', `/api/v1/payments/status/${payment.id}`);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({ status: 'success', data: { id: payment.id, status: 'PENDING' } });
    expect((await stranger.call('GET', `/api/v1/payments/status/${payment.id}`)).statusCode).toBe(404);
    expect((await caller.call('GET', `/api/v1/payments/status/${nextUuid()}`)).json()).toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
    });
    expect((await caller.call('GET', '/api/v1/payments/status/nope')).statusCode).toBe(400);
    expect((await service.app.inject({ method: 'GET', url: `/api/v1/payments/status/${payment.id}` })).statusCode).toBe(
      401,
    );
  });
});

describe('POST /api/v1/payments: the receiving account changing meanwhile', () => {
  // another process's writes: through the store, past this process's state cache
  const elsewhere = () => ({ store: service.deps.store });

  it('takes a payment into an account another process wrote since this one cached it', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' })); // the account is in this process's cache now
    await handleCommand(
      elsewhere(),
      accountStream(accountId),
      account,
      { type: 'ChangeAccountSettings', ownerId: caller.id, accountName: 'Renamed', now: service.clock.now() },
      { actor: 'test', now: service.clock.now() },
    );
    const second = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect(second.statusCode, second.body).toBe(200);
  });

  it('refuses a payment into an account another process deactivated, and writes none of it', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    await handleCommand(
      elsewhere(),
      accountStream(accountId),
      account,
      { type: 'ExpireProviderSession', now: service.clock.now() },
      { actor: 'test', now: service.clock.now() },
    );
    const body = paymentBody(accountId, { type: 'QRIS-DYNAMIC' });
    const refused = await post(caller, body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'ACCOUNT_INACTIVE' });
    // nothing of it was written: the order is free for a payment into another account
    const other = await linkServiceWallet(caller, 'WALLET-E');
    expect((await post(caller, { ...body, walletAccountId: other.accountId })).statusCode).toBe(200);
  });

  it('answers 404 for an account deleted after it took a payment', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect((await caller.call('DELETE', `/api/v1/accounts/${accountId}`)).statusCode).toBe(200);
    const refused = await post(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect(refused.statusCode).toBe(404);
  });
});

describe('one user, many accounts', () => {
  it('refreshes ten accounts of one user at once, each synchronised and charged (the user stream is busy, not refused)', async () => {
    const caller = await keyHolder(service);
    const accounts = await Promise.all(Array.from({ length: 10 }, () => linkServiceWallet(caller)));
    const refreshed = await Promise.all(
      accounts.map(a => caller.call('GET', `/api/v1/accounts/${a.accountId}/refresh`)),
    );
    expect(refreshed.map(r => r.statusCode)).toEqual(accounts.map(() => 200));
    const debits = (await service.deps.store.readStream(`user-${caller.id}`)).filter(
      e => e.type === 'PointsDebited' && e.data.reason === 'account-sync',
    );
    expect(new Set(debits.map(e => e.data.accountId))).toEqual(new Set(accounts.map(a => a.accountId)));
  });
});
