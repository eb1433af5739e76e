import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { qrisMerchantPan } from '../../src/qris-payload.ts';
import {
  approvedMerchant,
  businessData,
  holdingAccount,
  signedInAdmin,
  withSession,
  type Admin,
} from '../support/gateway.ts';
import { keyHolder, registerUser } from '../support/http.ts';
import { decodeQrPng, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
let admin: Admin;
beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
const gatewayOf = async (caller: Caller) => {
  const response = await caller.call('GET', '/api/v1/gateway');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};
/** Events of the streams a payment or an access request writes (sessions and syncs append beside them meanwhile). */
const countEvents = async () =>
  Number(
    (
      await query(
        service.pool,
        'CountGatewayEvents',
        `select count(*) as n from es_events where stream_id like 'payment-%' or stream_id like 'order-%'
    or stream_id like 'receiving-%' or stream_id like 'payable-%' or (stream_id like 'user-%' and type like 'Gateway%')`,
      )
    ).rows[0]!.n,
  );

describe('GET /api/v1/gateway', () => {
  it('shows a new merchant NONE, no methods, zero balances and the numbers of the Limits table', async () => {
    const caller = await keyHolder(service);
    expect(await gatewayOf(caller)).toEqual({
      // no request yet: the interface names no time, the document says null
      access: {
        status: 'NONE',
        note: null,
        createdAt: null,
        requestedAt: null,
        processedAt: null,
        feeToCustomer: false,
      },
      walletAccountId: 'GATEWAY',
      methods: [],
      balance: { settled: 0, pending: 0, onHold: 0, available: 0 },
      fee: 3000,
      qrisFee: { rate: 0.007, flat: 200 },
      minWithdrawal: 50_000,
    });
  });

  it('answers 401 without a key', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/api/v1/gateway' });
    expect(response.statusCode).toBe(401);
  });
});

describe('gateway access: request in the dashboard, review by an admin', () => {
  it('goes NONE -> PENDING -> APPROVED, shown in /api/v1/gateway and the dashboard', async () => {
    const merchant = await keyHolder(service);
    const session = withSession(service, merchant.cookie);
    const requested = await session('POST', '/api/dashboard/gateway/access-request', {
      ...businessData,
      website: 'https://toko.example',
    });
    expect(requested.statusCode, requested.body).toBe(201);
    expect(requested.json().data).toMatchObject({
      status: 'PENDING',
      note: null,
      createdAt: service.clock.now().toISOString(),
      requestedAt: service.clock.now().toISOString(),
      processedAt: null,
    });

    const again = await session('POST', '/api/dashboard/gateway/access-request', businessData);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 'GATEWAY_ACCESS_CONFLICT' });

    const dashboard = (await session('GET', '/api/dashboard/gateway')).json().data;
    expect(dashboard.access.status).toBe('PENDING');
    expect(dashboard.request).toMatchObject({ ...businessData, website: 'https://toko.example', description: null });

    const pending = (await admin.session('GET', '/api/admin/gateway/access-requests?status=PENDING')).json().data;
    expect(pending).toContainEqual(
      expect.objectContaining({
        userId: merchant.id,
        email: merchant.email,
        status: 'PENDING',
        business: expect.objectContaining(businessData),
      }),
    );

    service.clock.advance(60_000);
    const approved = await admin.session('POST', `/api/admin/gateway/access-requests/${merchant.id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().data).toMatchObject({ status: 'APPROVED', processedAt: service.clock.now().toISOString() });
    expect((await gatewayOf(merchant)).access).toMatchObject({
      status: 'APPROVED',
      note: null,
      processedAt: service.clock.now().toISOString(),
    });

    const twice = await admin.session('POST', `/api/admin/gateway/access-requests/${merchant.id}/approve`);
    expect(twice.statusCode).toBe(409);
  });

  it('rejects with a note, and a rejected merchant may ask again: the access keeps its createdAt, requestedAt moves', async () => {
    const merchant = await keyHolder(service);
    const session = withSession(service, merchant.cookie);
    const firstAsked = service.clock.now().toISOString();
    await session('POST', '/api/dashboard/gateway/access-request', businessData);
    const noNote = await admin.session('POST', `/api/admin/gateway/access-requests/${merchant.id}/reject`, {});
    expect(noNote.statusCode).toBe(400);
    const rejected = await admin.session('POST', `/api/admin/gateway/access-requests/${merchant.id}/reject`, {
      note: 'Alamat tidak lengkap',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect((await gatewayOf(merchant)).access).toMatchObject({ status: 'REJECTED', note: 'Alamat tidak lengkap' });
    service.clock.advance(3_600_000);
    const again = await session('POST', '/api/dashboard/gateway/access-request', businessData);
    expect(again.statusCode).toBe(201);
    const askedAgain = service.clock.now().toISOString();
    expect((await gatewayOf(merchant)).access).toMatchObject({
      status: 'PENDING',
      note: null,
      createdAt: firstAsked,
      requestedAt: askedAgain,
      processedAt: null,
    });
    const queue = (await admin.session('GET', '/api/admin/gateway/access-requests?status=PENDING')).json().data;
    expect(queue).toContainEqual(
      expect.objectContaining({ userId: merchant.id, createdAt: firstAsked, requestedAt: askedAgain }),
    );
  });

  it('deactivates an approved merchant (-> REJECTED with the note), and only an approved one', async () => {
    const merchant = await approvedMerchant(service, admin);
    const deactivated = await admin.session('POST', `/api/admin/gateway/merchants/${merchant.id}/deactivate`, {
      note: 'Penipuan',
    });
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect((await gatewayOf(merchant)).access).toMatchObject({ status: 'REJECTED', note: 'Penipuan' });
    const again = await admin.session('POST', `/api/admin/gateway/merchants/${merchant.id}/deactivate`, {
      note: 'Penipuan',
    });
    expect(again.statusCode).toBe(409);
  });

  it.each([
    ['no business name', { ...businessData, businessName: undefined }],
    ['a blank address', { ...businessData, address: '  ' }],
    ['a phone that is not one', { ...businessData, phone: 'call me' }],
    ['a website that is not a URL', { ...businessData, website: 'javascript:alert(1)' }],
  ])('refuses a request with %s (400), changing nothing', async (_case, body) => {
    const merchant = await keyHolder(service);
    const before = await countEvents();
    const response = await withSession(service, merchant.cookie)('POST', '/api/dashboard/gateway/access-request', body);
    expect(response.statusCode).toBe(400);
    expect(await countEvents()).toBe(before);
    expect((await gatewayOf(merchant)).access.status).toBe('NONE');
  });

  it('answers 401 to the dashboard without a session', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: '/api/dashboard/gateway/access-request',
      payload: businessData,
    });
    expect(response.statusCode).toBe(401);
  });

  it('answers 404 for an unknown merchant id, 400 for one that is not a UUID', async () => {
    expect((await admin.session('POST', `/api/admin/gateway/access-requests/${nextUuid()}/approve`)).statusCode).toBe(
      404,
    );
    expect((await admin.session('POST', '/api/admin/gateway/access-requests/not-a-uuid/approve')).statusCode).toBe(400);
  });

  it.each([
    ['GET', '/api/admin/gateway/access-requests'],
    ['POST', `/api/admin/gateway/access-requests/${nextUuid()}/approve`],
    ['POST', `/api/admin/gateway/access-requests/${nextUuid()}/reject`],
    ['POST', `/api/admin/gateway/merchants/${nextUuid()}/deactivate`],
    ['GET', '/api/admin/gateway/holding-accounts'],
    ['POST', '/api/admin/gateway/holding-accounts'],
    ['DELETE', `/api/admin/gateway/holding-accounts/${nextUuid()}`],
  ] as const)('%s %s answers 403 to a user who is not an admin', async (method, url) => {
    const user = await registerUser(service);
    const response = await withSession(service, user.cookie)(
      method,
      url,
      method === 'GET' || method === 'DELETE' ? undefined : { note: 'x', accountId: nextUuid() },
    );
    expect(response.statusCode).toBe(403);
  });

  it('lets a merchant choose who pays the fee', async () => {
    const merchant = await keyHolder(service);
    const set = await withSession(service, merchant.cookie)('PATCH', '/api/dashboard/gateway/settings', {
      feeToCustomer: true,
    });
    expect(set.statusCode, set.body).toBe(200);
    expect((await gatewayOf(merchant)).access.feeToCustomer).toBe(true);
    expect(
      (
        await withSession(service, merchant.cookie)('PATCH', '/api/dashboard/gateway/settings', {
          feeToCustomer: 'yes',
        })
      ).statusCode,
    ).toBe(400);
  });
});

describe('holding accounts', () => {
  it('are the admin own linked accounts: another owner account is 404, a bank 400, an unknown id 404', async () => {
    const user = await keyHolder(service);
    const { accountId: usersWallet } = await linkServiceWallet(user);
    expect(
      (await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: usersWallet })).statusCode,
    ).toBe(404);
    expect(
      (await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: nextUuid() })).statusCode,
    ).toBe(404);
    const bank = await admin.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-BCA',
      accountName: 'Ops',
      intervalMinutes: 60,
      accountNumber: '1234567890',
      username: 'ops',
      password: 'rahasia',
    });
    expect(bank.statusCode, bank.body).toBe(200);
    const refused = await admin.session('POST', '/api/admin/gateway/holding-accounts', {
      accountId: bank.json().accountId,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'HOLDING_ACCOUNT_CANNOT_SERVE' });
  });

  it('are listed with their methods, unmarked by DELETE, and make the methods served', async () => {
    const other = await signedInAdmin(service);
    const merchant = await approvedMerchant(service, other);
    const served = (await gatewayOf(merchant)).methods;
    const { accountId } = await holdingAccount(service, other, 'qris', 'WALLET-E');
    const listed = (await other.session('GET', '/api/admin/gateway/holding-accounts')).json().data;
    expect(listed).toContainEqual(
      expect.objectContaining({ accountId, providerCode: 'WALLET-E', methods: ['QRIS-DYNAMIC'], isActive: true }),
    );
    expect((await gatewayOf(merchant)).methods).toContainEqual({ value: 'QRIS-DYNAMIC', label: 'QRIS' });
    const unmarked = await other.session('DELETE', `/api/admin/gateway/holding-accounts/${accountId}`);
    expect(unmarked.statusCode, unmarked.body).toBe(200);
    expect(
      (await other.session('GET', '/api/admin/gateway/holding-accounts'))
        .json()
        .data.map((h: { accountId: string }) => h.accountId),
    ).not.toContain(accountId);
    expect((await other.session('DELETE', `/api/admin/gateway/holding-accounts/${accountId}`)).statusCode).toBe(404);
    expect((await gatewayOf(merchant)).methods).toEqual(served);
  });

  it('show no methods to a merchant who is not approved', async () => {
    await holdingAccount(service, admin);
    const merchant = await keyHolder(service);
    expect((await gatewayOf(merchant)).methods).toEqual([]);
  });
});

describe('POST /api/v1/payments with GATEWAY', () => {
  const post = (caller: Caller, body: unknown) => caller.call('POST', '/api/v1/payments', body);

  it('answers 403 until access is approved, changing nothing', async () => {
    const merchant = await keyHolder(service);
    await withSession(service, merchant.cookie)('POST', '/api/dashboard/gateway/access-request', businessData);
    const before = await countEvents();
    const response = await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC' }));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 'error', code: 'GATEWAY_NOT_APPROVED' });
    expect(await countEvents()).toBe(before);
  });

  it.each([
    ['DIRECT', { type: 'DIRECT' }, 'GATEWAY_DIRECT_NOT_ALLOWED'],
    ['QRIS below its minimum of 1,000', { type: 'QRIS-DYNAMIC', amount: 999 }, 'GATEWAY_AMOUNT_BELOW_MINIMUM'],
    ['a VA below its minimum of 10,000', { type: 'VA-BANK1', amount: 9_999 }, 'GATEWAY_AMOUNT_BELOW_MINIMUM'],
    ['QRIS above Bank Indonesia cap', { type: 'QRIS-DYNAMIC', amount: 10_000_001 }, 'GATEWAY_AMOUNT_ABOVE_MAXIMUM'],
    ['a type the gateway does not serve', { type: 'VA-BANK9' }, 'PAYMENT_TYPE_NOT_SUPPORTED'],
  ])('answers 400 for %s', async (_case, overrides, code) => {
    const merchant = await approvedMerchant(service, admin);
    const before = await countEvents();
    const response = await post(merchant, paymentBody('GATEWAY', overrides));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code });
    expect(await countEvents()).toBe(before);
  });

  it('bills a QRIS-DYNAMIC payment into a holding account, never showing which', async () => {
    const { accountId: holding } = await holdingAccount(service, admin);
    const merchant = await approvedMerchant(service, admin);
    const response = await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 100_000 }));
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({
      status: 'PENDING',
      type: 'QRIS-DYNAMIC',
      amount: 100_000,
      walletAccountId: 'GATEWAY',
    });
    expect(data.totalAmount).toBe(100_000 + data.uniqueCode);
    expect(data.qrisImage).toBe(`${service.config.publicBaseUrl}/pay/${data.id}/qris.png`);
    // the fee is known once the type is: 700 + 200 on 100,000, and the net the ledger will credit (the code is the platform's)
    expect(data.metadata).toEqual({ fee: 900, net: 99_100 });
    // the full gateway response of a fixed type has accountNumber: for a QR, the merchant PAN the payer's app shows
    const { payload: qr } = await decodeQrPng(
      (await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` })).rawPayload,
    );
    expect(data.accountNumber).toEqual(expect.any(String));
    expect(qrisMerchantPan(qr!)).toBe(data.accountNumber);
    expect(response.body).not.toContain(holding);
    const status = await merchant.call('GET', `/api/v1/payments/status/${data.id}`);
    expect(status.body).not.toContain(holding);
    expect(status.json().data.walletAccountId).toBe('GATEWAY');
  });

  it('answers 503 when no holding account serves the method, changing nothing', async () => {
    const merchant = await approvedMerchant(service, admin);
    const before = await countEvents();
    // virtual accounts need a WALLET-A holding account; none is marked in this test file before this test
    const response = await post(merchant, paymentBody('GATEWAY', { type: 'VA-BANK2', amount: 20_000 }));
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json()).toMatchObject({ status: 'error', code: 'NO_HOLDING_ACCOUNT' });
    expect(await countEvents()).toBe(before);
  });

  it('raises the bill for a merchant whose buyer pays the fee, keeping the request in metadata.baseAmount', async () => {
    await holdingAccount(service, admin);
    const merchant = await approvedMerchant(service, admin, { feeToCustomer: true });
    const response = await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 100_000 }));
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    // the smallest A with A - (round(A x 0.7%) + 200) >= 100,000 is 100,906: more than 100,000 + 900 (the fee on 100,000)
    expect(data.amount).toBe(100_906);
    // the fee on the raised 100,906 is 706 + 200: the net is exactly the request (the unique code is the platform's)
    expect(data.metadata).toEqual({ baseAmount: 100_000, fee: 906, net: 100_000 });
    expect(data.totalAmount).toBe(100_906 + data.uniqueCode);
    expect((await statusOf(merchant, data.id)).metadata).toEqual(data.metadata);
  });

  it('bills a virtual account into a WALLET-A holding account, with its number', async () => {
    await holdingAccount(service, admin, 'va');
    const merchant = await approvedMerchant(service, admin);
    const response = await post(merchant, paymentBody('GATEWAY', { type: 'VA-BANK1', amount: 250_000 }));
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({
      type: 'VA-BANK1',
      amount: 250_000,
      uniqueCode: 0,
      totalAmount: 250_000,
      walletAccountId: 'GATEWAY',
    });
    expect(data.accountNumber).toMatch(/^88810\d{11}$/);
    expect(data.metadata).toEqual({ fee: 3_000, net: 247_000 });
    expect(data.qrisImage).toBeUndefined();
  });

  it('lets the payer choose when no type is given: each method with its own total, then the choice bills it', async () => {
    await holdingAccount(service, admin);
    await holdingAccount(service, admin, 'va');
    const merchant = await approvedMerchant(service, admin, { feeToCustomer: true });
    const response = await post(merchant, paymentBody('GATEWAY', { amount: 50_000 }));
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({
      type: null,
      methodSelection: 'payer',
      amount: 50_000,
      walletAccountId: 'GATEWAY',
      metadata: { baseAmount: 50_000 },
    });
    expect(data.totalAmount).toBeUndefined();
    expect(data.metadata).toEqual({ baseAmount: 50_000 }); // no fee before the payer has chosen the method
    expect(data.qrisImage).toBeUndefined();
    expect(data.accountNumber).toBeUndefined();

    const page = await service.app.inject({ method: 'GET', url: `/pay/${data.id}` });
    expect(page.statusCode).toBe(200);
    // QRIS: the smallest A with A - (round(A x 0.7%) + 200) >= 50,000 is 50,554; a virtual account: 50,000 + 3,000
    expect(page.body).toContain('QRIS · Rp 50.554');
    expect(page.body).toContain('Virtual account BCA · Rp 53.000');

    const chosen = await service.app.inject({
      method: 'POST',
      url: `/pay/${data.id}/method`,
      payload: { type: 'QRIS-DYNAMIC' },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const billed = await statusOf(merchant, data.id);
    expect(billed).toMatchObject({
      type: 'QRIS-DYNAMIC',
      amount: 50_554,
      walletAccountId: 'GATEWAY',
      metadata: { baseAmount: 50_000 },
    });
    expect(billed.totalAmount).toBe(50_554 + (billed.uniqueCode as number));
    expect(billed.metadata).toEqual({ baseAmount: 50_000, fee: 554, net: 50_000 });
    const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
    expect((await decodeQrPng(qr.rawPayload)).payload).toContain(
      `54${String(billed.totalAmount).length.toString().padStart(2, '0')}${billed.totalAmount}`,
    );

    const direct = await service.app.inject({
      method: 'POST',
      url: `/pay/${data.id}/method`,
      payload: { type: 'DIRECT' },
    });
    expect(direct.statusCode).toBe(409); // chosen already
  });

  it('refuses DIRECT on the payment page of a gateway payment', async () => {
    await holdingAccount(service, admin);
    const merchant = await approvedMerchant(service, admin);
    const data = (await post(merchant, paymentBody('GATEWAY', { amount: 50_000 }))).json().data;
    const direct = await service.app.inject({
      method: 'POST',
      url: `/pay/${data.id}/method`,
      payload: { type: 'DIRECT' },
    });
    expect(direct.statusCode).toBe(400);
    expect((await statusOf(merchant, data.id)).type).toBeNull();
  });

  it('spreads payments over the holding accounts that serve the method', async () => {
    const other = await signedInAdmin(service);
    const merchant = await approvedMerchant(service, other);
    const held = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const created = await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 20_000 }));
      expect(created.statusCode, created.body).toBe(200);
      await statusOf(merchant, created.json().data.id); // the read model has it
      const row = await query<{ receiving_account_id: string }>(
        service.pool,
        'FindReceiving',
        'select receiving_account_id from payments where id = $1',
        [created.json().data.id],
      );
      held.add(row.rows[0]!.receiving_account_id);
    }
    expect(held.size).toBeGreaterThan(1);
  });

  it('completes when the buyer pays into the holding account', async () => {
    const merchant = await approvedMerchant(service, admin);
    const data = (await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 75_000 }))).json().data;
    await statusOf(merchant, data.id); // the read model has it
    const row = await query<{ receiving_account_id: string }>(
      service.pool,
      'FindReceiving',
      'select receiving_account_id from payments where id = $1',
      [data.id],
    );
    const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: data.totalAmount });
    await service.paymentChecks.checkNow(row.rows[0]!.receiving_account_id);
    const completed = await eventually(async () => {
      const current = await statusOf(merchant, data.id);
      return current.status === 'COMPLETED' && current;
    });
    expect(completed).toMatchObject({ status: 'COMPLETED', walletAccountId: 'GATEWAY', totalAmount: data.totalAmount });
  });
});

describe('the holiday calendar in /ready', () => {
  it('warns of next year missing from 1 October (WIB), not on 30 September, without failing readiness', async () => {
    const ready = async () => {
      const response = await service.app.inject({ url: '/ready' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().status).toBe('ready');
      return { holidayCalendar: response.json().details.holidayCalendar };
    };
    // the test clock is in January 2026: 2026 is shipped, 2027's decree is not due yet
    expect(await ready()).toEqual({ holidayCalendar: { missingYears: [] } });
    const started = service.clock.now();
    try {
      service.clock.set('2026-09-30T16:59:59.999Z'); // 30 September 23:59:59.999 WIB
      expect(await ready()).toEqual({ holidayCalendar: { missingYears: [] } });
      service.clock.set('2026-09-30T17:00:00.000Z'); // 1 October 00:00 WIB
      expect(await ready()).toEqual({
        holidayCalendar: { missingYears: [2027], warning: expect.stringContaining('no holiday decree for 2027') },
      });
    } finally {
      service.clock.set(started);
    }
  });
});
