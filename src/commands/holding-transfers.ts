import type pg from 'pg';
import { deterministicUuid } from '../ids.ts';
import { holdingAccounts, holdingAccountsStream } from '../domain/holding-accounts.ts';
import { holdingTransfers, holdingTransfersStream } from '../domain/holding-transfers.ts';
import { normalisedReference } from '../domain/payout-reference.ts';
import { findHoldingCash, gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { debitsLike, holdingTransfersProjection } from '../projections/holding-transfers.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
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

/** How far back a DEBIT synchronised before the transfer was recorded is taken as its source's side. */
const seenBefore = 7 * 24 * 3_600_000;

/**
 * An admin records money they moved by hand from one of the platform's holding accounts to another: booked in the ledger
 * (`holding:<to>` debited, `holding:<from>` credited) on the stream gateway-holding-transfers, no more than the source's
 * ledger cash (409 HOLDING_CASH_SHORT, under the source's lock as a payout), both ends holding accounts marked now or
 * the payout account (400).
 * The id follows from the reference and the two ends, so recording it again records nothing. A DEBIT of the amount
 * already synchronised on the source is taken as its side; the others are matched as they arrive (payment-matching).
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
      seen: await debitsLike(deps.pool, fromAccountId, amount, new Date(now.getTime() - seenBefore)),
      adminId,
      now,
    };
    const done = await handleCommand(deps, holdingTransfersStream, holdingTransfers, command, {
      actor: `admin:${adminId}`,
      now,
      correlationId: transferId,
    });
    await deps.readModels.waitFor(done.position, undefined, [gatewayLedgerProjection, holdingTransfersProjection]);
    return transferId;
  });
}
