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
import type { CommandDeps } from './deps.ts';
import { transfer, transferStream } from '../domain/transfer.ts';
import { withdrawalPayout, withdrawalPayoutStream } from '../domain/withdrawal-payout.ts';
import { withdrawalPayoutsProjection } from '../projections/withdrawal-payouts.ts';
import { findMutationTime } from '../projections/mutations.ts';
import { checkedHolder } from '../domain/holder-name.ts';
import { account, accountStream } from '../domain/account.ts';
import { holdingAccounts, holdingAccountsStream } from '../domain/holding-accounts.ts';

/**
 * Records that the payout's transfer is about to be sent, while the withdrawal is still requested: a rejection writes
 * the same payout stream, so of the two at once one is appended and the other decides again and is refused.
 */
async function startPayout(
  deps: CommandDeps,
  p: {
    withdrawalId: string;
    merchantId: string;
    transferId: string;
    accountId: string;
    adminId: string;
    holderOverride?: { reason: string } | undefined;
  },
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
 * The WALLET-A account a payout goes through: the payout account, or another WALLET-A account the admin chose among the
 * holding accounts (its owner's provider session sends it). Another account: 400; an unknown one: 404.
 */
async function payingAccount(
  deps: CommandDeps,
  named: string | undefined,
): Promise<{ ownerId: string; accountId: string }> {
  const payout = await currentPayoutAccount(deps);
  if (named === undefined || named === payout?.accountId) {
    if (!payout) throw refuse('PAYOUT_ACCOUNT_NOT_SET');
    return payout;
  }
  const linked = (await load(deps, accountStream(named), account)).state;
  if (linked.status !== 'linked') throw refuse('ACCOUNT_NOT_FOUND');
  const marked = (await load(deps, holdingAccountsStream, holdingAccounts)).state.accounts;
  if (linked.providerCode !== 'WALLET-A' || !marked.some(a => a.accountId === named))
    throw refuse('TRANSFER_NOT_SUPPORTED', {
      message: 'A payout goes through the payout account or a WALLET-A holding account',
    });
  return { ownerId: linked.ownerId, accountId: named };
}

/**
 * When a completed transfer's money left the account: the provider's time of its DEBIT mutation, as synchronised
 * (undefined: not known yet, the payout is booked when recorded, seconds later).
 */
async function transferTime(deps: CommandDeps & { pool: pg.Pool }, transferId: string): Promise<Date | undefined> {
  const sent = (await load(deps, transferStream(transferId), transfer)).state;
  if (sent.status !== 'COMPLETED' || !sent.mutationId) return undefined;
  return (await findMutationTime(deps.pool, sent.mutationId)) ?? undefined;
}

/** How an admin pays out: from which WALLET-A account (absent: the payout account), and why despite a holder mismatch. */
export type PayOutOptions = { holdingAccountId?: string | undefined; holderOverride?: { reason: string } | undefined };

/**
 * An admin pays a requested withdrawal (not their own) from the platform's WALLET-A payout account: bank-init and
 * bank-create to its destination, then the withdrawal paid with the transfer's id as its reference (claimed as any).
 * Refused or failed: recorded, the withdrawal stays requested, 502. Unconfirmed: likewise; paying again asks that
 * same transfer's outcome, so the money moves at most once (the transfer-outcomes saga does not pay it by itself).
 * The holder the bank names (at the request, and again at bank-init) must be the requested one before bank-create, or
 * the admin overrides with a reason (409 WITHDRAWAL_HOLDER_MISMATCH otherwise, nothing sent).
 */
export async function payOutWithdrawal(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  withdrawalId: string,
  options: PayOutOptions = {},
) {
  const p = await payoutOf(deps, adminId, withdrawalId, options);
  if (typeof p === 'string') return p;
  const { row, withdrawal, transferId, accountId } = p;
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
      await startPayout(deps, {
        withdrawalId,
        merchantId: row.merchant_id,
        transferId,
        accountId,
        adminId,
        holderOverride: options.holderOverride,
      });
    }
    return payOut(p, sent.status === 'NONE');
  });
}

type WithdrawalRow = NonNullable<Awaited<ReturnType<typeof findGatewayWithdrawal>>>;
type LedgerWithdrawal = NonNullable<ReturnType<(typeof gatewayLedger)['evolve']>['withdrawals'][string]>;

/** One payout under way: the withdrawal, the transfer that pays it and the account it goes through. */
type Payout = {
  deps: CommandDeps & { pool: pg.Pool };
  adminId: string;
  withdrawalId: string;
  row: WithdrawalRow;
  withdrawal: LedgerWithdrawal;
  failures: number;
  transferId: string;
  override: { reason: string; by: string } | undefined;
  ownerId: string;
  accountId: string;
};

/**
 * The payout to make, after the ledger's refusals before any money moves; the transfer's id when this very transfer
 * paid it already (a twin request won the race: the same answer, nothing moves again).
 */
async function payoutOf(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  withdrawalId: string,
  options: PayOutOptions,
): Promise<Payout | string> {
  const row = await findGatewayWithdrawal(deps.pool, withdrawalId);
  if (!row) throw refuse('WITHDRAWAL_NOT_FOUND');
  const ledger = (await load(deps, gatewayLedgerStream(row.merchant_id), gatewayLedger)).state;
  const withdrawal = ledger.withdrawals[withdrawalId];
  if (!withdrawal) throw refuse('WITHDRAWAL_NOT_FOUND');
  const { failures, holderOverride: sentWith } = (
    await load(deps, withdrawalPayoutStream(withdrawalId), withdrawalPayout)
  ).state;
  const transferId = payoutTransferId(withdrawalId, failures);
  if (withdrawal.status === 'PAID' && row.reference === transferId) return transferId;
  // the ledger's refusals before any money moves: not requested any more, or the admin's own withdrawal
  if (withdrawal.status !== 'REQUESTED')
    throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: `The withdrawal is ${withdrawal.status} already` });
  if (withdrawal.requestedBy === adminId) throw refuse('WITHDRAWAL_OWN_PAYOUT');
  const { holderOverride } = options;
  // a transfer in flight goes on with the override it began with
  const override = holderOverride ? { reason: holderOverride.reason, by: adminId } : (sentWith ?? undefined);
  // the request's answer first: a holder the bank named otherwise then is not even validated again without an override
  checkedHolder(withdrawal.holder.asked, withdrawal.holder.answered, override);
  const payout = await payingAccount(deps, options.holdingAccountId);
  const begun = (await load(deps, transferStream(transferId), transfer)).state;
  // a transfer begun already goes on from the account it began on, even if the payout account changed since
  const { ownerId, accountId } = begun.status === 'NONE' ? payout : begun;
  return { deps, adminId, withdrawalId, row, withdrawal, failures, transferId, override, ownerId, accountId };
}

/** Records a payout that failed or went unconfirmed (the withdrawal stays requested) and answers its 502. */
async function failed(p: Payout, outcome: 'FAILED' | 'UNCONFIRMED', reason: string) {
  const { deps, withdrawalId, adminId } = p;
  const now = deps.clock.now();
  const command = {
    type: 'RecordPayoutFailure' as const,
    withdrawalId,
    merchantId: p.row.merchant_id,
    transferId: p.transferId,
    outcome,
    reason,
    attempt: p.failures,
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
}

/** A holder mismatch found at bank-init: this payout failed moving nothing (the next is a new transfer), refused 409. */
async function heldBack(p: Payout, check: () => unknown) {
  try {
    check();
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'WITHDRAWAL_HOLDER_MISMATCH') throw err;
    await failed(p, 'FAILED', err.message);
    throw err;
  }
}

/** The transfer (begun now, or asked again) and the payout recorded with its id as the reference. */
async function payOut(p: Payout, fresh: boolean): Promise<string> {
  const holderName = await sendPayoutTransfer(p, fresh);
  const { deps, adminId, withdrawalId, transferId } = p;
  try {
    // the override it was sent with (this request's, or the one the transfer began with when asked again)
    await payWithdrawal(deps, adminId, withdrawalId, transferId, {
      holdingAccountId: p.accountId,
      checked: true,
      holderName,
      holderOverride: p.override,
      transferredAt: await transferTime(deps, transferId),
    });
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
}

/**
 * Bank-init (when fresh) and bank-create of the payout's transfer; answers the holder bank-init named. A provider's
 * refusal or silence is recorded as a failed or unconfirmed payout.
 */
async function sendPayoutTransfer(p: Payout, fresh: boolean): Promise<string | undefined> {
  const { deps, ownerId, accountId, row, withdrawal, transferId } = p;
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
    const validated = (await load(deps, transferStream(transferId), transfer)).state;
    const holderName = 'destination' in validated ? validated.destination?.accountName : undefined;
    // before bank-create: the holder bank-init named must be the one asked for (interface, transfers rule 3)
    if (validated.status === 'VALIDATED' && holderName !== undefined)
      await heldBack(p, () => checkedHolder(withdrawal.holder.asked, holderName, p.override));
    await createBankTransfer(deps, ownerId, accountId, {
      bankAccountIndexNo: transferId,
      amount: withdrawal.amount,
      idempotencyKey: p.withdrawalId,
    });
    return holderName;
  } catch (err) {
    if (!(err instanceof DomainError) || err.code === 'WITHDRAWAL_HOLDER_MISMATCH') throw err;
    throw await failed(p, err.code === 'TRANSFER_UNCONFIRMED' ? 'UNCONFIRMED' : 'FAILED', err.message);
  }
}
