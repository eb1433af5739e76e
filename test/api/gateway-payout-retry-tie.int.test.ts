import { describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { caughtUp, clockTo as movedClock, synced, walletASignedInAgain } from '../support/finance.ts';
import {
  expectDayTied,
  markedWallets,
  monthEndWorld,
  paidPayment,
  requestedWithdrawal,
  rowOf,
} from '../support/month-end.ts';
import { sandboxOf } from '../support/sandbox.ts';

/**
 * A payout through WALLET-A that fails, then is paid by a retry, tied to the bank at every cut-off, over HTTP with the
 * test clock (September 2026, WIB):
 * - Mon 7 Sep: both wallets marked (their openings), a virtual-account payment, settled at Tuesday's cutoff;
 * - Tue 8 Sep 10:00: a withdrawal paid through WALLET-A, the provider debits and gives the money back (its first
 *   transfer FAILED: a DEBIT and a CREDIT of the same reference);
 * - Wed 9 Sep 23:59:50: paid again, a new transfer, debited but unconfirmed: not booked, in flight at Wednesday's end;
 * - Thu 10 Sep 00:10: paid again, the provider confirms it: booked when its money left, Wednesday 23:59:50.
 * Each day ties before, between and after: the failed attempt nets to zero, the retry's DEBIT is the payout in flight.
 */
const w = monthEndWorld('2026-09-07T08:00:00+07:00');
const clockTo = (at: string) => movedClock(w.service, at, { settle: true });
const days = ['2026-09-07', '2026-09-08', '2026-09-09', '2026-09-10'];
const amount = 100_000;
let withdrawalId = '';

/** The withdrawal paid through WALLET-A now, the sandbox's `fault` on this transfer only. */
async function pay(fault: Record<string, number> = {}) {
  await sandboxOf(w.service).faults({ providerCode: 'WALLET-A', ...fault });
  const paid = await w.admin
    .session('POST', `/api/admin/gateway/withdrawals/${withdrawalId}/pay`)
    .finally(() => sandboxOf(w.service).clearFaults());
  await caughtUp(w.service);
  return paid;
}

/** What the transfer-outcomes job learnt of the transfers left unconfirmed (as it asks on its own, on its clock). */
async function outcomesAsked() {
  await w.service.transferOutcomes.tick();
  await caughtUp(w.service);
}

/** The mutations of a transfer on WALLET-A, in order: its DEBIT, and the CREDIT that gave it back. */
async function movesOf(transferId: string) {
  const r = await query<{ type: string; amount: number }>(
    w.service.pool,
    'TestTransferMoves',
    'select type, amount::int from mutations where account_id = $1 and reference = $2 order by created_at, type desc',
    [w.va.accountId, transferId],
  );
  return r.rows;
}

const payoutItems = async (day: string) => rowOf(await expectDayTied(w, day), w.va).items;

describe('a payout retried after a failure, tied to the bank', () => {
  it('the failed transfer given back nets to zero: every day ties', async () => {
    await markedWallets(w);
    await clockTo('2026-09-07T10:00:00+07:00');
    await paidPayment(w, 'VA-BANK1', 300_000);
    await clockTo('2026-09-08T00:00:05+07:00');
    await w.service.gatewaySettlement.tick();
    await caughtUp(w.service);

    await clockTo('2026-09-08T10:00:00+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va);
    withdrawalId = await requestedWithdrawal(w, amount);
    const unknown = await pay({ transferFailAfterAccept: 1 });
    expect(unknown.json(), unknown.body).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_UNCONFIRMED' });
    await clockTo('2026-09-08T10:05:00+07:00');
    await outcomesAsked();
    const failed = await pay();
    expect(failed.json(), failed.body).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_FAILED' });
    await synced(w.service, w.admin, w.va);
    expect(await movesOf(withdrawalId)).toEqual([
      { type: 'DEBIT', amount },
      { type: 'CREDIT', amount },
    ]);
    for (const day of days.slice(0, 2)) expect(await payoutItems(day), day).toEqual([]);
  });

  it("the retry's DEBIT before Wednesday's end, not booked yet: the payout in flight, of the amount moved", async () => {
    await clockTo('2026-09-09T23:59:50+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va);
    const unknown = await pay({ transferTimeout: 1 });
    expect(unknown.json(), unknown.body).toMatchObject({ code: 'WITHDRAWAL_PAYOUT_UNCONFIRMED' });
    await clockTo('2026-09-10T00:05:00+07:00');
    await synced(w.service, w.admin, w.va);
    const [retry] = (await w.admin.session('GET', '/api/admin/gateway/withdrawals')).json().data;
    expect(retry).toMatchObject({ id: withdrawalId, payoutFailure: { outcome: 'UNCONFIRMED' } });
    expect(retry.payoutFailure.transferId).not.toBe(withdrawalId); // a new transfer, its DEBIT under its own id
    expect(await movesOf(retry.payoutFailure.transferId)).toEqual([{ type: 'DEBIT', amount }]);
    expect(await payoutItems('2026-09-09')).toEqual([
      expect.objectContaining({
        kind: 'PAYOUT_IN_FLIGHT',
        amount: -amount,
        reference: withdrawalId,
        seenAt: '2026-09-09T16:59:50.000Z',
        bookedAt: null,
      }),
    ]);
    for (const day of ['2026-09-07', '2026-09-08']) expect(await payoutItems(day), day).toEqual([]);
  });

  it('confirmed and booked when its money left: every day ties, nothing left in flight', async () => {
    await clockTo('2026-09-10T00:10:00+07:00');
    await outcomesAsked();
    const paid = await pay();
    expect(paid.statusCode, paid.body).toBe(200);
    await synced(w.service, w.admin, w.va);
    for (const day of days) expect(await payoutItems(day), day).toEqual([]);
    const wednesday = await expectDayTied(w, '2026-09-09');
    expect(wednesday.payouts).toMatchObject([{ withdrawalId, amount }]);
  });
});
