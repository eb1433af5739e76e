import { randomUUID } from 'node:crypto';
import { DomainError, refuse } from '../errors.ts';
import { pointsToLinkAccount, prepaidSyncMs } from '../plans.ts';
import { findProvider, type Provider } from '../providers/catalogue.ts';
import { ProviderError, type LoggedIn } from '../providers/connector.ts';
import type { Position } from '../store/event-store.ts';
import { account, accountStream, type LinkAccount } from '../domain/account.ts';
import { load, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import type { CommandDeps } from './deps.ts';
import { notEnoughPoints, user, userStream } from '../domain/user.ts';

export type NewAccount = {
  type: 'bank' | 'ewallet';
  providerCode: string;
  accountName: string;
  intervalMinutes: number;
  accountNumber?: string;
  username?: string;
  password?: string;
  phoneNumber?: string;
  pin?: string;
};

export type LinkOutcome = { kind: 'linked'; accountId: string } | { kind: 'special-flow'; provider: Provider };

const missing = (field: string) =>
  refuse('VALIDATION_ERROR', { message: `${field} is required`, errors: [{ path: field, message: 'required' }] });

export function providerFailure(err: ProviderError): DomainError {
  if (err.failure === 'invalid-credentials') return refuse('PROVIDER_LOGIN_FAILED');
  if (err.failure === 'unavailable') return refuse('PROVIDER_UNAVAILABLE');
  return refuse('PROVIDER_REJECTED', { message: `The provider refused the request: ${err.message}` });
}

/**
 * Links an account. Banks are validated by logging in; WALLET-A is created inactive (its OTP flow activates it);
 * WALLET-B and WALLET-C are linked only through their OTP flows; the other wallets link by phone number.
 */
export async function linkAccount(deps: CommandDeps, ownerId: string, input: NewAccount): Promise<LinkOutcome> {
  const provider = findProvider(input.providerCode);
  if (!provider) throw refuse('PROVIDER_NOT_FOUND');
  if (provider.type !== input.type)
    throw refuse('VALIDATION_ERROR', {
      message: `${input.providerCode} is a ${provider.type} provider`,
      errors: [{ path: 'type', message: `must be ${provider.type}` }],
    });
  if (provider.type === 'bank') {
    if (!input.accountNumber) throw missing('accountNumber');
    if (!input.username) throw missing('username');
    if (!input.password) throw missing('password');
  } else {
    if (!input.phoneNumber) throw missing('phoneNumber');
    if (provider.providerCode === 'WALLET-A' && !input.pin) throw missing('pin');
  }
  if (provider.providerCode === 'WALLET-B' || provider.providerCode === 'WALLET-C')
    return { kind: 'special-flow', provider };

  await ensurePointsToLink(deps, ownerId, input.intervalMinutes);

  let loggedIn: LoggedIn | null = null;
  try {
    if (provider.type === 'bank')
      loggedIn = await deps.connector.loginBank(provider.providerCode, {
        username: input.username!,
        password: input.password!,
        accountNumber: input.accountNumber!,
      });
    else if (provider.loginFlow === 'direct')
      loggedIn = await deps.connector.loginDirect(provider.providerCode, { phoneNumber: input.phoneNumber! });
  } catch (err) {
    if (err instanceof ProviderError) throw providerFailure(err);
    throw err;
  }

  const accountId = randomUUID();
  const credentials =
    provider.type === 'bank'
      ? deps.vault.seal({ username: input.username, password: input.password })
      : input.pin
        ? deps.vault.seal({ pin: input.pin })
        : null;
  const position = await recordLinkedAccount(
    deps,
    {
      type: 'LinkAccount',
      accountId,
      ownerId,
      accountType: provider.type,
      providerCode: provider.providerCode,
      accountName: input.accountName,
      accountNumber: provider.type === 'bank' ? input.accountNumber! : null,
      phoneNumber: provider.type === 'ewallet' ? input.phoneNumber! : null,
      holderName: loggedIn?.holderName ?? null,
      intervalMinutes: input.intervalMinutes,
      credentials,
      session: loggedIn ? deps.vault.seal(loggedIn.session) : null,
      isActive: loggedIn !== null,
      now: deps.clock.now(),
    },
    { actor: `user:${ownerId}`, now: deps.clock.now() },
    'refuse',
  );
  await deps.readModels.waitFor(position);
  return { kind: 'linked', accountId };
}

/**
 * Records a new account and takes its creation's points (a day of its syncs, pointsToLinkAccount) from its owner, in
 * one append over both streams: the points pay for its scheduled syncs of the first 24 hours. Short of points, a
 * direct link is refused ('refuse'); an OTP login already completed at the provider links the account all the same,
 * with nothing prepaid, so each of its syncs pays ('link-unpaid'). A link applied again changes nothing.
 */
export async function recordLinkedAccount(
  deps: EventSourcing,
  link: Omit<LinkAccount, 'syncsPaidUntil'>,
  context: CommandContext,
  whenShort: 'refuse' | 'link-unpaid',
): Promise<Position | null> {
  const needed = pointsToLinkAccount(link.intervalMinutes);
  const { position } = await handleStreams(
    deps,
    {
      owner: streamRead(userStream(link.ownerId), user),
      account: streamRead(accountStream(link.accountId), account),
    },
    loaded => {
      if (loaded.account.state.status !== 'none') return { append: {}, result: null }; // linked already
      const owner = loaded.owner.state;
      const available = owner.registered ? owner.points : 0;
      if (available < needed && whenShort === 'refuse') throw notEnoughPoints(needed, available);
      const paid = available >= needed;
      const debit = paid
        ? user.decide(owner, {
            type: 'DebitPoints',
            points: needed,
            accountId: link.accountId,
            reason: 'account-creation',
          })
        : [];
      const syncsPaidUntil = paid ? new Date(link.now.getTime() + prepaidSyncMs) : null;
      return {
        append: { owner: debit, account: account.decide(loaded.account.state, { ...link, syncsPaidUntil }) },
        result: null,
      };
    },
    context,
  );
  return position;
}

/** Linking an account needs a day of its syncs in points (checked before the provider is asked; taken as it is linked). */
export async function ensurePointsToLink(deps: CommandDeps, ownerId: string, intervalMinutes: number): Promise<void> {
  const needed = pointsToLinkAccount(intervalMinutes);
  const owner = await load(deps, userStream(ownerId), user);
  const available = owner.state.registered ? owner.state.points : 0;
  if (available < needed) throw notEnoughPoints(needed, available);
}

/** Only the owner sees an account: any other id, or another owner's, is not found. */
export async function loadOwnedAccount(deps: CommandDeps, ownerId: string, accountId: string) {
  const loaded = await load(deps, accountStream(accountId), account);
  if (loaded.state.status !== 'linked' || loaded.state.ownerId !== ownerId) throw refuse('ACCOUNT_NOT_FOUND');
  return loaded.state;
}
