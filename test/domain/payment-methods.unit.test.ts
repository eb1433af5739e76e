import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  gatewayMethods,
  isGatewayMethod,
  isPaymentType,
  isQrType,
  paymentMethod,
  paymentMethodOf,
  paymentMethods,
  paymentTypes,
} from '../../src/domain/payment-methods.ts';
import { paymentType } from '../../src/events/payments.ts';
import { providers } from '../../src/providers/catalogue.ts';

/** What the pages, the gateway information, pay-to and the fees said of each method before the registry. */
const before = [
  { code: 'QRIS', payer: 'QRIS', merchant: 'QRIS', gateway: false, qr: true, vaPrefix: null, fee: 'qris' },
  { code: 'QRIS-DYNAMIC', payer: 'QRIS', merchant: 'QRIS', gateway: true, qr: true, vaPrefix: null, fee: 'qris' },
  {
    code: 'DIRECT',
    payer: 'Transfer langsung',
    merchant: 'Transfer langsung',
    gateway: false,
    qr: false,
    vaPrefix: null,
    fee: null,
  },
  {
    code: 'VA-BANK1',
    payer: 'Virtual account BCA',
    merchant: 'Virtual account BCA (VA-BANK1)',
    gateway: true,
    qr: false,
    vaPrefix: '88810',
    fee: 'va',
  },
  {
    code: 'VA-BANK2',
    payer: 'Virtual account BRI',
    merchant: 'Virtual account BRI (VA-BANK2)',
    gateway: true,
    qr: false,
    vaPrefix: '88820',
    fee: 'va',
  },
  {
    code: 'VA-BANK3',
    payer: 'Virtual account Mandiri',
    merchant: 'Virtual account Mandiri (VA-BANK3)',
    gateway: true,
    qr: false,
    vaPrefix: '88830',
    fee: 'va',
  },
] as const;

describe('the payment-method registry', () => {
  it("is the events' enum of payment types, in the same order", () => {
    expect(paymentType.options).toEqual(paymentTypes);
    expect(paymentMethods.map(m => m.code)).toEqual(paymentTypes);
  });

  it.each(before)('says of $code what the code said before it', m => {
    const method = paymentMethod(m.code);
    expect({
      payer: method.payerLabel,
      merchant: method.merchantLabel,
      gateway: method.gateway,
      qr: method.qr,
      vaPrefix: method.va?.prefix ?? null,
      fee: method.fee,
    }).toEqual({
      payer: m.payer,
      merchant: m.merchant,
      gateway: m.gateway,
      qr: m.qr,
      vaPrefix: m.vaPrefix,
      fee: m.fee,
    });
  });

  it('has the gateway serve dynamic QRIS and the virtual accounts, each with a fee rule', () => {
    expect(gatewayMethods).toEqual(['QRIS-DYNAMIC', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3']);
    for (const m of gatewayMethods) expect(paymentMethod(m).fee).not.toBeNull();
  });

  it('gives each virtual account its own five-digit prefix, and only virtual accounts one', () => {
    const prefixes = paymentMethods.flatMap(m => (m.va ? [m.va.prefix] : []));
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const p of prefixes) expect(p).toMatch(/^\d{5}$/);
    for (const m of paymentMethods) expect(m.va !== null).toBe(m.code.startsWith('VA-'));
  });

  it('lets providers offer only methods a payment can be created with', () => {
    for (const p of providers)
      for (const t of p.paymentTypes) expect(paymentMethod(t).creatable, `${p.providerCode} ${t}`).toBe(true);
    expect(paymentMethods.filter(m => !m.creatable).map(m => m.code)).toEqual(['QRIS']);
  });

  test.prop([fc.oneof(fc.constantFrom(...paymentTypes), fc.string())])(
    'knows no method by a text that is not a code',
    text => {
      const known = (paymentTypes as readonly string[]).includes(text);
      expect(isPaymentType(text)).toBe(known);
      expect(paymentMethodOf(text) !== undefined).toBe(known);
      expect(isGatewayMethod(text)).toBe(known && (gatewayMethods as readonly string[]).includes(text));
      expect(isQrType(text)).toBe(text === 'QRIS' || text === 'QRIS-DYNAMIC');
    },
  );

  it('knows no method of a payment whose payer has not chosen one', () => {
    expect(paymentMethodOf(null)).toBeUndefined();
    expect(isQrType(null)).toBe(false);
    expect(isPaymentType('toString')).toBe(false);
  });
});
