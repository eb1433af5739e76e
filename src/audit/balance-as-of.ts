import type pg from 'pg';
import { account, accountStream } from '../domain/account.ts';
import { gatewayLedger, gatewayLedgerStream, ledgerAccount, merchantBalance } from '../domain/gateway-ledger.ts';
import type { Decider } from '../domain/decider.ts';
import { parseRecorded, type DomainEvent } from '../events/event.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import { bindToCheckpoint, LedgerNotVerified } from './checkpoint-binding.ts';
import { logEvents, streamEvents } from './stream-pages.ts';

/**
 * The state of a stream as it was at `at`: the fold of its events recorded up to that instant (their metadata's
 * occurredAt), stopping at the first one recorded later, so the answer is a state the stream really had.
 */
export async function foldAsOf<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  at: Date,
) {
  const [bound] = await foldAtBounds(store, streamId, decider, [at]);
  return bound!;
}

/** The same, with the log positions of the events it folded, its revisions checked to run up by one from 0. */
async function foldAsOfWithPositions<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  at: Date,
) {
  let state = decider.initialState();
  let revision = -1;
  const folded: Position[] = [];
  for await (const recorded of streamEvents(store, streamId)) {
    if (recorded.revision !== revision + 1)
      throw new LedgerNotVerified(
        `${streamId}: revision ${recorded.revision} follows ${revision}: events were removed from the stream`,
      );
    if (Date.parse(recorded.metadata.occurredAt) > at.getTime()) break;
    const event = parseRecorded(recorded) as unknown as E | null;
    if (event) state = decider.evolve(state, event);
    revision = recorded.revision;
    folded.push(recorded.position);
  }
  return { state, revision, folded };
}

/**
 * The states of a stream at each of `bounds` (ascending) in one read of it, a page at a time; `between` sees each event
 * recorded after the first bound and up to the last (a period's movements), after its state before it.
 */
export async function foldAtBounds<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  bounds: Date[],
  between?: (event: E, before: S) => void,
): Promise<{ state: S; revision: number }[]> {
  const found: { state: S; revision: number }[] = [];
  let state = decider.initialState();
  let revision = -1;
  for await (const recorded of streamEvents(store, streamId)) {
    const at = Date.parse(recorded.metadata.occurredAt);
    while (found.length < bounds.length && at > bounds[found.length]!.getTime()) found.push({ state, revision });
    if (found.length === bounds.length) break;
    const event = parseRecorded(recorded) as unknown as E | null;
    if (event) {
      if (between && found.length > 0) between(event, state);
      state = decider.evolve(state, event);
    }
    revision = recorded.revision;
  }
  while (found.length < bounds.length) found.push({ state, revision });
  return found;
}

/** A stream's events as stored, for a fold that trusts what was validated when they were appended. */
type StoredPostings = { type: string; data: { postings: { account: string; amount: number }[] } };

/**
 * The balances of a ledger stream's accounts at each of `bounds` (ascending), folding only the postings: a period's
 * report needs nothing else of the ledger's state, and a year of a merchant's events folds in a fraction of the time the
 * whole decider takes. Events are taken as stored (their schema was checked when they were appended); `between` sees
 * each event recorded after the first bound and up to the last.
 */
export async function foldPostingsAtBounds<E extends StoredPostings>(
  store: EventStore,
  streamId: string,
  bounds: Date[],
  between?: (event: E) => void,
): Promise<{ balances: Record<string, number>; revision: number }[]> {
  const found: { balances: Record<string, number>; revision: number }[] = [];
  const balances: Record<string, number> = {};
  let revision = -1;
  for await (const recorded of streamEvents(store, streamId)) {
    const at = Date.parse(recorded.metadata.occurredAt);
    while (found.length < bounds.length && at > bounds[found.length]!.getTime())
      found.push({ balances: { ...balances }, revision });
    if (found.length === bounds.length) break;
    const event = { type: recorded.type, data: recorded.data } as E;
    if (Array.isArray(event.data?.postings)) {
      if (between && found.length > 0) between(event);
      for (const p of event.data.postings) balances[p.account] = (balances[p.account] ?? 0) + p.amount;
    }
    revision = recorded.revision;
  }
  while (found.length < bounds.length) found.push({ balances: { ...balances }, revision });
  return found;
}

/** Where a figure is checked against: the service's store and database, and its public key(s) (none: not bound). */
export type BindingDeps = { store: EventStore; pool: pg.Pool; publicKeys: string[] };

const bound = async (deps: BindingDeps, folded: Position[]) =>
  deps.publicKeys.length > 0 ? await bindToCheckpoint(deps, deps.publicKeys, folded) : null;

/**
 * A gateway merchant's balances as the ledger had them at `at` (revision -1: no ledger yet then): its stream folded by
 * when each event was recorded (metadata.occurredAt, not the entries' effective time), and the checkpoint the answer
 * is bound to (checkpoint-binding.ts; throws LedgerNotVerified when the log does not verify up to it).
 */
export async function merchantBalanceAsOf(deps: BindingDeps, merchantId: string, at: Date) {
  const { state, revision, folded } = await foldAsOfWithPositions(
    deps.store,
    gatewayLedgerStream(merchantId),
    gatewayLedger,
    at,
  );
  const checkpoint = await bound(deps, folded);
  return { merchantId, at: at.toISOString(), revision, balance: merchantBalance(state, merchantId), checkpoint };
}

/**
 * A holding account's cash at `at`: the sum of its `holding:<id>` postings over the gateway's ledger streams (a
 * merchant's `gateway-<id>`, suspense, hand transfers, adjustments), each stream as it stood at `at` (its events up to
 * the first recorded later, as a merchant's balance folds its own), read from the whole log in order; debit positive.
 */
export async function holdingCashAsOf(deps: BindingDeps, holdingAccountId: string, at: Date) {
  const account = ledgerAccount.holding(holdingAccountId);
  const stopped = new Set<string>();
  const folded: Position[] = [];
  let cash = 0;
  for await (const recorded of logEvents(deps.store)) {
    if (!recorded.streamId.startsWith('gateway-') || stopped.has(recorded.streamId)) continue;
    if (Date.parse(recorded.metadata.occurredAt) > at.getTime()) {
      stopped.add(recorded.streamId);
      continue;
    }
    const postings = (recorded.data as StoredPostings['data']).postings;
    if (!Array.isArray(postings)) continue;
    const mine = postings.filter(p => p.account === account);
    if (mine.length === 0) continue;
    for (const p of mine) cash += p.amount;
    folded.push(recorded.position);
  }
  const checkpoint = await bound(deps, folded);
  return { holdingAccountId, at: at.toISOString(), cash, postings: folded.length, checkpoint };
}

/** A receiving account's balance as its stream had it at `at`: the last synchronised balance, less transfers since. */
export async function accountBalanceAsOf(store: EventStore, accountId: string, at: Date) {
  const { state, revision } = await foldAsOf(store, accountStream(accountId), account, at);
  return {
    accountId,
    at: at.toISOString(),
    revision,
    balance: state.status === 'linked' ? (state.balance ?? null) : null,
  };
}
