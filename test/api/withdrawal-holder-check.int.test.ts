import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutAccount } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { withdrawalDesk, type WithdrawalDesk } from '../support/withdrawals.ts';

// The holder the bank names for a withdrawal's destination against the one the merchant asked for: the sandbox's bank
// names the holder of BCA 1234567890 JOKO WIJAYA, every time.
let service: TestService;
let desk: WithdrawalDesk;
let wallet: { accountId: string; phoneNumber: string };
/** Requested before the payout account was chosen: not checked, so bank-init is the first to name the holder. */
let unchecked: string;
const destination = { bankCode: 'BCA', accountNumber: '1234567890' };

beforeAll(async () => {
  service = await startTestService();
  desk = await withdrawalDesk(service, 2_000_000, '10.204.0.1');
  unchecked = (await withdraw('Toko Satu')).id;
  wallet = await payoutAccount(service, desk.owner.admin, 5_000_000);
});
afterAll(async () => service?.close());

const withdraw = (accountHolderName: string, amount = 100_000) =>
  desk.withdraw({ amount, ...destination, accountHolderName });
const admin = () => desk.payer.admin;
const shown = (id: string) => desk.withdrawal(id);
const balanceOf = async () =>
  (await desk.owner.admin.call('GET', `/api/v1/accounts/${wallet.accountId}`)).json().data.balance as number;
const paidEvent = () => desk.lastPaid();
const rowOf = (html: string, id: string) =>
  new RegExp(`<tr data-withdrawal-id="${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';

describe('holder names checked before money leaves', () => {
  it('a holder named otherwise only at bank-init: refused before bank-create, nothing moves; an override pays it', async () => {
    expect((await shown(unchecked)).holderMatches).toBeNull();
    const before = await balanceOf();
    const refused = await admin().session('POST', `/api/admin/gateway/withdrawals/${unchecked}/pay`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'WITHDRAWAL_HOLDER_MISMATCH' });
    expect(await shown(unchecked)).toMatchObject({ status: 'REQUESTED', payoutFailure: { outcome: 'FAILED' } });
    expect(await balanceOf()).toBe(before);

    const overridden = await admin().session('POST', `/api/admin/gateway/withdrawals/${unchecked}/pay`, {
      holderOverride: { reason: 'Rekening pribadi pemilik toko, dikonfirmasi lewat telepon' },
    });
    expect(overridden.statusCode, overridden.body).toBe(200);
    expect(overridden.json().data).toMatchObject({
      status: 'PAID',
      holderName: 'JOKO WIJAYA',
      holderMatches: false,
      holderOverride: { reason: 'Rekening pribadi pemilik toko, dikonfirmasi lewat telepon', by: admin().id },
    });
    expect(await balanceOf()).toBe(before - 100_000);
    expect(await paidEvent()).toMatchObject({
      withdrawalId: unchecked,
      holderName: 'JOKO WIJAYA',
      holderOverride: { reason: 'Rekening pribadi pemilik toko, dikonfirmasi lewat telepon', by: admin().id },
    });
    const started = (await service.store.readStream(`withdrawal-payout-${unchecked}`)).filter(
      e => e.type === 'WithdrawalPayoutStarted',
    );
    expect(started.at(-1)!.data).toMatchObject({ holderOverride: { by: admin().id } });
  });

  it("the merchant's request answers with the bank's name and says it differs; the dashboard shows it as a warning", async () => {
    const requested = await withdraw('Toko Satu');
    expect(requested).toMatchObject({ holderName: 'JOKO WIJAYA', holderMatches: false });
    const mine = await desk.merchant.session('GET', `/api/dashboard/gateway/withdrawals/${requested.id}`);
    expect(mine.json().data).toMatchObject({ holderName: 'JOKO WIJAYA', holderMatches: false });
    const page = await desk.merchant.session('GET', '/dashboard/gateway');
    const row = rowOf(page.body, requested.id);
    expect(row).toContain('<span class="badge bad holder-mismatch">JOKO WIJAYA</span>');
    expect(row).toContain('Berbeda dari nama yang Anda isi');
    await admin().session('POST', `/api/admin/gateway/withdrawals/${requested.id}/reject`, { note: 'nama salah' });
  });

  it('a mismatch is refused on /pay and /paid without an override, nothing moves; /paid with one keeps the reason', async () => {
    const { id } = await withdraw('Toko Satu');
    const before = await balanceOf();
    const pay = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/pay`);
    expect(pay.statusCode, pay.body).toBe(409);
    expect(pay.json()).toMatchObject({ code: 'WITHDRAWAL_HOLDER_MISMATCH' });
    const paid = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-HOLDER-1',
      holdingAccountId: wallet.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(409);
    expect(paid.json()).toMatchObject({ code: 'WITHDRAWAL_HOLDER_MISMATCH' });
    expect(await shown(id)).toMatchObject({ status: 'REQUESTED', payoutFailure: null, holderOverride: null });
    expect(await balanceOf()).toBe(before);

    const overridden = await admin().session('POST', `/api/admin/gateway/withdrawals/${id}/paid`, {
      reference: 'TRF-HOLDER-1',
      holdingAccountId: wallet.accountId,
      holderOverride: { reason: 'Nama usaha terdaftar atas nama pemilik' },
    });
    expect(overridden.statusCode, overridden.body).toBe(200);
    expect(overridden.json().data).toMatchObject({
      status: 'PAID',
      holderOverride: { reason: 'Nama usaha terdaftar atas nama pemilik', by: admin().id },
    });
    expect(await paidEvent()).toMatchObject({
      withdrawalId: id,
      holderName: 'JOKO WIJAYA',
      holderOverride: { reason: 'Nama usaha terdaftar atas nama pemilik', by: admin().id },
    });
  });

  it('the same holder in any spelling is paid without an override, and nothing is kept as one', async () => {
    for (const spelt of ['joko wijaya', 'Bpk. Joko Wijaya', 'JOKO-WIJAYA', ' Sdr  Joko,Wijaya ']) {
      const requested = await withdraw(spelt, 50_000);
      expect(requested).toMatchObject({ holderName: 'JOKO WIJAYA', holderMatches: true });
      const paid = await admin().session('POST', `/api/admin/gateway/withdrawals/${requested.id}/pay`);
      expect(paid.statusCode, paid.body).toBe(200);
      expect(paid.json().data).toMatchObject({ status: 'PAID', holderMatches: true, holderOverride: null });
      const event = await paidEvent();
      expect(event).toMatchObject({ withdrawalId: requested.id, holderName: 'JOKO WIJAYA' });
      expect(event.holderOverride).toBeUndefined();
    }
  });

  it('the console shows a mismatch as a warning (never green) with the override form; without a reason it is refused', async () => {
    const { id } = await withdraw('Toko Satu');
    const page = (await desk.payer.browser.get('/admin/withdrawals')).body;
    const row = rowOf(page, id);
    expect(row).toContain(
      '<span class="badge bad holder-mismatch">JOKO WIJAYA · berbeda dari nama yang diminta</span>',
    );
    expect(row).not.toContain('badge ok');
    expect(row).toContain('name="holderOverrideReason"');
    expect(row).not.toContain('>Bayar lewat WALLET-A</button>');

    const before = await balanceOf();
    const refused = await desk.payer.browser.post(`/admin/withdrawals/${id}/pay`, { holderOverrideReason: '' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body, 'notice')).toMatch(/^Nama pemilik rekening menurut bank \(JOKO WIJAYA\) berbeda/);
    expect(await balanceOf()).toBe(before);
    const paid = await desk.payer.browser.post(`/admin/withdrawals/${id}/pay`, {
      holderOverrideReason: 'Dikonfirmasi merchant',
    });
    expect(paid.headers.location).toBe('/admin/withdrawals?done=paid-out');
    expect(await balanceOf()).toBe(before - 100_000);
    const after = rowOf((await desk.payer.browser.get('/admin/withdrawals')).body, id);
    expect(after).toContain('Dibayar dengan pengecualian: Dikonfirmasi merchant');
    expect(after).toContain('badge bad holder-mismatch');
  });
});
