import type { GatewaySettings } from '../config.ts';
import {
  gatewayMethods,
  isGatewayMethod,
  paymentMethod,
  type FeeRule,
  type GatewayMethod,
  type PaymentType,
} from './payment-methods.ts';
import { refuse } from '../errors.ts';
import { maxUniqueCode } from './payments-payable-claims.ts';

/**
 * The gateway's fees (the interface's Limits table): the one place a fee is computed and rounded.
 * Every amount is whole rupiah; the QRIS rate is in basis points, so nothing here is a float.
 */

/** The payment types the gateway serves (src/domain/payment-methods.ts): dynamic QRIS and the virtual accounts. */
export { gatewayMethods, isGatewayMethod, type GatewayMethod };

export type MethodFamily = FeeRule;

/** Which fee and limits a type takes: QRIS (dynamic, or the legacy static kind) or a virtual account. DIRECT has none. */
export function methodFamily(type: PaymentType): MethodFamily {
  const rule = paymentMethod(type).fee;
  if (rule === null) throw refuse('GATEWAY_DIRECT_NOT_ALLOWED');
  return rule;
}

/** Exact integer division rounded down, for non-negative safe integers (`%` and the division of a multiple are exact). */
const divFloor = (x: number, d: number) => (x - (x % d)) / d;

function checkedAmount(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError(`an amount is a whole, non-negative number of rupiah (got ${amount})`);
  return amount;
}

/** The QRIS fee: round-half-up(amount x rateBp / 10,000) + flat. */
function qrisFee(amount: number, { rateBp, flat }: GatewaySettings['qrisFee']): number {
  const scaled = amount * rateBp + 5000;
  if (!Number.isSafeInteger(scaled)) throw new RangeError(`amount ${amount} is too large to compute its fee exactly`);
  return divFloor(scaled, 10_000) + flat;
}

/** The fee of a gateway payment billed `amount` rupiah by `method`: QRIS rate plus flat, a virtual account its flat fee. */
export function fee(method: PaymentType, amount: number, settings: GatewaySettings): number {
  checkedAmount(amount);
  return methodFamily(method) === 'qris' ? qrisFee(amount, settings.qrisFee) : settings.vaFee;
}

/**
 * The smallest billed amount A whose credit A - fee(A) covers `requested`. The credit never falls as A grows and grows
 * by at most one rupiah a step (the rate is below 100%), so the first A that covers is found by stepping from the
 * estimate that ignores rounding, and its credit is exactly `requested`.
 */
export function grossUp(method: PaymentType, requested: number, settings: GatewaySettings): number {
  checkedAmount(requested);
  if (methodFamily(method) === 'va') return requested + settings.vaFee;
  const { rateBp, flat } = settings.qrisFee;
  if (rateBp >= 10_000) throw new RangeError(`a QRIS rate of ${rateBp} basis points leaves no credit to gross up to`);
  const credit = (a: number) => a - fee(method, a, settings);
  const keep = 10_000 - rateBp;
  const target = (requested + flat) * 10_000;
  let billed = divFloor(target + keep - 1, keep); // ceil((requested + flat) / (1 - rate))
  while (billed > 0 && credit(billed - 1) >= requested) billed--;
  while (credit(billed) < requested) billed++;
  return billed;
}

/**
 * A gateway bill: the amount billed, its fee, the request; and for a method that adds a unique code to the amount the
 * highest code that keeps what the buyer pays within the method's maximum (null: no unique code, a virtual account).
 */
export type GatewayBill = { amount: number; fee: number; baseAmount: number; highestCode: number | null };

/** A method whose bill the payer pays with a unique code on top (every method but a virtual account's own number). */
const takesUniqueCode = (method: PaymentType) => paymentMethod(method).va === null;

const rupiah = (n: number) => new Intl.NumberFormat('en-US').format(n);
const limitsOf = (method: PaymentType, settings: GatewaySettings) => settings.limits[methodFamily(method)];

/**
 * What a gateway payment of `requested` rupiah bills by `method`: the requested amount, or when the merchant passes the
 * fee to the customer the amount grossed up so that the merchant is credited the request; its fee is on the billed
 * amount. The maximum holds for what the buyer pays, unique code included: the codes are those that keep the bill
 * within it. Refused (400): a request below the method's minimum, a billed amount above its maximum or leaving no room
 * under it for a unique code, an amount not larger than its fee.
 */
export function gatewayBill(
  method: PaymentType,
  requested: number,
  feeToCustomer: boolean,
  settings: GatewaySettings,
): GatewayBill {
  const { min, max } = limitsOf(method, settings);
  if (requested < min) {
    const message = `The amount ${rupiah(requested)} is below the ${method} minimum of ${rupiah(min)}`;
    throw refuse('GATEWAY_AMOUNT_BELOW_MINIMUM', {
      message,
      errors: [{ path: 'body.amount', message }],
      params: { method, requested, minimum: min },
    });
  }
  const amount = feeToCustomer ? grossUp(method, requested, settings) : requested;
  const highestCode = takesUniqueCode(method) ? Math.min(maxUniqueCode, max - amount) : null;
  if (amount > max || (highestCode !== null && highestCode < 1)) {
    const raised = amount === requested ? '' : ` (${rupiah(requested)} raised by the fee)`;
    const message =
      amount > max
        ? `The billed amount ${rupiah(amount)}${raised} is above the ${method} maximum of ${rupiah(max)}`
        : `The billed amount ${rupiah(amount)}${raised} leaves no room for a unique code within the ${method} maximum of ${rupiah(max)}`;
    throw refuse('GATEWAY_AMOUNT_ABOVE_MAXIMUM', {
      message,
      errors: [{ path: 'body.amount', message }],
      params: { method, requested, billed: amount, maximum: max, ...(amount > max ? {} : { case: 'no-code-room' }) },
    });
  }
  const charged = fee(method, amount, settings);
  if (amount <= charged) {
    const message = `The amount ${rupiah(amount)} is not larger than its ${method} fee of ${rupiah(charged)}`;
    throw refuse('GATEWAY_AMOUNT_NOT_ABOVE_FEE', {
      message,
      errors: [{ path: 'body.amount', message }],
      params: { method, billed: amount, fee: charged },
    });
  }
  return { amount, fee: charged, baseAmount: requested, highestCode };
}
