import type { Clock } from '../clock.ts';
import type { Migration } from '../db/migrations.ts';
import type { Logger } from '../logger.ts';
import { legacyReservations } from '../domain/payments-carry-over.ts';
import { payableClaim, payableClaimStream, type ReservedPayable } from '../domain/payments-payable-claims.ts';
import { receivingStream } from '../domain/payments-receiving.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { load, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';

type CarryOverDeps = EventSourcing & { clock: Clock; log: Logger };

/** What a carry-over did: bills claimed on their totals, and lapsed bills whose total a newer claim holds. */
export type CarriedOver = { accounts: number; claimed: number; leftLapsed: number };

/**
 * Moves the unique-code bills reserved on the receiving streams before claims (src/domain/payments-carry-over.ts) to
 * the claims on their totals, where reservations, matching and releases look: each bill, in one append, claims its
 * total as it was reserved (its payment, code, total, expiry and reservation time) and is released from the receiving
 * stream ('carried'). A lapsed bill whose total a newer claim holds is released there without a claim: its payment
 * expires as it would have. The newest bill of an account goes first, so a total reserved twice (the older lapsed)
 * goes to the newer. Idempotent: a bill released already is passed by, a claim holding its payment is not written again.
 */
export async function carryOverLegacyPayables(deps: CarryOverDeps): Promise<CarriedOver> {
  const carried: CarriedOver = { accounts: 0, claimed: 0, leftLapsed: 0 };
  const context: CommandContext = { actor: 'system:payments-carry-over', now: deps.clock.now() };
  for (const streamId of await deps.store.streamIds(receivingStream(''))) {
    const { pending } = (await load(deps, streamId, legacyReservations)).state;
    if (pending.size > 0) carried.accounts++;
    for (const bill of [...pending.values()].reverse()) {
      const claimed = await carryOne(deps, streamId, bill, context);
      if (claimed === true) carried.claimed++;
      if (claimed === false) carried.leftLapsed++;
    }
  }
  return carried;
}

/** One bill carried over: true when its total is claimed for it, false when left lapsed, null when carried already. */
async function carryOne(deps: CarryOverDeps, streamId: string, bill: ReservedPayable, context: CommandContext) {
  const reads = {
    receiving: streamRead(streamId, legacyReservations),
    claim: streamRead(payableClaimStream(bill.accountId, bill.totalAmount), payableClaim),
  };
  const handled = await handleStreams(
    deps,
    reads,
    loaded => {
      const { paymentId } = bill;
      const release = legacyReservations.decide(loaded.receiving.state, {
        type: 'ReleaseCarried',
        paymentId,
        now: context.now,
      });
      if (release.length === 0) return { append: {}, result: null }; // another instance carried it meanwhile
      const claim = payableClaim.decide(loaded.claim.state, { type: 'CarryTotal', reserved: bill });
      // left lapsed for the claim's holder as read: the claim must still be as read when the release is appended
      const guard: 'claim'[] = claim.length > 0 ? [] : ['claim'];
      return { append: { claim, receiving: release }, guard, result: claim.length > 0 };
    },
    context,
  );
  return handled.result;
}

/**
 * The carry-over as a unit of the start-up migrations (src/db/migrations.ts): run once per store, under the
 * migrations' lock, so two instances starting together carry each bill once; a later start finds it recorded.
 */
export const legacyPayablesCarriedOver = (deps: CarryOverDeps): Migration => ({
  name: 'payments:legacy-payables-carried-over',
  version: '1',
  apply: async () => {
    const started = performance.now();
    const carried = await carryOverLegacyPayables(deps);
    // a store that never held such a bill (every store made since claims) has nothing to say at start
    const level = carried.claimed + carried.leftLapsed > 0 ? 'info' : 'debug';
    deps.log[level](
      { ...carried, ms: Math.round(performance.now() - started) },
      `payments: ${carried.claimed + carried.leftLapsed} unique-code bill(s) carried over from the receiving streams to their claims`,
    );
  },
});
