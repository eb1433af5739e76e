import { account, accountStream, type Account, type LinkedAccount } from '../domain/account.ts';
import { deterministicUuid } from '../ids.ts';
import { presentMutation, rowOfMutation } from '../projections/mutation-presenter.ts';
import { publishWebhook, reaction, type Action, type Step, type Stored } from './reaction.ts';
import { readStream } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

/**
 * An event this much older than when the reaction reads it is history, not news: a replay of the log (the reaction's
 * first run on a service that has synchronised for years, or its checkpoint reset) sends nothing for it.
 */
export const newsForMs = 24 * 3_600_000;

/** The failure of a run of failed syncs that says the account stopped syncing: once a run, not at every retry. */
export const syncFailuresReported = 3;

const isNews = (at: string, now: Date) => now.getTime() - Date.parse(at) <= newsForMs;
const accountTypeOf = (a: LinkedAccount) => (a.type === 'ewallet' ? 'wallet' : 'bank');

/** The account an account kind is about, as its payload names it. */
const aboutAccount = (a: LinkedAccount) => ({
  accountId: a.accountId,
  accountType: accountTypeOf(a),
  providerCode: a.providerCode,
});

/** Each new mutation, as GET /api/v1/mutations shows it; its webhook id is the mutation's, recorded once. */
const mutationCreated: Step<Stored<'MutationRecorded'>, Account> = {
  reads: event => readStream(accountStream(event.data.accountId), account),
  decide(event, state, now) {
    const d = event.data;
    if (state.status !== 'linked' || !isNews(d.recordedAt, now)) return [];
    return [
      publishWebhook({
        ownerId: state.ownerId,
        eventId: deterministicUuid(`webhook:${d.mutationId}:mutation.created`),
        type: 'mutation.created',
        createdAt: d.recordedAt,
        data: presentMutation(rowOfMutation(d, state.type)),
        subject: { accountId: d.accountId, mutationType: d.type },
      }),
    ];
  },
};

/** The provider session ended and could not be renewed: the owner must sign in to the provider again. */
const needsRelogin: Step<Stored<'ProviderSessionExpired'>, Account> = {
  reads: event => readStream(accountStream(event.data.accountId), account),
  decide(event, state, now) {
    const d = event.data;
    if (state.status !== 'linked' || !isNews(d.expiredAt, now)) return [];
    return [
      accountWebhook(state, event.metadata.eventId, 'account.needs_relogin', d.expiredAt, {
        reason: 'session-expired',
        at: d.expiredAt,
      }),
    ];
  },
};

/** A run of failed syncs reached `syncFailuresReported`: the account is retried, but has stopped syncing meanwhile. */
const syncFailed: Step<Stored<'AccountSyncFailed'>, Account> = {
  reads: event => readStream(accountStream(event.data.accountId), account),
  decide(event, state, now) {
    const d = event.data;
    if (state.status !== 'linked' || d.consecutiveFailures !== syncFailuresReported || !isNews(d.failedAt, now))
      return [];
    return [
      accountWebhook(state, event.metadata.eventId, 'account.sync_failed', d.failedAt, {
        reason: d.reason,
        at: d.failedAt,
        consecutiveFailures: d.consecutiveFailures,
        retryAt: d.retryAt,
      }),
    ];
  },
};

function accountWebhook(
  state: LinkedAccount,
  causeId: string,
  type: 'account.needs_relogin' | 'account.sync_failed',
  createdAt: string,
  what: Record<string, unknown>,
): Action {
  return publishWebhook({
    ownerId: state.ownerId,
    eventId: deterministicUuid(`webhook:${causeId}:${type}`),
    type,
    createdAt,
    data: { ...aboutAccount(state), ...what },
    subject: { accountId: state.accountId },
  });
}

/**
 * What the dashboard shows of linked accounts, for their owner's endpoints that ask for it by name: `mutation.created`
 * for each new mutation, `account.needs_relogin` when its provider session cannot be renewed, `account.sync_failed`
 * when syncs keep failing. Webhook ids derive from the causing event (the mutation's id for a mutation), so the
 * reaction running twice publishes once; an endpoint's filters choose by the account and the mutation type.
 */
export const accountWebhooks = reaction('account-webhooks', {
  MutationRecorded: mutationCreated,
  ProviderSessionExpired: needsRelogin,
  AccountSyncFailed: syncFailed,
});

/** The reaction as the runner runs it (tests hand it events directly). */
export const accountWebhooksSaga = (deps: ReactionDeps): Saga => sagaOf(accountWebhooks, deps);
