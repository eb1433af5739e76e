import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { gatewayBill } from '../../src/domain/gateway-fees.ts';
import { gatewayMethodFor } from '../../src/commands/gateway-payment.ts';
import { typeFor } from '../../src/commands/payments-pay-to.ts';
import type { GatewaySettings } from '../../src/config.ts';
import { errorCodes, refuse, type DomainError, type ErrorCode } from '../../src/errors.ts';
import { findProvider } from '../../src/providers/catalogue.ts';
import { refusalWords } from '../../src/web/refusal-words.ts';

const codes = Object.keys(errorCodes) as ErrorCode[];
/** Every code but the session surface's (whose messages are the interface's Indonesian) can reach a page. */
const pageCodes = codes.filter(code => !('surface' in errorCodes[code]));

const refusalOf = (work: () => unknown): DomainError => {
  try {
    work();
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('not refused');
};

const settings: GatewaySettings = {
  vaFee: 3000,
  qrisFee: { rateBp: 70, flat: 200 },
  limits: { qris: { min: 1000, max: 10_000_000 }, va: { min: 10_000, max: 50_000_000 } },
  minWithdrawal: 50_000,
};

describe('a refusal as a page says it', () => {
  it.each(pageCodes)('has Indonesian words for %s, not the English message', code => {
    const said = refusalWords(refuse(code));
    expect(said.length).toBeGreaterThan(0);
    expect(said).not.toBe(errorCodes[code].message);
  });

  test.prop([fc.constantFrom(...codes), fc.string(), fc.string()])(
    'is chosen by code, never by the message the throw site wrote',
    (code, message, path) => {
      expect(refusalWords(refuse(code, { message, errors: [{ path, message }] }))).toBe(refusalWords(refuse(code)));
    },
  );

  it("says the session surface's codes in their registry message, which is Indonesian", () => {
    expect(refusalWords(refuse('INVALID_CREDENTIALS'))).toBe('Email atau password salah');
  });

  it("says a page's own refusal in the page's words", () => {
    expect(refusalWords(refuse('FORBIDDEN', { words: 'Halaman ini hanya untuk admin.' }))).toBe(
      'Halaman ini hanya untuk admin.',
    );
    expect(refusalWords(refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' }))).toBe(
      'Rekening tidak ditemukan',
    );
  });

  it("says what the throw site's params add", () => {
    expect(
      refusalWords(
        refuse('INSUFFICIENT_BALANCE', {
          message: 'The amount is more than the available balance (120000)',
          params: { available: 120_000 },
        }),
      ),
    ).toBe('Jumlah melebihi saldo tersedia (120000)');
    expect(refusalWords(refuse('WITHDRAWAL_BELOW_MINIMUM', { params: { minimum: 50_000 } }))).toBe(
      'Jumlah di bawah minimal penarikan (Rp 50.000)',
    );
    expect(refusalWords(refuse('WEBHOOK_URL_REFUSED', { params: { reason: 'PRIVATE_ADDRESS' } }))).toBe(
      'URL webhook ditolak: alamatnya di jaringan privat',
    );
    expect(refusalWords(refuse('WEBHOOK_URL_REFUSED', { params: { reason: 'UNRESOLVABLE' } }))).toBe(
      'URL webhook ditolak: nama hostnya tidak dapat ditemukan',
    );
    expect(refusalWords(refuse('VALIDATION_ERROR', { params: { reason: 'INVALID_URL' } }))).toBe(
      'URL webhook ditolak: bukan URL http atau https yang sah',
    );
    expect(refusalWords(refuse('GATEWAY_NOT_APPROVED', { params: { status: 'PENDING' } }))).toBe(
      'Akses gateway belum disetujui (status: PENDING); ajukan lewat dasbor',
    );
  });

  it('tells the meanings of PAYMENT_TYPE_NOT_SUPPORTED apart, as the throw sites raise them', () => {
    const wallet = findProvider('WALLET-A')!;
    expect(refusalWords(refusalOf(() => typeFor(wallet, 'QRIS')))).toBe(
      'QRIS statis tidak bisa dibuat lagi: pembayar mengetik nominalnya sendiri. Pakai QRIS-DYNAMIC',
    );
    expect(refusalWords(refusalOf(() => typeFor(findProvider('BANK-BCA')!, undefined)))).toBe(
      'Rekening BANK-BCA tidak bisa menerima pembayaran',
    );
    expect(refusalWords(refusalOf(() => typeFor(wallet, 'QRIS-DYNAMIC')))).toBe(
      'Metode QRIS-DYNAMIC tidak didukung WALLET-A (yang didukung: DIRECT, VA-BANK1, VA-BANK2, VA-BANK3)',
    );
    expect(refusalWords(refusalOf(() => typeFor(findProvider('BANK-BCA')!, 'DIRECT')))).toBe(
      'Metode DIRECT tidak didukung BANK-BCA',
    );
    expect(refusalWords(refusalOf(() => gatewayMethodFor('CASH')))).toBe(
      'Metode CASH tidak dilayani gateway (yang dilayani: QRIS-DYNAMIC, VA-BANK1, VA-BANK2, VA-BANK3)',
    );
    expect(refusalWords(refusalOf(() => gatewayMethodFor('QRIS')))).toBe(
      'QRIS statis tidak bisa dibuat lagi: pembayar mengetik nominalnya sendiri. Pakai QRIS-DYNAMIC',
    );
  });

  it("says a gateway amount's limits and fee with the figures the fee rule found", () => {
    expect(refusalWords(refusalOf(() => gatewayBill('VA-BANK1', 9_999, false, settings)))).toBe(
      'Jumlah Rp 9.999 di bawah minimal VA-BANK1 Rp 10.000',
    );
    expect(refusalWords(refusalOf(() => gatewayBill('QRIS-DYNAMIC', 10_000_001, false, settings)))).toBe(
      'Jumlah tagihan Rp 10.000.001 di atas maksimal QRIS-DYNAMIC Rp 10.000.000',
    );
    expect(refusalWords(refusalOf(() => gatewayBill('VA-BANK2', 49_999_000, true, settings)))).toBe(
      'Jumlah tagihan Rp 50.002.000 (Rp 49.999.000 ditambah biaya) di atas maksimal VA-BANK2 Rp 50.000.000',
    );
    expect(
      refusalWords(
        refusalOf(() =>
          gatewayBill('VA-BANK3', 3_000, false, {
            ...settings,
            limits: { ...settings.limits, va: { min: 0, max: 10 ** 9 } },
          }),
        ),
      ),
    ).toBe('Jumlah Rp 3.000 tidak lebih besar dari biaya VA-BANK3 Rp 3.000');
  });
});
