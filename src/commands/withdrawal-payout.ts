import type pg from 'pg';
import { DomainError, refuse } from '../errors.ts';
import { deterministicUuid } from '../ids.ts';
import { findGatewayWithdrawal } from '../projections/gateway-ledger.ts';
import { gatewayLedger, gatewayLedgerStream } from '../domain/gateway-ledger.ts';
import { payWithdrawal } from './gateway-withdrawals.ts';
import { spendingCash } from './holding-cash.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { bankOf, currentPayoutAccount } from './payout-account.ts';
import { createBankTransfer, initBankTransfer, listTransferBanks, transferAccount } from './send-transfer.ts';
import type { SyncDeps } from './sync-account.ts';
import { transfer, transferStream } from '../domain/transfer.ts';
import { withdrawalPayout, withdrawalPayoutStream } from '../domain/withdrawal-payout.ts';
import { withdrawalPayoutsProjection } from '../projections/withdrawal-payouts.ts';

/**
 * Records that the payout's transfer is about to be sent, while the withdrawal is still requested: a rejection writes
 * the same payout stream, so of the two at once one is appended and the other decides again and is refused.
 */
async function startPayout(
  deps: SyncDeps,
  p: { withdrawalId: string; merchantId: string; transferId: string; accountId: string; adminId: string },
) {
  const now = deps.clock.now();
  const reads = {
    ledger: streamRead(gatewayLedgerStream(p.merchantId), gatewayLedger),
    payout: streamRead(withdrawalPayoutStream(p.withdrawalId), withdrawalPayout),
  };
  await handleStreams(
    deps,
    reads,
    loaded => {
      const status = loaded.ledger.state.withdrawals[p.withdrawalId]?.status;
      if (status !== 'REQUESTED')
        throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: `The withdrawal is ${status ?? 'unknown'} already` });
      return {
        append: { payout: withdrawalPayout.decide(loaded.payout.state, { type: 'StartPayout', ...p, now }) },
        guard: ['ledger'],
        result: null,
      };
    },
    { actor: `admin:${p.adminId}`, now, correlationId: p.withdrawalId },
  );
}

/** The first payout's transfer is the withdrawal's own id (a repeat pays once); after a failure that moved nothing, another. */
export const payoutTransferId = (withdrawalId: string, failures: number) =>
  failures === 0 ? withdrawalId : deterministicUuid(`withdrawal-payout:${withdrawalId}:${failures}`);

/**
 * An admin pays a requested withdrawal (not their own) from the platform's WALLET-A payout account: bank-init and
 * bank-create to its destination, then the withdrawal paid with the transfer's id as its reference (claimed as any).
 * Refused or failed: recorded, the withdrawal stays requested, 502. Unconfirmed: likewise; paying again asks that
 * same transfer's outcome, so the money moves at most once (the transfer-outcomes saga does not pay it by itself).
 */
export async function payOutWithdrawal(deps: SyncDeps & { pool: pg.Pool }, adminId: string, withdrawalId: string) {
  const row = await findGatewayWithdrawal(deps.pool, withdrawalId);
  if (!row) throw refuse('WITHDRAWAL_NOT_FOUND');
  const ledger = (await load(deps, gatewayLedgerStream(row.merchant_id), gatewayLedger)).state;
  const withdrawal = ledger.withdrawals[withdrawalId];
  if (!withdrawal) throw refuse('WITHDRAWAL_NOT_FOUND');
  const { failures } = (await load(deps, withdrawalPayoutStream(withdrawalId), withdrawalPayout)).state;
  const transferId = payoutTransferId(withdrawalId, failures);
  // paid already by this very transfer (a twin request won the race): the same answer, nothing moves again
  if (withdrawal.status === 'PAID' && row.reference === transferId) return transferId;
  // the ledger's refusals before any money moves: not requested any more, or the admin's own withdrawal
  if (withdrawal.status !== 'REQUESTED')
    throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: `The withdrawal is ${withdrawal.status} already` });
  if (withdrawal.requestedBy === adminId) throw refuse('WITHDRAWAL_OWN_PAYOUT');
  const payout = await currentPayoutAccount(deps);
  if (!payout) throw refuse('PAYOUT_ACCOUNT_NOT_SET');

  const failed = async (outcome: 'FAILED' | 'UNCONFIRMED', reason: string) => {
    const now = deps.clock.now();
    const command = {
      type: 'RecordPayoutFailure' as const,
      withdrawalId,
      merchantId: row.merchant_id,
      transferId,
      outcome,
      reason,
      attempt: failures,
      adminId,
      now,
    };
    const done = await handleCommand(deps, withdrawalPayoutStream(withdrawalId), withdrawalPayout, command, {
      actor: `admin:${adminId}`,
      now,
      correlationId: withdrawalId,
    });
    await deps.readModels.waitFor(done.position, undefined, [withdrawalPayoutsProjection]);
    return refuse(outcome === 'FAILED' ? 'WITHDRAWAL_PAYOUT_FAILED' : 'WITHDRAWAL_PAYOUT_UNCONFIRMED', {
      message: `Payout through WALLET-A: ${reason}; the withdrawal stays requested`,
      params: { reason },
    });
  };

  const begun = (await load(deps, transferStream(transferId), transfer)).state;
  // a transfer begun already goes on from the account it began on, even if the payout account changed since
  const { ownerId, accountId } = begun.status === 'NONE' ? payout : begun;
  /** The transfer (begun now, or asked again) and the payout recorded with its id as the reference. */
  const payOut = async (fresh: boolean) => {
    try {
      if (fresh) {
        await listTransferBanks(deps, ownerId, accountId); // the provider's failures as bank-init reports them
        const bank = await bankOf(deps, await transferAccount(deps, ownerId, accountId), row.bank_code);
        const init = { ...bank, accountNumber: row.account_number, amount: withdrawal.amount };
        // a twin request may have validated and sent it meanwhile (its hold then lowers the balance init checks)
        await initBankTransfer(deps, ownerId, accountId, init, transferId).catch(async (err: unknown) => {
          if ((await load(deps, transferStream(transferId), transfer)).state.status === 'NONE') throw err;
        });
      }
      await createBankTransfer(deps, ownerId, accountId, {
        bankAccountIndexNo: transferId,
        amount: withdrawal.amount,
        idempotencyKey: withdrawalId,
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      throw await failed(err.code === 'TRANSFER_UNCONFIRMED' ? 'UNCONFIRMED' : 'FAILED', err.message);
    }
    try {
      await payWithdrawal(deps, adminId, withdrawalId, transferId, { holdingAccountId: accountId, checked: true });
    } catch (err) {
      const now = await findGatewayWithdrawal(deps.pool, withdrawalId);
      if (!(
        err instanceof DomainError &&
        err.code === 'WITHDRAWAL_NOT_REQUESTED' &&
        now?.status === 'PAID' &&
        now.reference === transferId
      ))
        throw err;
    }
    return transferId;
  };
  // one payout or refund at a time per account: the cash checked, the money moved and the payout recorded under one lock
  return spendingCash(deps, accountId, async cash => {
    // as it is now that this payout has the account: a twin may have paid it meanwhile
    const sent = (await load(deps, transferStream(transferId), transfer)).state;
    if (sent.status === 'NONE') {
      const now = (await load(deps, gatewayLedgerStream(row.merchant_id), gatewayLedger)).state.withdrawals[
        withdrawalId
      ];
      if (now?.status !== 'REQUESTED')
        throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: `The withdrawal is ${now?.status ?? 'unknown'} already` });
      // refusals, not failed payouts: the ledger's cash in the payout account must cover it, and no rejection came first
      await cash.cover(withdrawal.amount);
      await startPayout(deps, { withdrawalId, merchantId: row.merchant_id, transferId, accountId, adminId });
    }
    return payOut(sent.status === 'NONE');
  });
}
