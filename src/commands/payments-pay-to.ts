import type { CommandDeps } from './deps.ts';
import { randomInt } from 'node:crypto';
import { isPaymentType, paymentMethod } from '../domain/payment-methods.ts';
import { refuse } from '../errors.ts';
import { toDynamicQr } from '../emv-qr.ts';
import { qrisMerchantPan } from '../qris-payload.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { ProviderError, type ProviderSession } from '../providers/connector.ts';
import { account, accountStream, type LinkedAccount } from '../domain/account.ts';
import { handleCommand, type CommandContext } from '../store/commands/handle.ts';
import { providerFailure } from './link-account.ts';
import { renewSession } from './sync-account.ts';

/** A type a payment can have but no longer be created with (src/domain/payment-methods.ts): static QRIS. */
export function refuseRetired(asked: string) {
  if (isPaymentType(asked) && !paymentMethod(asked).creatable)
    throw refuse('PAYMENT_TYPE_NOT_SUPPORTED', {
      message: 'Static QRIS payments can no longer be created: the payer types the amount. Use QRIS-DYNAMIC',
      errors: [{ path: 'body.type', message: 'use QRIS-DYNAMIC' }],
      params: { case: 'retired', type: asked },
    });
}

/**
 * The type asked for, or null when none was: the payer chooses on the page, as the interface says of an omitted type,
 * even where the provider offers one type (the page then bills that one as it opens).
 */
export function typeFor(
  provider: NonNullable<ReturnType<typeof findProvider>>,
  asked: string | undefined,
): PaymentType | null {
  if (asked !== undefined) refuseRetired(asked);
  if (asked === undefined) {
    if (provider.paymentTypes.length === 0)
      throw refuse('PAYMENT_TYPE_NOT_SUPPORTED', {
        message: `${provider.providerCode} accounts cannot receive payments`,
        params: { case: 'no-methods', provider: provider.providerCode },
      });
    return null;
  }
  const type = provider.paymentTypes.find(t => t === asked);
  if (!type)
    throw refuse('PAYMENT_TYPE_NOT_SUPPORTED', {
      message: `Payment type ${asked} is not supported by ${provider.providerCode}${provider.paymentTypes.length ? ` (supported: ${provider.paymentTypes.join(', ')})` : ''}`,
      errors: [{ path: 'body.type', message: 'not supported by the provider' }],
      params: {
        case: 'not-offered',
        type: asked,
        provider: provider.providerCode,
        ...(provider.paymentTypes.length ? { supported: provider.paymentTypes.join(', ') } : {}),
      },
    });
  return type;
}

/**
 * Where the customer pays: the dynamic QRIS, a fresh virtual account, or the wallet's own number (DIRECT). A provider
 * session found expired is renewed where the account can renew it (a service wallet by its phone number), as a sync
 * would; where it cannot, the account becomes inactive, as a sync would make it, and the payment is refused so.
 */
export async function payTo(deps: CommandDeps, linked: LinkedAccount, type: PaymentType, context: CommandContext) {
  if (!linked.session)
    throw refuse('ACCOUNT_INACTIVE', { message: 'The receiving account is inactive: relogin needed' });
  try {
    // opened only when the provider is asked something (decrypting costs; most QRIS payments ask nothing)
    const sealed = linked.session;
    return await askProvider(deps, linked, type, context, () => deps.vault.open<ProviderSession>(sealed));
  } catch (err) {
    if (!(err instanceof ProviderError && err.failure === 'session-expired'))
      throw err instanceof ProviderError ? providerFailure(err) : err;
  }
  const renewed = await renewSession(deps, linked).catch(err => {
    throw err instanceof ProviderError ? providerFailure(err) : err;
  });
  const stream = accountStream(linked.accountId);
  if (!renewed) {
    const expired = await handleCommand(
      deps,
      stream,
      account,
      { type: 'ExpireProviderSession', now: context.now },
      context,
    );
    await deps.readModels.waitFor(expired.position); // the account shows inactive by the time the refusal is read
    throw refuse('ACCOUNT_INACTIVE', {
      message: 'The receiving account is inactive: its provider session expired, relogin needed',
    });
  }
  await handleCommand(
    deps,
    stream,
    account,
    { type: 'RestoreProviderSession', session: deps.vault.seal(renewed), now: context.now },
    context,
  );
  try {
    return await askProvider(deps, linked, type, context, () => renewed);
  } catch (err) {
    throw err instanceof ProviderError ? providerFailure(err) : err;
  }
}

/** Asks the provider for what a payment of `type` needs, if anything; the session is opened only when asked. */
async function askProvider(
  deps: CommandDeps,
  linked: LinkedAccount,
  type: PaymentType,
  context: CommandContext,
  session: () => ProviderSession,
) {
  if (type === 'QRIS-DYNAMIC') {
    let staticQris = linked.staticQris ?? null;
    if (!staticQris) {
      staticQris = await deps.connector.fetchStaticQris(linked.providerCode, linked.accountRef, session());
      await handleCommand(
        deps,
        accountStream(linked.accountId),
        account,
        { type: 'CaptureStaticQris', payload: staticQris, now: context.now },
        context,
      );
    }
    // the payer's app shows the QR's merchant PAN as where the money goes: the payment says the same
    return { staticQris, vaNumber: null, accountNumber: qrisMerchantPan(staticQris) };
  }
  const prefix = paymentMethod(type).va?.prefix; // a virtual account's number: its prefix + 11 random digits
  if (prefix) {
    const vaNumber = `${prefix}${String(randomInt(0, 10 ** 11)).padStart(11, '0')}`;
    await deps.connector.openVirtualAccount(linked.providerCode, linked.accountRef, session(), vaNumber);
    return { staticQris: null, vaNumber, accountNumber: vaNumber };
  }
  return { staticQris: null, vaNumber: null, accountNumber: linked.accountRef }; // DIRECT: a transfer to the wallet
}

/** Where to pay, as payTo answers it. */
export type PayTo = Awaited<ReturnType<typeof payTo>>;

/** The bill of a payment: its payable amount, and where to send it (the dynamic QR carries the amount). */
export function billOf(where: PayTo, payable: { uniqueCode: number; totalAmount: number }) {
  return {
    uniqueCode: payable.uniqueCode,
    totalAmount: payable.totalAmount,
    accountNumber: where.accountNumber,
    qrisPayload: where.staticQris ? toDynamicQr(where.staticQris, payable.totalAmount) : null,
  };
}
