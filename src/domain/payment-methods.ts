/**
 * The payment methods: every fact of a method written once, here. Events, the provider catalogue, the pages, the
 * presenter, pay-to, the gateway's fees and holding accounts read it; adding a method starts with an entry below.
 * Pure: no I/O, imports only from src/domain and the bottom files.
 */

/** Which gateway fee and limits a method takes (GatewaySettings: qrisFee or vaFee, limits.qris or limits.va). */
export type FeeRule = 'qris' | 'va';

type MethodFacts = {
  /** how a payer reads it on the hosted payment page */
  payerLabel: string;
  /** how a merchant reads it in the gateway information (/api/v1/gateway, the dashboard) */
  merchantLabel: string;
  /** false: a legacy method a payment can have but no longer be created with */
  creatable: boolean;
  /** the gateway serves it from a holding account (DIRECT is the merchant's own wallet) */
  gateway: boolean;
  /** the payment shows a QR image of its payload */
  qr: boolean;
  /** a virtual account: its numbers are the prefix then 11 random digits; `bank`, the bank's name, is shown to the payer */
  va: { prefix: string; bank: string } | null;
  /** the gateway's fee, and the limits (minimum on the requested, maximum on the billed amount), by rule; null: none */
  fee: FeeRule | null;
};

const facts = {
  QRIS: {
    payerLabel: 'QRIS',
    merchantLabel: 'QRIS',
    creatable: false,
    gateway: false,
    qr: true,
    va: null,
    fee: 'qris',
  },
  'QRIS-DYNAMIC': {
    payerLabel: 'QRIS',
    merchantLabel: 'QRIS',
    creatable: true,
    gateway: true,
    qr: true,
    va: null,
    fee: 'qris',
  },
  DIRECT: {
    payerLabel: 'Transfer langsung',
    merchantLabel: 'Transfer langsung',
    creatable: true,
    gateway: false,
    qr: false,
    va: null,
    fee: null,
  },
  // the bank whose app a payer opens: the code's BANK1 to BANK3 mean nothing to a customer
  'VA-BANK1': vaMethod('BANK1', '88810', 'BCA'),
  'VA-BANK2': vaMethod('BANK2', '88820', 'BRI'),
  'VA-BANK3': vaMethod('BANK3', '88830', 'Mandiri'),
} as const satisfies Record<string, MethodFacts>;

/** A virtual account: `code` as the API and merchants name it, `bank` the bank's name as payers know it. */
function vaMethod<const Code extends string>(code: Code, prefix: string, bank: string) {
  return {
    payerLabel: `Virtual account ${bank}`,
    merchantLabel: `Virtual account ${bank} (VA-${code})`,
    creatable: true,
    gateway: true,
    qr: false,
    va: { prefix, bank },
    fee: 'va',
  } as const satisfies MethodFacts;
}

/** The payment types a payment can have (the events' enum). */
export type PaymentType = keyof typeof facts;

/** Every method's code, in the order lists show them. */
export const paymentTypes = Object.keys(facts) as [PaymentType, ...PaymentType[]];

export type PaymentMethod = MethodFacts & { code: PaymentType };

/** Every method, in the order of `paymentTypes`. */
export const paymentMethods: readonly PaymentMethod[] = paymentTypes.map(code => ({ code, ...facts[code] }));

export const isPaymentType = (value: string): value is PaymentType => Object.hasOwn(facts, value);

/** The method of a known type. */
export const paymentMethod = (type: PaymentType): PaymentMethod => ({ code: type, ...facts[type] });

/** The method a stored or asked type names, or undefined for a type no method has (or none). */
export const paymentMethodOf = (type: string | null): PaymentMethod | undefined =>
  type !== null && isPaymentType(type) ? paymentMethod(type) : undefined;

/** The methods the gateway serves: dynamic QRIS and the virtual accounts. */
export type GatewayMethod = { [T in PaymentType]: (typeof facts)[T]['gateway'] extends true ? T : never }[PaymentType];

export const gatewayMethods = paymentTypes.filter((type): type is GatewayMethod => facts[type].gateway);

export const isGatewayMethod = (type: string): type is GatewayMethod => paymentMethodOf(type)?.gateway === true;

/** QR types carry an image of their payload. */
export const isQrType = (type: string | null): boolean => paymentMethodOf(type)?.qr === true;
