import type pg from 'pg';
import { deterministicUuid } from '../ids.ts';
import { holdingAccounts, holdingAccountsStream } from '../domain/holding-accounts.ts';
import { holdingTransfers, holdingTransfersStream } from '../domain/holding-transfers.ts';
import { normalisedReference } from '../domain/payout-reference.ts';
import { findHoldingCash, gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { debitsLike, holdingTransfersProjection } from '../projections/holding-transfers.ts';
import { load } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { suspense, suspenseStream, type Suspense } from '../domain/gateway-suspense.ts';
import { gatewaySuspenseProjection, openSuspenseLike } from '../projections/gateway-suspense.ts';
import type { CommandDeps } from './deps.ts';
import { spendingCash } from './holding-cash.ts';
import { currentPayoutAccount } from './payout-account.ts';

export type HoldingTransferRequest = {
  fromAccountId: string;
  toAccountId: string;
  amount: number;
  reference: string;
  note?: string | undefined;
};

/** How far back a DEBIT (or a CREDIT in suspense) synchronised before the transfer was recorded is taken as its side. */
const seenBefore = 7 * 24 * 3_600_000;

/**
 * An admin records money they moved by hand from one of the platform's holding accounts to another: booked in the ledger
 * (`holding:<to>` debited, `holding:<from>` credited) on the stream gateway-holding-transfers, no more than the source's
 * ledger cash (409 HOLDING_CASH_SHORT, under the source's lock as a payout), both ends holding accounts marked now or
 * the payout account (400).
 * The id follows from the reference and the two ends, so recording it again records nothing. A DEBIT of the amount
 * already synchronised on the source is taken as its side, and a CREDIT of the amount already in suspense on the
 * destination (the transfer takes it out, in the same append: the cash is counted once); the others are matched as
 * they arrive (payment-matching).
 */
export async function recordHoldingTransfer(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  request: HoldingTransferRequest,
) {
  const { fromAccountId, toAccountId, amount, reference } = request;
  const transferId = deterministicUuid(
    `holding-transfer:${fromAccountId}:${toAccountId}:${normalisedReference(reference)}`,
  );
  return spendingCash(deps, fromAccountId, async () => {
    const now = deps.clock.now();
    const since = new Date(now.getTime() - seenBefore);
    const marked = (await load(deps, holdingAccountsStream, holdingAccounts)).state.accounts;
    const payout = await currentPayoutAccount(deps);
    const command = {
      type: 'RecordHoldingTransfer' as const,
      transferId,
      fromAccountId,
      toAccountId,
      amount,
      reference,
      note: request.note ?? null,
      sourceCash: await findHoldingCash(deps.pool, fromAccountId),
      // the payout account holds the platform's cash too, marked or not
      holdingAccountIds: [...marked.map(a => a.accountId), ...(payout ? [payout.accountId] : [])],
      seen: await debitsLike(deps.pool, fromAccountId, amount, since),
      adminId,
      now,
    };
    const inSuspense = await openSuspenseLike(deps.pool, toAccountId, amount, since);
    const reads = {
      transfers: streamRead(holdingTransfersStream, holdingTransfers),
      suspense: streamRead(suspenseStream, suspense),
    };
    const done = await handleStreams(
      deps,
      reads,
      loaded => {
        const suspenseCredit = oldestOpen(loaded.suspense.state, inSuspense, toAccountId, amount);
        const recorded = holdingTransfers.decide(loaded.transfers.state, { ...command, suspenseCredit });
        const taken = recorded.find(e => e.type === 'HoldingTransferRecorded')?.data.suspenseId;
        const resolved = taken
          ? suspense.decide(loaded.suspense.state, {
              type: 'TransferSuspenseCredit',
              suspenseId: taken,
              transferId,
              adminId,
              now,
            })
          : [];
        return { append: { transfers: recorded, suspense: resolved }, result: null };
      },
      { actor: `admin:${adminId}`, now, correlationId: transferId },
    );
    await deps.readModels.waitFor(done.position, undefined, [
      gatewayLedgerProjection,
      holdingTransfersProjection,
      gatewaySuspenseProjection,
    ]);
    return transferId;
  });
}

/** The oldest of the suspense credits found that is still open as the stream has it, as the destination's side. */
function oldestOpen(
  state: Suspense,
  found: readonly { suspenseId: string; mutationId: string; receivedAt: Date }[],
  accountId: string,
  amount: number,
) {
  const open = found.find(f => state.items[f.suspenseId]?.status === 'OPEN');
  if (!open) return null;
  const mutation = { mutationId: open.mutationId, accountId, side: 'CREDIT' as const, amount };
  return { suspenseId: open.suspenseId, mutation: { ...mutation, occurredAt: open.receivedAt.toISOString() } };
}
