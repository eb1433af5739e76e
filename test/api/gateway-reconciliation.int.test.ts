import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/cli/reconcile.ts';
import { reconciliationTables } from '../../src/audit/gateway-reconciliation-csv.ts';
import { query } from '../../src/db/pool.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import { approvedMerchant, holdingAccount, signedInAdmin, type Admin } from '../support/gateway.ts';
import { richestHoldingAccount } from '../../src/projections/gateway-ledger.ts';
import { registerUser } from '../support/http.ts';
import { decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: Admin;
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
type Paid = {
  id: string;
  merchantId: string;
  holdingAccountId: string;
  totalAmount: number;
  fee: number;
  uniqueCode: number;
};
/** What the merchant is owed of a payment: its bill less its fee (the unique code on top is the platform's). */
const netOf = (p: Paid) => p.totalAmount - p.fee - p.uniqueCode;

const period = '?from=2026-01-01&to=2026-01-31';
const url = `/api/admin/gateway/reconciliation${period}`;
const settle = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);

/** A gateway payment paid by the buyer into its holding account, completed, and credited in the merchant's ledger. */
async function paidGatewayPayment(merchant: Merchant, amount: number): Promise<Paid> {
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const data = created.json().data;
  await statusOf(merchant, data.id);
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: data.totalAmount });
  const row = (
    await query<{ receiving_account_id: string }>(
      service.pool,
      'FindReceiving',
      'select receiving_account_id from payments where id = $1',
      [data.id],
    )
  ).rows[0]!;
  await service.paymentChecks.checkNow(row.receiving_account_id);
  await eventually(async () => (await statusOf(merchant, data.id)).status === 'COMPLETED');
  const credited = await eventually(async () => {
    await settle();
    const r = await query<{ fee: number }>(
      service.pool,
      'FindCredit',
      `select p.gateway_fee as fee from payments p
      where p.id = $1 and exists (select 1 from gateway_postings g where g.reference_id = $1::text)`,
      [data.id],
    );
    return r.rows[0];
  });
  return {
    id: data.id,
    merchantId: merchant.id,
    holdingAccountId: row.receiving_account_id,
    totalAmount: data.totalAmount,
    fee: credited.fee,
    uniqueCode: data.uniqueCode,
  };
}

const report = async (): Promise<GatewayReconciliation> => {
  const response = await admin.session('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().status).toBe('success');
  return response.json().data;
};

/** Runs `work` with a read model tampered by `tamper`, and puts it back after. */
async function tampered(tamper: string, restore: string, work: () => Promise<void>) {
  await query(service.pool, 'Tamper', tamper);
  try {
    await work();
  } finally {
    await query(service.pool, 'Restore', restore);
  }
}

let paid: Paid[] = [];
let withdrawn = 0;
const unmatchedAmount = 12_345;
let unmatchedAccount = '';
let merchants: Merchant[] = [];

beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  const first = await holdingAccount(service, admin, 'qris', 'WALLET-D');
  await holdingAccount(service, admin, 'qris', 'WALLET-D');
  merchants = [await approvedMerchant(service, admin), await approvedMerchant(service, admin, { feeToCustomer: true })];
  paid = [
    await paidGatewayPayment(merchants[0]!, 75_000),
    await paidGatewayPayment(merchants[0]!, 120_000),
    await paidGatewayPayment(merchants[1]!, 60_000),
  ];
  // money into a holding account that pays no payment
  unmatchedAccount = first.accountId;
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: first.phoneNumber,
    type: 'CREDIT',
    amount: unmatchedAmount,
    senderName: 'SALAH KIRIM',
  });
  await admin.call('GET', `/api/v1/accounts/${first.accountId}/refresh`);
  await eventually(async () => {
    await settle();
    return (
      await query(service.pool, 'FindUnmatched', 'select 1 from mutations where account_id = $1 and amount = $2', [
        first.accountId,
        unmatchedAmount,
      ])
    ).rowCount;
  });
  // the first merchant's credits settle at 00:00 WIB of the next working day (2026-01-06), then a withdrawal is paid out
  service.clock.set('2026-01-05T17:00:01Z');
  await settle();
  await service.gatewaySettlement.tick();
  await settle();
  withdrawn = 50_000;
  const requested = await merchants[0]!.session('POST', '/api/dashboard/gateway/withdrawals', {
    amount: withdrawn,
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'Joko Wijaya',
  });
  expect(requested.statusCode, requested.body).toBe(201);
  const payout = await admin.session('POST', `/api/admin/gateway/withdrawals/${requested.json().data.id}/paid`, {
    reference: 'TRF-1',
    // paid from the account with the most cash
    holdingAccountId: await richestHoldingAccount(service.pool),
  });
  expect(payout.statusCode, payout.body).toBe(200);
  await settle();
}, 120_000);
afterAll(async () => service?.close());

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('GET /api/admin/gateway/reconciliation', () => {
  it("balances: every day sums to zero, holding credits equal the completed payments, fees equal the payments' fees", async () => {
    const data = await report();
    expect(data.balanced).toBe(true);
    expect(data.period).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
      timeZone: 'Asia/Jakarta',
      startsAt: '2025-12-31T17:00:00.000Z',
      endsAt: '2026-01-31T17:00:00.000Z',
    });

    const { trialBalance } = data;
    // the holding accounts' openings: what the sandbox seeded each wallet with before it was marked
    const adjustments = (await admin.session('GET', '/api/admin/gateway/ledger-adjustments')).json().data as {
      kind: string;
      amount: number;
    }[];
    expect(adjustments.map(a => a.kind)).toEqual(['OPENING', 'OPENING']);
    const openings = sum(adjustments.map(a => a.amount));
    expect(trialBalance.days).toHaveLength(31);
    for (const day of trialBalance.days) expect(day.debits, day.day).toBe(day.credits);
    const totals = sum(paid.map(p => p.totalAmount));
    const fees = sum(paid.map(p => p.fee));
    const codes = sum(paid.map(p => p.uniqueCode));
    expect(fees).toBeGreaterThan(0);
    expect(codes).toBeGreaterThan(0);
    // credits 3 x 4 postings (holding, pending, fee, unique code), the unmatched credit into suspense (2), a settlement
    // per merchant (2 each), a withdrawal requested (2) and paid out of a holding account (2), two openings (2 each)
    expect(trialBalance.total).toMatchObject({
      postings: 26,
      difference: 0,
      holding: totals + unmatchedAmount - withdrawn + openings,
      equity: -openings,
      suspense: -unmatchedAmount,
      fees: -fees,
      uniqueCodes: -codes,
      payouts: 0,
      other: 0,
    });
    const day5 = trialBalance.days.find(d => d.day === '2026-01-05')!;
    const inDay5 = totals + unmatchedAmount;
    expect(day5).toMatchObject({
      postings: 18,
      debits: inDay5 + openings,
      credits: inDay5 + openings,
      holding: inDay5 + openings,
      equity: -openings,
      pending: -(totals - fees - codes),
      suspense: -unmatchedAmount,
      fees: -fees,
      uniqueCodes: -codes,
    });
    const day6 = trialBalance.days.find(d => d.day === '2026-01-06')!;
    expect(day6.postings).toBe(8);
    expect(trialBalance.unbalancedEntries).toEqual([]);

    const firstNet = sum(paid.filter(p => p.merchantId === merchants[0]!.id).map(netOf));
    const secondNet = netOf(paid[2]!);
    expect(data.merchants).toMatchObject({
      balanced: true,
      folded: true,
      comparedWithReadModel: true,
      checked: 2,
      inconsistent: 0,
      differing: 0,
    });
    const none = { pending: 0, settled: 0, onHold: 0 };
    expect(data.merchants.rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          merchantId: merchants[0]!.id,
          opening: none,
          closing: { pending: 0, settled: firstNet - withdrawn, onHold: 0 },
          readModel: { pending: 0, settled: firstNet - withdrawn, onHold: 0 },
          consistent: true,
          differences: [],
        }),
        expect.objectContaining({
          merchantId: merchants[1]!.id,
          opening: none,
          closing: { pending: 0, settled: secondNet, onHold: 0 },
          consistent: true,
          differences: [],
        }),
      ]),
    );
    expect(data.merchants.rows.find(m => m.merchantId === merchants[0]!.id)!.movements).toEqual({
      creditsGross: sum(paid.slice(0, 2).map(p => p.totalAmount)),
      fees: sum(paid.slice(0, 2).map(p => p.fee)),
      uniqueCodes: sum(paid.slice(0, 2).map(p => p.uniqueCode)),
      creditsNet: firstNet,
      adjustments: 0,
      settlements: firstNet,
      withdrawalsRequested: withdrawn,
      withdrawalsPaid: withdrawn,
      withdrawalsRejected: 0,
    });
    // the holding accounts hold the cash: their openings, the payments and the unmatched credit in, the payout out
    expect(sum(data.holdingAccounts.accounts.map(h => h.closing))).toBe(
      totals + unmatchedAmount - withdrawn + openings,
    );
    expect(sum(data.holdingAccounts.accounts.map(h => h.credited))).toBe(totals + unmatchedAmount + openings);
    expect(sum(data.holdingAccounts.accounts.map(h => h.paidOut))).toBe(withdrawn);
    expect(data.holdingAccounts.accounts.every(h => h.opening === 0 && h.consistent)).toBe(true);
    // each against its provider's balance: the openings booked what the wallets held before they were marked; the
    // payout recorded as paid elsewhere left no DEBIT at the provider, so its account alone differs, by that payout
    for (const h of data.holdingAccounts.accounts) {
      const synchronised = (await admin.call('GET', `/api/v1/accounts/${h.accountId}`)).json().data.balance as number;
      expect(h).toMatchObject({
        ledgerCash: h.closing,
        providerBalance: synchronised,
        difference: synchronised - h.closing,
        items: [],
      });
    }
    expect(data.holdingAccounts.accounts.map(h => h.unexplained).sort()).toEqual([0, withdrawn]);
    expect(data.holdingAccounts.tied).toBe(false);
    expect(data.suspense).toMatchObject({ open: unmatchedAmount, allocated: 0, refunded: 0 });
    expect(data.suspense.items).toEqual([
      expect.objectContaining({
        accountId: unmatchedAccount,
        amount: unmatchedAmount,
        status: 'OPEN',
        senderName: 'SALAH KIRIM',
      }),
    ]);
    expect(data.payouts).toEqual([
      expect.objectContaining({ merchantId: merchants[0]!.id, amount: withdrawn, reference: 'TRF-1' }),
    ]);

    expect(data.holdingCredits.total).toEqual({
      credited: totals,
      completedPayments: totals,
      payments: 3,
      difference: 0,
    });
    expect(sum(data.holdingCredits.accounts.map(a => a.payments))).toBe(3);
    for (const account of data.holdingCredits.accounts) {
      expect(account.credited).toBe(
        sum(paid.filter(p => p.holdingAccountId === account.accountId).map(p => p.totalAmount)),
      );
    }
    expect(data.holdingCredits.problems).toEqual([]);

    // the sandbox's history of a newly linked wallet comes with credits of its own: none of them paid a payment either
    expect(data.unmatchedCredits).toContainEqual(
      expect.objectContaining({
        accountId: unmatchedAccount,
        amount: unmatchedAmount,
        senderName: 'SALAH KIRIM',
        latePaymentId: null,
      }),
    );
    expect(
      data.unmatchedCredits.every(c => c.bookedAt >= data.period.startsAt && c.bookedAt < data.period.endsAt),
    ).toBe(true);
    const paidBy = await query(
      service.pool,
      'FindPaidMutations',
      'select 1 from mutations where id = any($1::uuid[]) and payment is not null',
      [data.unmatchedCredits.map(c => c.mutationId)],
    );
    expect(paidBy.rowCount).toBe(0);
    // the unique codes, the platform's income, apart from the fees
    expect(data.fees.total).toEqual({
      earned: fees,
      paymentsFees: fees,
      allocationsFees: 0,
      difference: 0,
      uniqueCodes: codes,
    });
    expect(data.fees.days.find(d => d.day === '2026-01-05')).toEqual({
      day: '2026-01-05',
      earned: fees,
      paymentsFees: fees,
      allocationsFees: 0,
      difference: 0,
      uniqueCodes: codes,
    });
  });

  it("a report of the first day only: opening 0, that day's movements, its closing (not today's balances), nothing live to compare", async () => {
    const response = await admin.session('GET', '/api/admin/gateway/reconciliation?from=2026-01-05&to=2026-01-05');
    const data: GatewayReconciliation = response.json().data;
    expect(data.merchants).toMatchObject({ comparedWithReadModel: false, checked: 2, inconsistent: 0 });
    const first = data.merchants.rows.find(m => m.merchantId === merchants[0]!.id)!;
    const firstNet = sum(paid.slice(0, 2).map(netOf));
    expect(first).toMatchObject({
      opening: { pending: 0, settled: 0, onHold: 0 },
      closing: { pending: firstNet, settled: 0, onHold: 0 },
      consistent: true,
      readModel: null,
    });
    expect(first.movements).toMatchObject({ creditsNet: firstNet, settlements: 0, withdrawalsPaid: 0 });
    expect(data.payouts).toEqual([]);
    // the next day opens where the first closed
    const next: GatewayReconciliation = (
      await admin.session('GET', '/api/admin/gateway/reconciliation?from=2026-01-06&to=2026-01-06')
    ).json().data;
    const nextFirst = next.merchants.rows.find(m => m.merchantId === merchants[0]!.id)!;
    expect(nextFirst.opening).toEqual(first.closing);
    expect(nextFirst).toMatchObject({
      closing: { pending: 0, settled: firstNet - withdrawn, onHold: 0 },
      consistent: true,
    });
  });

  it('answers each table as its own CSV: one header row, WIB times with their offset; an unknown or missing table is 400', async () => {
    const data = await report();
    const csvOf = async (table: string, viaSuffix = false) => {
      const at = viaSuffix ? `/api/admin/gateway/reconciliation.csv${period}&table=${table}` : `${url}&table=${table}`;
      return service.app.inject({
        method: 'GET',
        url: at,
        cookies: { svc_token: admin.cookie },
        headers: viaSuffix ? {} : { accept: 'text/csv' },
      });
    };
    // every file starts with the UTF-8 byte order mark (Excel on Windows reads it as UTF-8 then), stripped to parse it
    const rowsOf = (body: string) => {
      expect(body.startsWith('\uFEFF')).toBe(true);
      return body
        .slice(1)
        .trimEnd()
        .split('\r\n')
        .map(line => line.split(','));
    };
    for (const table of reconciliationTables) {
      const csv = await csvOf(table);
      expect(csv.statusCode, csv.body).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.rawPayload.subarray(0, 3).toString('hex'), table).toBe('efbbbf');
      const [header, ...rows] = rowsOf(csv.body);
      expect(
        rows.every(r => r[0] !== 'total'),
        table,
      ).toBe(true);
      expect(
        rows.some(r => r.join(',') === header!.join(',')),
        table,
      ).toBe(false);
      expect(
        rows.every(r => r.length === header!.length),
        table,
      ).toBe(true);
      expect(csv.body, table).not.toMatch(/\d\dZ\b|\.\d{3}Z/);
    }
    // the days only, a row each; the totals in a table of their own, so a spreadsheet's SUM counts each day once
    const trial = rowsOf((await csvOf('trial-balance', true)).body);
    expect(trial).toHaveLength(32);
    expect(trial.at(-1)![0]).toBe('2026-01-31');
    const trialTotals = rowsOf((await csvOf('trial-balance-totals')).body);
    expect(trialTotals).toHaveLength(2);
    expect(trialTotals[1]).toEqual([
      '2026-01-01',
      '2026-01-31',
      String(data.trialBalance.total.postings),
      String(data.trialBalance.total.debits),
      String(data.trialBalance.total.credits),
      '0',
      ...[
        'holding',
        'pending',
        'settled',
        'onHold',
        'suspense',
        'fees',
        'uniqueCodes',
        'payouts',
        'equity',
        'other',
      ].map(k => String(data.trialBalance.total[k as 'holding'])),
    ]);
    const fees = rowsOf((await csvOf('fees')).body);
    expect(fees).toHaveLength(32);
    expect(rowsOf((await csvOf('fees-totals')).body)).toEqual([
      ['from', 'to', 'earned', 'paymentsFees', 'allocationsFees', 'difference', 'uniqueCodes'],
      ['2026-01-01', '2026-01-31', ...Object.values(data.fees.total).map(String)],
    ]);
    const payouts = rowsOf((await csvOf('payouts')).body);
    expect(payouts[0]).toEqual([
      'paidAt',
      'merchantId',
      'merchantName',
      'merchantEmail',
      'withdrawalId',
      'amount',
      'reference',
    ]);
    expect(payouts[1]![0]).toMatch(/^2026-01-06T00:00:\d\d\+07:00$/);
    const suspense = rowsOf((await csvOf('suspense')).body);
    expect(suspense.slice(1).every(r => /\+07:00$/.test(r[suspense[0]!.indexOf('receivedAt')]!))).toBe(true);
    expect(suspense).toHaveLength(data.suspense.items.length + 1);
    expect(
      rowsOf((await csvOf('merchants')).body)
        .slice(1)
        .map(r => r[0])
        .sort(),
    ).toEqual(merchants.map(m => m.id).sort());
    for (const bad of ['ledger', '']) {
      const refused = await csvOf(bad);
      expect(refused.statusCode, bad).toBe(400);
      expect(refused.json(), bad).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'querystring.table' }] });
      expect(refused.json().errors[0].message, bad).toContain('holding-accounts');
    }
    const missing = await service.app.inject({
      method: 'GET',
      url,
      cookies: { svc_token: admin.cookie },
      headers: { accept: 'text/csv' },
    });
    expect(missing.statusCode).toBe(400);
  });

  it('answers 400 to a period that is not one', async () => {
    for (const [query, code] of [
      ['?from=2026-01-01', 'VALIDATION_ERROR'],
      ['?from=2026-02-30&to=2026-03-01', 'VALIDATION_ERROR'],
      ['?from=01-01-2026&to=2026-01-02', 'VALIDATION_ERROR'],
      ['?from=2026-01-02&to=2026-01-01', 'INVALID_PERIOD'],
      ['?from=2025-01-01&to=2026-01-02', 'INVALID_PERIOD'],
    ] as const) {
      const response = await admin.session('GET', `/api/admin/gateway/reconciliation${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toMatchObject({ status: 'error', code });
    }
    expect(
      (await admin.session('GET', '/api/admin/gateway/reconciliation?from=2025-01-01&to=2026-01-01')).statusCode,
    ).toBe(200); // 366 days
  });

  it('answers 401 without a session and 403 to a non-admin', async () => {
    expect((await service.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    const user = await registerUser(service);
    const forbidden = await service.app.inject({ method: 'GET', url, cookies: { svc_token: user.cookie } });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    const merchant = await merchants[0]!.session('GET', url);
    expect(merchant.statusCode).toBe(403);
  });
});

describe('what the report flags', () => {
  it('a merchant whose read-model balance differs from the ledger (and the CLI exits 1)', async () => {
    const merchantId = merchants[1]!.id;
    await tampered(
      `update gateway_balances set settled = settled + 1 where merchant_id = '${merchantId}'`,
      `update gateway_balances set settled = settled - 1 where merchant_id = '${merchantId}'`,
      async () => {
        const data = await report();
        expect(data.balanced).toBe(false);
        expect(data.merchants).toMatchObject({ balanced: false, differing: 1, inconsistent: 0 });
        const row = data.merchants.rows.find(m => m.merchantId === merchantId)!;
        expect(row.differences).toEqual([
          { balance: 'settled', ledger: row.closing.settled, readModel: row.closing.settled + 1 },
        ]);
        expect([data.trialBalance.balanced, data.holdingCredits.balanced, data.fees.balanced]).toEqual([
          true,
          true,
          true,
        ]);
        const printed: string[] = [];
        expect(
          await reconcile(
            service,
            ['--from', '2026-01-01', '--to', '2026-01-31', '--csv', '--table', 'merchants'],
            text => printed.push(text),
            () => undefined,
          ),
        ).toBe(1);
        expect(printed.join('\n')).toMatch(new RegExp(`^${merchantId},.*,settled$`, 'm'));
      },
    );
    expect(
      await reconcile(
        service,
        ['--from', '2026-01-01', '--to', '2026-01-31'],
        () => undefined,
        () => undefined,
      ),
    ).toBe(0);
    expect(
      await reconcile(
        service,
        ['--from', '2026-01-01', '--to', '2026-01-31', '--csv', '--table', 'ledger'],
        () => undefined,
        () => undefined,
      ),
    ).toBe(2);
    expect(
      await reconcile(
        service,
        ['--from', '2026-01-31', '--to', '2026-01-01'],
        () => undefined,
        () => undefined,
      ),
    ).toBe(2);
  });

  it('a posting that unbalances its entry and its day', async () => {
    const payment = paid[0]!;
    await tampered(
      `update gateway_postings set amount = amount + 7 where reference_id = '${payment.id}' and account = 'platform:fees'`,
      `update gateway_postings set amount = amount - 7 where reference_id = '${payment.id}' and account = 'platform:fees'`,
      async () => {
        const data = await report();
        expect(data.balanced).toBe(false);
        expect(data.trialBalance.balanced).toBe(false);
        expect(data.trialBalance.days.find(d => d.day === '2026-01-05')!.difference).toBe(7);
        expect(data.trialBalance.unbalancedEntries).toEqual([
          expect.objectContaining({
            merchantId: payment.merchantId,
            eventType: 'GatewayPaymentCredited',
            referenceId: payment.id,
            day: '2026-01-05',
            sum: 7,
          }),
        ]);
        // the fee posted no longer matches the payment's
        expect(data.fees.balanced).toBe(false);
        expect(data.holdingCredits.problems).toEqual([
          expect.objectContaining({ paymentId: payment.id, problem: 'CREDIT_DIFFERS_FROM_PAYMENT' }),
        ]);
      },
    );
  });

  it("a credit whose unique code is not its payment's: 5 moved from the merchant to the code, its entry still balanced", async () => {
    const payment = paid[1]!;
    const moved = (sign: string) =>
      `update gateway_postings set amount = amount ${sign} 5 where reference_id = '${payment.id}' and account = 'platform:unique-codes';
       update gateway_postings set amount = amount ${sign === '+' ? '-' : '+'} 5 where reference_id = '${payment.id}' and account like 'merchant:%:pending'`;
    await tampered(moved('-'), moved('+'), async () => {
      const data = await report();
      expect(data.trialBalance.balanced).toBe(true);
      expect(data.fees.total.uniqueCodes).toBe(sum(paid.map(p => p.uniqueCode)) + 5);
      expect(data.holdingCredits.balanced).toBe(false);
      expect(data.holdingCredits.problems).toEqual([
        expect.objectContaining({
          paymentId: payment.id,
          problem: 'CREDIT_DIFFERS_FROM_PAYMENT',
          creditedUniqueCode: payment.uniqueCode + 5,
          uniqueCode: payment.uniqueCode,
        }),
      ]);
    });
  });

  it('a completed payment without its credit, a credit without its payment, and a paying mutation of another amount', async () => {
    const [first, second, third] = paid as [Paid, Paid, Paid];
    await tampered(
      `update gateway_postings set reference_id = 'x' || reference_id where reference_id = '${first.id}';
       update payments set status = 'EXPIRED' where id = '${second.id}';
       update mutations set amount = amount + 1 where id = (select mutation_id from payments where id = '${third.id}')`,
      `update gateway_postings set reference_id = substr(reference_id, 2) where reference_id = 'x${first.id}';
       update payments set status = 'COMPLETED' where id = '${second.id}';
       update mutations set amount = amount - 1 where id = (select mutation_id from payments where id = '${third.id}')`,
      async () => {
        const data = await report();
        expect(data.balanced).toBe(false);
        expect(data.holdingCredits.balanced).toBe(false);
        expect(data.holdingCredits.problems.map(p => [p.problem, p.paymentId])).toEqual(
          [
            ['COMPLETED_WITHOUT_CREDIT', first.id],
            ['CREDITED_WITHOUT_COMPLETED_PAYMENT', second.id],
            ['CREDITED_WITHOUT_COMPLETED_PAYMENT', `x${first.id}`],
            ['MUTATION_NOT_A_MATCHING_CREDIT', third.id],
          ].sort((a, b) => a[0]!.localeCompare(b[0]!) || a[1]!.localeCompare(b[1]!)),
        );
        expect(data.holdingCredits.problemCount).toBe(4);
        expect(data.holdingCredits.total.difference).toBe(second.totalAmount);
        expect(data.fees.total.difference).toBe(second.fee);
      },
    );
    expect((await report()).balanced).toBe(true);
  });
});
