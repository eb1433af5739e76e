import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyCallerOf, signedInBrowser, textOf } from '../support/pages.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

describe('the mutations page', () => {
  it('lists the viewer’s mutations with the filters of the API, dates as WIB days, and exports them as CSV', async () => {
    service.clock.set('2026-03-01T16:00:00.000Z'); // before the sign-in: the clock only moves forward from it
    const { browser } = await signedInBrowser(service);
    const { call } = await keyCallerOf(service, browser);
    const phoneNumber = `0812${String(Date.now()).slice(-8)}`;
    const linked = await call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-E',
      accountName: 'Kasir',
      intervalMinutes: 60,
      phoneNumber,
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const accountId = linked.json().accountId as string;
    const sandbox = sandboxOf(service);
    // 23:30 WIB on 1 March is still 1 March here, though it is 16:30 UTC; the second is 00:30 WIB on 2 March
    service.clock.set('2026-03-01T16:30:00.000Z');
    await sandbox.addTransaction({
      providerCode: 'WALLET-E',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 75_000,
      senderName: 'Ani',
      description: '=HYPERLINK("x")',
    });
    service.clock.set('2026-03-01T17:30:00.000Z');
    await sandbox.addTransaction({
      providerCode: 'WALLET-E',
      accountRef: phoneNumber,
      type: 'DEBIT',
      amount: 2_500,
      senderName: 'Budi',
      description: 'biaya',
    });
    expect((await call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);

    const firstOfMarch = await browser.get('/dashboard/mutations?from=2026-03-01&to=2026-03-01');
    expect(firstOfMarch.statusCode).toBe(200);
    expect(firstOfMarch.body).toContain('Rp 75.000');
    expect(firstOfMarch.body).not.toContain('Rp 2.500');
    const debits = await browser.get(`/dashboard/mutations?accountId=${accountId}&type=DEBIT&minAmount=&maxAmount=`);
    expect(debits.body).toContain('Rp 2.500');
    expect(debits.body).not.toContain('Rp 75.000');
    expect(debits.body).toContain(`href="/dashboard/mutations.csv?accountId=${accountId}&#38;type=DEBIT"`); // the ampersand escaped

    expect(
      (await browser.get('/dashboard/mutations?accountType=bank&from=2026-03-01&to=2026-03-01')).body,
    ).not.toContain('Rp 75.000');
    expect((await browser.get('/dashboard/mutations?accountType=wallet&from=2026-03-01&to=2026-03-01')).body).toContain(
      'Rp 75.000',
    );
    const bad = await browser.get('/dashboard/mutations?minAmount=9&maxAmount=1');
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'notice')).toContain('minAmount');

    const csv = await browser.get('/dashboard/mutations.csv?from=2026-03-01&to=2026-03-02');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="mutasi-/);
    expect(csv.body.startsWith('\uFEFF')).toBe(true); // the UTF-8 byte order mark, for Excel on Windows
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,createdAt,accountId,accountType,type,amount,description,senderName,reference,status,paymentId,orderId',
    );
    const ours = lines.slice(1).filter(l => l.includes(accountId) && /,(Ani|Budi),/.test(l)); // the sandbox seeds a history of its own too
    expect(ours).toHaveLength(2);
    expect(ours[0]).toContain(',DEBIT,2500,biaya,Budi,');
    expect(ours[1]).toContain(`,CREDIT,75000,"'=HYPERLINK(""x"")",Ani,`); // a formula kept as text
    // times as WIB with the offset, as the page and every other CSV show them
    expect(ours.map(l => l.split(',')[1])).toEqual(['2026-03-02T00:30:00+07:00', '2026-03-01T23:30:00+07:00']);
    expect(csv.headers['content-disposition']).toContain('mutasi-2026-03-02.csv'); // today, a WIB day
  });

  it("never shows another user's mutations, on the page or in the CSV", async () => {
    const owner = await signedInBrowser(service);
    const { call } = await keyCallerOf(service, owner.browser);
    const phoneNumber = `0813${String(Date.now()).slice(-8)}`;
    const accountId = (
      await call('POST', '/api/v1/accounts', {
        type: 'ewallet',
        providerCode: 'WALLET-E',
        accountName: 'Kasir',
        intervalMinutes: 60,
        phoneNumber,
      })
    ).json().accountId as string;
    await sandboxOf(service).addTransaction({
      providerCode: 'WALLET-E',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 43_210,
      senderName: 'Rahasia',
    });
    await call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect((await owner.browser.get('/dashboard/mutations')).body).toContain('Rp 43.210');

    const { browser } = await signedInBrowser(service);
    expect((await browser.get('/dashboard/mutations')).body).not.toContain('Rp 43.210');
    expect((await browser.get(`/dashboard/mutations?accountId=${accountId}`)).body).not.toContain('Rp 43.210');
    expect(
      (await browser.get(`/dashboard/mutations.csv?accountId=${accountId}`)).body.slice(1).trimEnd().split('\r\n'),
    ).toHaveLength(1);
  });
});
