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
let admin: Awaited<ReturnType<typeof signedInAdmin>>;
const formulaOrder = '=HYPERLINK("http://evil.example","klik")';

const browserOf = (m: Merchant) => {
  const browser = pageBrowser(service);
  browser.jar.set('svc_token', m.cookie);
  return browser;
};

beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
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

/** One SVG of the page, by id, as text. */
const svgOf = (html: string, id: string) => new RegExp(`<svg id="${id}"[\\s\\S]*?</svg>`).exec(html)![0];
const textsOf = (svg: string) => [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map(m => m[1]);

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

  it('draws the balance and the daily net volume on one rupiah axis as inline SVG with a caption, no style attribute', async () => {
    const page = await browserOf(merchant).get('/dashboard/gateway');
    expect(textOf(page.body, 'statement-chart-title')).toMatch(
      /^Saldo tersedia dan volume bersih harian, .*volume bersih Rp 149\.100, saldo tersedia di akhir Rp 89\.100/,
    );
    // one axis for the line and the bars, its ticks in rupiah from 0 to a round value above the highest (149,100)
    const axis = svgOf(page.body, 'statement-chart-axis');
    expect(textsOf(axis)).toEqual(['Rp 0', 'Rp 50.000', 'Rp 100.000', 'Rp 150.000']);
    expect(page.body).not.toContain('maks.');
    // no viewBox: one unit is one CSS pixel, so no text is drawn below its 12 px on a 375 px phone (or any screen)
    for (const svg of [axis, svgOf(page.body, 'statement-chart')]) {
      expect(svg).not.toContain('viewBox');
      const sizes = [...svg.matchAll(/<text [^>]*font-size="([\d.]+)"/g)].map(m => Number(m[1]));
      expect(sizes.length).toBeGreaterThan(0);
      expect(
        sizes.every(size => size >= 12),
        String(sizes),
      ).toBe(true);
      expect([...svg.matchAll(/<text /g)]).toHaveLength(sizes.length);
    }
    expect(page.body).not.toMatch(/\sstyle=/);
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('labels a date at least every week over 108 days, and gives every day as a row of a table', async () => {
    const first = new Date(Date.parse(`${paymentDay}T00:00:00Z`) - 100 * 86_400_000);
    const dayOf = (offset: number) => new Date(first.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
    const page = await browserOf(merchant).get(`/dashboard/gateway?from=${dayOf(0)}&to=${dayOf(107)}`);
    expect(page.statusCode).toBe(200);
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'];
    const label = (day: string) => `${Number(day.slice(8, 10))} ${months[Number(day.slice(5, 7)) - 1]}`;
    // the 1st, 8th, 15th, ... day: 16 labels, never more than 7 days apart, the last within a week of the end
    expect(textsOf(svgOf(page.body, 'statement-chart'))).toEqual(
      Array.from({ length: 16 }, (_, week) => label(dayOf(week * 7))),
    );
    const table = /<table id="statement-chart-data">[\s\S]*?<\/table>/.exec(page.body)![0];
    expect(table).toContain('<th scope="col">Tanggal (WIB)</th>');
    const rows = [...table.matchAll(/<tr><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><\/tr>/g)];
    expect(rows.map(r => r[1])).toEqual(Array.from({ length: 108 }, (_, i) => dayOf(i)));
    // the payments' day: both credited (99,100 and 50,000 net), nothing available until they settle
    expect(rows.find(r => r[1] === paymentDay)!.slice(2)).toEqual(['Rp 0', 'Rp 149.100']);
    expect(rows[0]!.slice(2)).toEqual(['Rp 0', 'Rp 0']);
  });

  it('says there is nothing yet for a merchant without payments, and draws no chart', async () => {
    const fresh = await approvedMerchant(service, admin);
    const page = await browserOf(fresh).get('/dashboard/gateway');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'statement-chart-empty')).toMatch(
      /^Belum ada pembayaran atau saldo dari \d{4}-\d\d-\d\d sampai \d{4}-\d\d-\d\d \(WIB\): grafiknya muncul setelah pembayaran pertama masuk\.$/,
    );
    expect(page.body).not.toContain('<svg');
    expect(page.body).not.toContain('Rp 1<');
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
