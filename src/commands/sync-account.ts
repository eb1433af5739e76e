import { pointsPerSync } from '../plans.ts';
import { findProvider } from '../providers/catalogue.ts';
import { ProviderError, type ProviderSession, type ProviderTransaction } from '../providers/connector.ts';
import { deterministicUuid } from '../ids.ts';
import { account, accountStream, mutationIdOf, type LinkedAccount } from '../domain/account.ts';
import type { CommandDeps } from './deps.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { user, userStream } from '../domain/user.ts';
import { DomainError } from '../errors.ts';

export type SyncOutcome = 'synced' | 'skipped' | 'paused' | 'session-expired' | 'failed';

/** A failed sync is retried sooner than its interval: 1, 2, 4, 8... minutes, never later than the interval. */
export function retryDelayMinutes(consecutiveFailures: number, intervalMinutes: number): number {
  return Math.min(2 ** Math.min(consecutiveFailures - 1, 20), intervalMinutes);
}

const maxPages = 50;

async function fetchAll(deps: CommandDeps, a: LinkedAccount, session: ProviderSession) {
  const balance = await deps.connector.fetchBalance(a.providerCode, a.accountRef, session);
  const transactions: ProviderTransaction[] = [];
  let after = a.cursor;
  for (let page = 0; page < maxPages; page++) {
    const result = await deps.connector.fetchTransactions(a.providerCode, a.accountRef, session, after);
    transactions.push(...result.transactions);
    if (!result.hasMore || result.transactions.length === 0) break;
    after = result.transactions[result.transactions.length - 1]!.id;
  }
  return { balance, transactions };
}

/**
 * A bank session is renewed with the stored credentials, a service wallet's by its phone number; an OTP wallet
 * needs its owner's OTP (relogin), so it answers null.
 */
export async function renewSession(deps: CommandDeps, a: LinkedAccount): Promise<ProviderSession | null> {
  try {
    if (a.type === 'bank' && a.credentials) {
      const { username, password } = deps.vault.open<{ username: string; password: string }>(a.credentials);
      return (await deps.connector.loginBank(a.providerCode, { username, password, accountNumber: a.accountRef }))
        .session;
    }
    if (findProvider(a.providerCode)?.loginFlow === 'direct')
      return (await deps.connector.loginDirect(a.providerCode, { phoneNumber: a.accountRef })).session;
    return null;
  } catch (err) {
    if (err instanceof ProviderError && err.failure === 'invalid-credentials') return null;
    throw err;
  }
}

/** One sync under way: the account it reads and how it records what it finds. */
type Sync = {
  deps: CommandDeps;
  accountId: string;
  stream: string;
  state: LinkedAccount;
  actor: { actor: string; now: Date };
  options: { waitForReadModels?: boolean; paymentCheck?: boolean };
};

type Fetched = Awaited<ReturnType<typeof fetchAll>>;

/**
 * Synchronises one account: balance and new transactions, once per slot whatever runs it. A scheduled sync
 * (a slot) costs a point, but in the first 24 hours, which the account's creation paid for; a manual refresh (slot
 * null) costs a point; a payment check (pending payments asked for it) costs
 * nothing and moves no schedule. Provider sessions that cannot be renewed mark the account inactive; other failures
 * are recorded and retried with backoff.
 */
export async function syncAccount(
  deps: CommandDeps,
  accountId: string,
  slot: string | null,
  options: { waitForReadModels?: boolean; paymentCheck?: boolean } = {},
): Promise<SyncOutcome> {
  const stream = accountStream(accountId);
  const { state } = await load(deps, stream, account);
  if (state.status !== 'linked' || !state.isActive) return 'skipped';
  // the account's creation paid for its scheduled syncs of the first 24 hours
  const prepaid =
    slot !== null && !!state.syncsPaidUntil && deps.clock.now().getTime() < Date.parse(state.syncsPaidUntil);
  const charged = !options.paymentCheck && !prepaid;
  if (slot !== null && state.lastSlot !== null && slot <= state.lastSlot) return 'skipped';
  const sync: Sync = {
    deps,
    accountId,
    stream,
    state,
    actor: { actor: 'system:account-sync', now: deps.clock.now() },
    options,
  };
  const owner = await load(deps, userStream(state.ownerId), user);
  if (charged && (!owner.state.registered || owner.state.points < pointsPerSync)) return pauseSync(sync);

  const fetched = await fetchOrRecordFailure(sync);
  if (typeof fetched === 'string') return fetched;
  const chargeKey = slot ?? `manual:${deps.clock.now().toISOString()}`;
  if (charged && !(await chargePoints(sync, chargeKey))) return pauseSync(sync);
  if (fetched.renewed) await restoreSession(sync, fetched.renewed);
  return recordSync(sync, slot, fetched);
}

/** The owner has not the points for this sync: the schedule pauses until they buy more. */
async function pauseSync({ deps, stream, actor }: Sync): Promise<'paused'> {
  await handleCommand(
    deps,
    stream,
    account,
    { type: 'PauseSync', reason: 'not-enough-points', now: deps.clock.now() },
    actor,
  );
  return 'paused';
}

/**
 * Fetches with the stored session, renewing it once when the provider says it expired. A provider failure is
 * recorded (retried with backoff) and answers 'failed'; a session that cannot be renewed answers 'session-expired'.
 */
async function fetchOrRecordFailure(
  sync: Sync,
): Promise<(Fetched & { renewed: ProviderSession | null }) | 'failed' | 'session-expired'> {
  try {
    return await fetchRenewing(sync);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    const { deps, accountId, stream, state, actor } = sync;
    deps.log.warn({ accountId, failure: err.failure }, 'account sync failed');
    const now = deps.clock.now();
    await handleCommand(
      deps,
      stream,
      account,
      {
        type: 'RecordSyncFailure',
        reason: err.failure,
        now,
        retryAt: n => new Date(now.getTime() + retryDelayMinutes(n, state.intervalMinutes) * 60_000),
      },
      actor,
    );
    return 'failed';
  }
}

async function fetchRenewing(sync: Sync): Promise<(Fetched & { renewed: ProviderSession | null }) | 'session-expired'> {
  const { deps, stream, state, actor, options } = sync;
  const session = state.session ? deps.vault.open<ProviderSession>(state.session) : null;
  try {
    if (!session) throw new ProviderError('session-expired', 'no provider session');
    return { ...(await fetchAll(deps, state, session)), renewed: null };
  } catch (err) {
    if (!(err instanceof ProviderError && err.failure === 'session-expired')) throw err;
    const renewed = await renewSession(deps, state);
    if (!renewed) {
      const expired = await handleCommand(
        deps,
        stream,
        account,
        { type: 'ExpireProviderSession', now: deps.clock.now() },
        actor,
      );
      if (options.waitForReadModels) await deps.readModels.waitFor(expired.position);
      return 'session-expired';
    }
    return { ...(await fetchAll(deps, state, renewed)), renewed };
  }
}

/** Debits the sync's point, once per slot (or manual refresh); false when the owner has not enough points. */
async function chargePoints({ deps, accountId, state, actor }: Sync, chargeKey: string): Promise<boolean> {
  try {
    await handleCommand(
      deps,
      userStream(state.ownerId),
      user,
      { type: 'DebitPoints', points: pointsPerSync, accountId, reason: 'account-sync' },
      {
        ...actor,
        eventId: () => deterministicUuid(`points:${accountId}:${chargeKey}`),
      },
    );
    return true;
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'NOT_ENOUGH_POINTS')) throw err;
    return false;
  }
}

async function restoreSession({ deps, stream, actor }: Sync, renewed: ProviderSession): Promise<void> {
  await handleCommand(
    deps,
    stream,
    account,
    { type: 'RestoreProviderSession', session: deps.vault.seal(renewed), now: deps.clock.now() },
    actor,
  );
}

/** Records the balance and the new transactions; a mutation is appended once, even by two syncs racing on a page. */
async function recordSync(sync: Sync, slot: string | null, fetched: Fetched): Promise<SyncOutcome> {
  const { deps, accountId, stream, actor, options } = sync;
  const result = await handleCommand(
    deps,
    stream,
    account,
    {
      type: 'RecordSync',
      slot,
      trigger: slot !== null ? 'schedule' : options.paymentCheck ? 'payment-check' : 'refresh',
      balance: fetched.balance,
      transactions: fetched.transactions.map(t => ({ ...t, mutationId: mutationIdOf(accountId, t.id) })),
      now: deps.clock.now(),
    },
    {
      ...actor,
      eventId: (_i, e) =>
        e.type === 'MutationRecorded'
          ? deterministicUuid(`event:${(e.data as { mutationId: string }).mutationId}`)
          : undefined,
    },
  );
  // a manual refresh answers with the synced account; a scheduled job need not hold its worker until then
  if (options.waitForReadModels) await deps.readModels.waitFor(result.position);
  return result.events.length > 0 ? 'synced' : 'skipped';
}
