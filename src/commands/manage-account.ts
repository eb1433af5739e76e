import type { CommandDeps } from './deps.ts';
import { refuse } from '../errors.ts';
import { findProvider } from '../providers/catalogue.ts';
import { ProviderError } from '../providers/connector.ts';
import { account, accountStream } from '../domain/account.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { loadOwnedAccount, providerFailure } from './link-account.ts';
import { renewSession, syncAccount, type SyncOutcome } from './sync-account.ts';
import { user, userStream } from '../domain/user.ts';

export type AccountChanges = { accountName?: string; intervalMinutes?: number; username?: string; password?: string };

/** New bank credentials are checked with the bank before they replace the old ones. */
export async function changeAccount(
  deps: CommandDeps,
  ownerId: string,
  accountId: string,
  changes: AccountChanges,
): Promise<void> {
  const state = await loadOwnedAccount(deps, ownerId, accountId);
  let credentials;
  let session;
  if (changes.username !== undefined || changes.password !== undefined) {
    if (state.type !== 'bank' || !state.credentials)
      throw refuse('VALIDATION_ERROR', { message: 'username and password can only be changed on a bank account' });
    const current = deps.vault.open<{ username: string; password: string }>(state.credentials);
    const next = { username: changes.username ?? current.username, password: changes.password ?? current.password };
    try {
      const loggedIn = await deps.connector.loginBank(state.providerCode, { ...next, accountNumber: state.accountRef });
      session = deps.vault.seal(loggedIn.session);
    } catch (err) {
      if (err instanceof ProviderError) throw providerFailure(err);
      throw err;
    }
    credentials = deps.vault.seal(next);
  }
  const result = await handleCommand(
    deps,
    accountStream(accountId),
    account,
    {
      type: 'ChangeAccountSettings',
      ownerId,
      accountName: changes.accountName,
      intervalMinutes: changes.intervalMinutes,
      credentials,
      session,
      now: deps.clock.now(),
    },
    { actor: `user:${ownerId}`, now: deps.clock.now() },
  );
  await deps.readModels.waitFor(result.position);
}

/**
 * Deletes an account and its mutations for good: the audit event (no personal data) goes first, then the
 * account's stream and snapshots are deleted. A crash in between leaves a stream that a repeated DELETE removes.
 */
export async function deleteAccount(deps: CommandDeps, ownerId: string, accountId: string): Promise<void> {
  await loadOwnedAccount(deps, ownerId, accountId);
  const now = deps.clock.now();
  const audit = await handleCommand(
    deps,
    userStream(ownerId),
    user,
    { type: 'RecordAccountDeleted', accountId, now },
    { actor: `user:${ownerId}`, now },
  );
  await deps.store.deleteStream(accountStream(accountId));
  await deps.snapshots?.delete(accountStream(accountId));
  await deps.readModels.waitFor(audit.position);
}

/**
 * A manual sync. An inactive account needs a relogin first: an OTP wallet by its OTP flow; a service wallet linked by
 * its phone number alone (loginFlow 'direct') logs in again here, by that number, and is active again.
 */
export async function refreshAccount(deps: CommandDeps, ownerId: string, accountId: string): Promise<SyncOutcome> {
  const state = await loadOwnedAccount(deps, ownerId, accountId);
  if (!state.isActive && findProvider(state.providerCode)?.loginFlow === 'direct') {
    const renewed = await renewSession(deps, state).catch(err => {
      throw err instanceof ProviderError ? providerFailure(err) : err;
    });
    if (!renewed)
      throw refuse('PROVIDER_LOGIN_FAILED', {
        message: 'The provider refused to log this wallet in again; try again later',
      });
    const now = deps.clock.now();
    await handleCommand(
      deps,
      accountStream(accountId),
      account,
      { type: 'RestoreProviderSession', session: deps.vault.seal(renewed), now },
      { actor: `user:${ownerId}`, now },
    );
  } else if (!state.isActive)
    throw refuse('ACCOUNT_INACTIVE', { message: 'Account inactive: the provider session expired, relogin needed' });
  const outcome = await syncAccount(deps, accountId, null, { waitForReadModels: true });
  if (outcome === 'session-expired')
    throw refuse('ACCOUNT_INACTIVE', { message: 'Account inactive: the provider session expired, relogin needed' });
  if (outcome === 'failed') throw refuse('PROVIDER_UNAVAILABLE');
  if (outcome === 'paused') throw refuse('NOT_ENOUGH_POINTS', { message: 'Not enough points to synchronise' });
  return outcome;
}
