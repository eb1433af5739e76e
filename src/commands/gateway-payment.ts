import type { GatewaySettings } from '../config.ts';
import { gatewayMethods, isGatewayMethod, type PaymentType } from '../domain/payment-methods.ts';
import { DomainError, refuse } from '../errors.ts';
import { gatewayMethodsOf } from '../providers/catalogue.ts';
import { ProviderError } from '../providers/connector.ts';
import { account, accountStream, type Account } from '../domain/account.ts';
import { recordPayment, type PaymentRequest, type Receiver } from './payments-record.ts';
import { gatewayAccess } from '../domain/gateway-access.ts';
import { gatewayBill } from '../domain/gateway-fees.ts';
import { checkedState, type CommandContext } from '../store/commands/handle.ts';
import { holdingAccounts, holdingAccountsStream, type HoldingAccount } from '../domain/holding-accounts.ts';
import { payTo, refuseRetired } from './payments-pay-to.ts';
import type { Payment } from '../domain/payments.ts';
import type { CommandDeps } from './deps.ts';
import { userStream } from '../domain/user.ts';

const noHoldingAccount = (type: string | null) =>
  refuse('NO_HOLDING_ACCOUNT', {
    message: type
      ? `No holding account can serve ${type} now; try again later or another method`
      : 'No holding account can serve a gateway payment now; try again later',
    params: type ? { method: type } : {},
  });

/** The method asked for a gateway payment: QRIS-DYNAMIC or a virtual account; DIRECT and static QRIS are refused (400). */
export function gatewayMethodFor(asked: string): PaymentType {
  if (asked === 'DIRECT')
    throw refuse('GATEWAY_DIRECT_NOT_ALLOWED', {
      errors: [{ path: 'body.type', message: 'DIRECT cannot be used with GATEWAY' }],
    });
  refuseRetired(asked);
  if (!isGatewayMethod(asked))
    throw refuse('PAYMENT_TYPE_NOT_SUPPORTED', {
      message: `Payment type ${asked} is not served by the gateway (${gatewayMethods.join(', ')})`,
      errors: [{ path: 'body.type', message: 'not served by the gateway' }],
      params: { case: 'not-gateway', type: asked, served: gatewayMethods.join(', ') },
    });
  return asked;
}

/** A holding account that can take a payment now: still linked, active, with a provider session. */
function usable(state: Account) {
  return state.status === 'linked' && state.isActive && state.session !== null ? state : null;
}

/** Where the next search for a holding account starts: payments spread over the accounts serving a method. */
let rotation = 0;

/** The holding accounts serving `type`, starting after the one the last payment took. */
function candidatesFor(all: HoldingAccount[], type: PaymentType): HoldingAccount[] {
  const serving = all.filter(h => gatewayMethodsOf(h.providerCode).includes(type));
  const start = serving.length ? rotation++ % serving.length : 0;
  return [...serving.slice(start), ...serving.slice(0, start)];
}

/** Refusals that mean "this holding account cannot take it now, try the next one". */
const tryNext = (err: unknown) =>
  err instanceof ProviderError ||
  (err instanceof DomainError &&
    [
      'NO_UNIQUE_CODE',
      'VA_NUMBER_TAKEN',
      'ACCOUNT_INACTIVE',
      'PROVIDER_UNAVAILABLE',
      'RECEIVING_ACCOUNT_GONE',
      'ACCOUNT_NOT_FOUND',
    ].includes(err.code));

/**
 * Bills a gateway payment of `type` into the first holding account that serves the method and has a free payable
 * amount (`bill` records it there and answers it); none: 503 NO_HOLDING_ACCOUNT.
 */
export async function intoHoldingAccount<T>(
  deps: CommandDeps,
  type: PaymentType,
  context: CommandContext,
  bill: (receiver: Receiver) => Promise<T>,
): Promise<T> {
  const holding = await checkedState(deps, holdingAccountsStream, holdingAccounts);
  for (const candidate of candidatesFor(holding.accounts, type)) {
    const linked = usable(await checkedState(deps, accountStream(candidate.accountId), account));
    if (!linked) continue;
    try {
      const where = await payTo(deps, linked, type, context);
      const recheck = (state: Account) => {
        if (!usable(state)) throw refuse('RECEIVING_ACCOUNT_GONE', { message: 'The holding account became unusable' });
      };
      return await bill({ linked, where, recheck });
    } catch (err) {
      if (!tryNext(err)) throw err;
    }
  }
  throw noHoldingAccount(type);
}

/** The methods the holding accounts serve now (those linked and active). */
async function servedMethods(deps: CommandDeps): Promise<PaymentType[]> {
  const holding = await checkedState(deps, holdingAccountsStream, holdingAccounts);
  const served = new Set<PaymentType>();
  for (const h of holding.accounts) {
    if (usable(await checkedState(deps, accountStream(h.accountId), account)))
      gatewayMethodsOf(h.providerCode).forEach(m => served.add(m));
  }
  return [...served];
}

/**
 * A payment through the payment gateway, for a merchant whose access is APPROVED (else 403). With a
 * type: billed at once (the fee on the billed amount, raised for the buyer when the merchant chose so) into a holding
 * account serving the method. Without: recorded with no receiving account, and billed when the payer chooses on the
 * payment page (chooseGatewayMethod); at least one method served now must take the amount.
 */
export async function createGatewayPayment(
  deps: CommandDeps,
  request: Omit<PaymentRequest, 'type'>,
  settings: GatewaySettings,
): Promise<Payment> {
  const { ownerId, input } = request;
  const access = await checkedState(deps, userStream(ownerId), gatewayAccess);
  if (access.status !== 'APPROVED')
    throw refuse('GATEWAY_NOT_APPROVED', {
      message: `Gateway access is ${access.status}: it must be APPROVED first (request it in the dashboard)`,
      params: { status: access.status },
    });
  const feeToCustomer = access.feeToCustomer;
  if (input.type !== undefined) {
    const type = gatewayMethodFor(input.type);
    const { amount, fee, highestCode } = gatewayBill(type, input.amount, feeToCustomer, settings);
    const terms = { baseAmount: input.amount, feeToCustomer, fee };
    return intoHoldingAccount(deps, type, request.context, receiver =>
      recordPayment(deps, { ...request, type }, receiver, { terms, amount, highestCode }),
    );
  }
  const methods = await servedMethods(deps);
  if (methods.length === 0) throw noHoldingAccount(null);
  // the payer is offered the methods that take this amount: at least one must
  const refusals = methods.flatMap(method => {
    try {
      gatewayBill(method, input.amount, feeToCustomer, settings);
      return [];
    } catch (err) {
      return [err];
    }
  });
  if (refusals.length === methods.length) throw refusals[0];
  return recordPayment(deps, { ...request, type: null }, null, {
    terms: { baseAmount: input.amount, feeToCustomer, fee: null },
    amount: null,
  });
}
