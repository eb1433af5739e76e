import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditGatewayPayment } from '../../src/commands/gateway-ledger.ts';
import { approvedMerchant, holdingAccount, settledBalance, signedInAdmin } from '../support/gateway.ts';
import { nextUuid } from '../support/ids.ts';
import { pageBrowser, textOf } from '../support/pages.ts';
import { paymentBody } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
let merchant: Merchant;
let other: Merchant;
let paymentDay: string; // the WIB day the payments were credited
const formulaOrder = '=HYPERLINK("http://evil.example","klik")';

const browserOf = (m: Merchant) => {
  const browser = pageBrowser(service);
  browser.jar.set('svc_token', m.cookie);
  return browser;
};

beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  const admin = await signedInAdmin(service);
  await holdingAccount(service, admin);
  merchant = await approvedMerchant(service, admin);
  other = await approvedMerchant(service, admin);
  // a payment whose order id a spreadsheet would run, credited as the payment saga does
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 100_000, orderId: formulaOrder }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const now = service.clock.now();
  paymentDay = new Date(now.getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
  await creditGatewayPayment(
    service.deps,
    {
      merchantId: merchant.id,
      paymentId: created.json().data.id,
      holdingAccountId: nextUuid(),
      totalAmount: 100_000,
      fee: 900,
      completedAt: now,
    },
    { actor: 'test', now },
  );
  await settledBalance(service, merchant.id, 50_000);
  const withdrawn = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', {
    amount: 60_000,
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'Toko Maju',
  });
  expect(withdrawn.statusCode, withdrawn.body).toBe(201);
  await settledBalance(service, other.id, 77_777);
  await service.projections.waitFor(await service.store.headPosition(), 10_000);
});
afterAll(async () => service?.close());

const rowsOf = (html: string) =>
  [...html.matchAll(/<tr data-entry-id="[^"]+">([\s\S]*?)<\/tr>/g)].map(m =>
    m[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

describe('the statement on the dashboard gateway page', () => {
  it("lists the entries newest first in Indonesian, gross/fee/net and the balances after each; another merchant's are absent", async () => {
    const page = await browserOf(merchant).get('/dashboard/gateway');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'statement')).toBe('Riwayat saldo (4)');
    const rows = rowsOf(page.body);
    expect(rows.map(r => ['Penarikan diajukan', 'Pencairan', 'Pembayaran'].find(label => r.includes(label)))).toEqual([
      'Penarikan diajukan',
      'Pencairan',
      'Pembayaran',
      'Pembayaran',
    ]);
    // withdrawal: -60,000 from available; balances after it: available 89,100, pending 0, on hold 60,000
    expect(rows[0]).toContain('-Rp 60.000 Rp 89.100 Rp 0 Rp 60.000');
    expect(rows[3]).toContain('Kotor Rp 100.000 · biaya Rp 900 · bersih Rp 99.100');
    expect(page.body).toContain('Pesanan =HYPERLINK(&#34;http://evil.example&#34;,&#34;klik&#34;)');
    expect(page.body).not.toContain('77.777');
    expect(page.body).not.toContain('80.777'); // the other merchant's gross
  });

  it('draws the balance and the daily net volume as inline SVG with a title, no style attribute', async () => {
    const page = await browserOf(merchant).get('/dashboard/gateway');
    expect(page.body).toMatch(
      /<svg id="statement-chart" viewBox="0 0 600 220" width="100%" role="img" aria-labelledby="statement-chart-title"/,
    );
    expect(textOf(page.body, 'statement-chart-title')).toMatch(
      /^Saldo tersedia dan volume bersih harian, .*volume bersih Rp 149\.100, saldo tersedia di akhir Rp 89\.100/,
    );
    expect(page.body).toContain('<polyline');
    expect(page.body).not.toMatch(/\sstyle=/);
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('filters by type and by WIB days; a bad filter is a 400 naming it', async () => {
    const browser = browserOf(merchant);
    const payments = await browser.get('/dashboard/gateway?type=PAYMENT');
    expect(rowsOf(payments.body)).toHaveLength(2);
    expect(payments.body).toContain('href="/dashboard/gateway/statement.csv?type=PAYMENT"');
    const thatDay = rowsOf((await browser.get(`/dashboard/gateway?from=${paymentDay}&to=${paymentDay}`)).body);
    expect(thatDay).toHaveLength(2);
    expect(thatDay.every(r => r.includes('Pembayaran'))).toBe(true);
    expect(rowsOf((await browser.get('/dashboard/gateway?from=2020-01-01&to=2020-01-31')).body)).toHaveLength(0);
    const bad = await browser.get('/dashboard/gateway?type=REFUND');
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'notice')).toContain('type');
  });

  it('exports every matching entry as CSV: one header row, formulas kept as text, times in WIB with the offset', async () => {
    const csv = await browserOf(merchant).get('/dashboard/gateway/statement.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.startsWith('\uFEFF')).toBe(true); // the UTF-8 byte order mark, for Excel on Windows
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,at,type,typeLabel,amount,gross,fee,net,paymentId,orderId,withdrawalId,pending,settled,onHold,available',
    );
    expect(lines).toHaveLength(5);
    expect(lines.slice(1).every(l => /^[0-9a-f-]{36},\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+07:00,/.test(l))).toBe(true);
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"",""klik"")"`);
    expect(csv.body).not.toContain('77777');
    const filtered = await browserOf(merchant).get('/dashboard/gateway/statement.csv?type=SETTLEMENT');
    expect(filtered.body.slice(1).trimEnd().split('\r\n')).toHaveLength(2);
    expect((await browserOf(other).get('/dashboard/gateway/statement.csv')).body).not.toContain('HYPERLINK');
  });
});
