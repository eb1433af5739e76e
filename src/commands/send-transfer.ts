import type { CommandDeps } from './deps.ts';
import { randomUUID } from 'node:crypto';
import { refuse } from '../errors.ts';
import { deterministicUuid, requestFingerprint } from '../ids.ts';
import { ProviderError, type BankEntry, type ProviderSession, type TransferReceipt } from '../providers/connector.ts';
import { account, accountStream, availableBalance, type LinkedAccount } from '../domain/account.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { checkedState, handleCommand, load, type CommandContext } from '../store/commands/handle.ts';
import { decideSettlement, type TransferOutcome } from '../domain/transfer-settlement.ts';
import { transfer, transferStream, type BankDestinationChecked, type Transfer } from '../domain/transfer.ts';
import { accountsProjection } from '../projections/accounts.ts';
import { mutationsProjection } from '../projections/mutations.ts';
import { transfersProjection } from '../projections/transfers.ts';

/** A bankAccountIndexNo lives this long. */
export const bankIndexLifetimeMs = 15 * 60_000;

/** What the interface's Limits table allows: a QR transfer from 1 rupiah, a bank transfer from 10,000; at most 10,000,000. */
export const transferLimits = { qrisMin: 1, bankMin: 10_000, max: 10_000_000 };

/** The caller's WALLET-A account with a provider session: another owner's or an unknown one 404, another provider 400. */
export async function transferAccount(deps: CommandDeps, ownerId: string, accountId: string): Promise<LinkedAccount> {
  const stream = accountStream(accountId);
  const state = await checkedState(deps, stream, account);
  if (state.status !== 'linked' || state.ownerId !== ownerId) throw refuse('ACCOUNT_NOT_FOUND');
  if (state.providerCode !== 'WALLET-A')
    throw refuse('TRANSFER_NOT_SUPPORTED', {
      message: `Transfers can be made only from WALLET-A accounts, not ${state.providerCode}`,
    });
  if (!state.isActive || !state.session)
    throw refuse('ACCOUNT_INACTIVE', { message: 'The wallet is inactive: relogin needed' });
  return state;
}

const sessionOf = (deps: CommandDeps, linked: LinkedAccount) => deps.vault.open<ProviderSession>(linked.session!);

/** The banks a transfer can go to; a provider failure is a 400. */
export async function listTransferBanks(deps: CommandDeps, ownerId: string, accountId: string): Promise<BankEntry[]> {
  const linked = await transferAccount(deps, ownerId, accountId);
  try {
    return await deps.connector.listBanks(linked.providerCode, linked.accountRef, sessionOf(deps, linked));
  } catch (err) {
    if (err instanceof ProviderError)
      throw refuse('BANK_LIST_FAILED', { message: `Fetching the bank list failed: ${err.message}` });
    throw err;
  }
}

export type BankInit = {
  accountNumber: string;
  amount: number;
  instId: string;
  instLocalName: string;
  payMethod: string;
  payOption: string;
};

/**
 * bank-init: the destination checked with the provider (its holder's name answered), recorded as a transfer whose id is
 * the bankAccountIndexNo, bound to the account, the bank, the number and the amount, alive 15 minutes. A withdrawal's
 * payout names the transfer itself (a repeat validates nothing new).
 */
export async function initBankTransfer(
  deps: CommandDeps,
  ownerId: string,
  accountId: string,
  input: BankInit,
  transferId: string = randomUUID(),
) {
  const linked = await transferAccount(deps, ownerId, accountId);
  const available = availableBalance(linked);
  if (input.amount > available)
    throw refuse('BALANCE_INSUFFICIENT', {
      message: `Balance insufficient: ${input.amount} needed, ${available} available`,
    });
  let accountName: string;
  try {
    ({ accountName } = await deps.connector.inquireBankAccount(
      linked.providerCode,
      linked.accountRef,
      sessionOf(deps, linked),
      input,
    ));
  } catch (err) {
    if (err instanceof ProviderError)
      throw refuse('BANK_ACCOUNT_VALIDATION_FAILED', { message: `Account validation failed: ${err.message}` });
    throw err;
  }
  const now = deps.clock.now();
  const { instId, instLocalName, payMethod, payOption, accountNumber } = input;
  await handleCommand(
    deps,
    transferStream(transferId),
    transfer,
    {
      type: 'ValidateBankTransfer',
      transferId,
      accountId,
      ownerId,
      destination: { instId, instLocalName, payMethod, payOption, accountNumber, accountName },
      amount: input.amount,
      expiresAt: new Date(now.getTime() + bankIndexLifetimeMs),
      now,
    },
    { actor: `user:${ownerId}`, now, correlationId: transferId },
  );
  return { bankAccountIndexNo: transferId, accountName };
}

/** How a transfer's mutations read on the wallet, and to whom the money went: the bank account's holder, or the QR's merchant. */
export function transferWording(t: {
  kind: 'bank' | 'qris';
  destination: BankDestinationChecked | null;
  qris: { merchantName: string } | null;
}) {
  if (t.kind === 'qris')
    return {
      description: `Pembayaran QRIS ke ${t.qris?.merchantName ?? ''}`,
      counterparty: t.qris?.merchantName ?? '',
    };
  return {
    description: `Transfer ke ${t.destination?.instLocalName ?? ''} ${t.destination?.accountNumber ?? ''}`,
    counterparty: t.destination?.accountName ?? '',
  };
}

/** What the caller is told of a transfer that ended (or is in flight), asked again with the same Idempotency-Key. */
function outcomeOf(state: Transfer, message: string): string {
  if (state.status === 'COMPLETED') return message;
  if (state.status === 'FAILED')
    throw refuse('TRANSFER_FAILED', {
      message: `Transfer failed: ${state.reason ?? 'refused by the provider'}; nothing was debited`,
    });
  throw refuse('TRANSFER_UNCONFIRMED');
}

/** How long a twin request (same Idempotency-Key) waits for the first one's answer from the provider, and how often it looks. */
const twinWait = { totalMs: 30_000, everyMs: 50 };

/**
 * The transfer a twin request found already submitted: while the first request is still asking the provider, the
 * twin waits for its outcome (in this process or another: read from the store), so both answer alike. Still in flight
 * after the wait (the first request's process died): unconfirmed, as it is until the provider is asked again.
 */
async function settledTwin(deps: CommandDeps, transferId: string, found: Transfer): Promise<Transfer> {
  let state = found;
  for (let waited = 0; state.status === 'SUBMITTED' && waited < twinWait.totalMs; waited += twinWait.everyMs) {
    await new Promise(resolve => setTimeout(resolve, twinWait.everyMs));
    state = (await load(deps, transferStream(transferId), transfer)).state;
  }
  return state;
}

type Sending = {
  transferId: string;
  ownerId: string;
  accountId: string;
  kind: 'bank' | 'qris';
  amount: number;
  qris: { merchantName: string; payload: string; tip: number } | null;
  requestHash: string | null;
  /** how the DEBIT mutation reads, and to whom it went */
  description: string;
  counterparty: string;
  /** what the caller is told when it went through */
  message: string;
  send(linked: LinkedAccount, session: ProviderSession): Promise<TransferReceipt>;
};

/** In one append the transfer is submitted and its amount held on the wallet; false for the same request again. */
async function submitAndHold(deps: CommandDeps, s: Sending, now: Date, context: CommandContext) {
  const reads = {
    transfer: streamRead(transferStream(s.transferId), transfer),
    account: streamRead(accountStream(s.accountId), account),
  };
  const { kind, transferId, accountId, ownerId, amount, qris, requestHash } = s;
  return handleStreams(
    deps,
    reads,
    loaded => {
      const sent = transfer.decide(loaded.transfer.state, {
        type: 'SubmitTransfer',
        transferId,
        accountId,
        ownerId,
        kind,
        amount,
        qris,
        requestHash,
        now,
      });
      if (sent.length === 0) return { append: {}, result: false }; // the same request again
      const held = account.decide(loaded.account.state, { type: 'HoldForTransfer', transferId, ownerId, amount, now });
      return { append: { transfer: sent, account: held }, result: true };
    },
    context,
  );
}

/**
 * Sends a transfer, moving money once: (1) in one append the transfer is submitted (a bank transfer's index used) and
 * its amount held on the wallet (refused beyond the balance, also under concurrent transfers); (2) the provider is asked,
 * by our reference; (3) accepted: the hold becomes a debit with its DEBIT mutation, at once; refused: the hold is
 * released, nothing was debited (500 TRANSFER_FAILED); no answer: the amount stays debited and the transfer
 * unconfirmed (500 TRANSFER_UNCONFIRMED) until the provider says what became of it (src/background/transfer-outcomes.ts).
 */
async function sendTransfer(deps: CommandDeps, s: Sending): Promise<string> {
  const linked = await transferAccount(deps, s.ownerId, s.accountId);
  const now = deps.clock.now();
  const context: CommandContext = { actor: `user:${s.ownerId}`, now, correlationId: s.transferId };
  const submitted = await submitAndHold(deps, s, now, context);
  if (!submitted.result) return outcomeOf(await settledTwin(deps, s.transferId, submitted.states.transfer), s.message);
  const { transferId, accountId, amount } = s;

  let receipt: TransferReceipt;
  try {
    receipt = await s.send(linked, sessionOf(deps, linked));
  } catch (err) {
    if (err instanceof ProviderError && err.failure !== 'unavailable') {
      await settleTransfer(deps, transferId, accountId, { outcome: 'refused', reason: err.message }, context);
      // the provider's balance was lower than ours (a sync not yet seen): the interface's 400, nothing debited
      if (err.failure === 'insufficient-balance')
        throw refuse('BALANCE_INSUFFICIENT', { message: `Balance insufficient at the provider: ${err.message}` });
      throw refuse('TRANSFER_FAILED', { message: `Transfer failed: ${err.message}; nothing was debited` });
    }
    // a timeout, an outage, anything else: the provider may have done it
    await settleTransfer(
      deps,
      transferId,
      accountId,
      {
        outcome: 'unknown',
        reason: err instanceof Error ? err.message : String(err),
        description: s.description,
        counterparty: s.counterparty,
        amount,
      },
      context,
    );
    throw refuse('TRANSFER_UNCONFIRMED');
  }
  await settleTransfer(
    deps,
    transferId,
    accountId,
    {
      outcome: 'done',
      transactionId: receipt.transactionId,
      description: s.description,
      counterparty: s.counterparty,
      amount,
    },
    context,
  );
  return s.message;
}

/**
 * Records what became of a submitted transfer, on the transfer and the wallet together, as decideSettlement
 * (src/domain/transfer-settlement.ts) decides it. The read models show it when this returns.
 */
export async function settleTransfer(
  deps: CommandDeps,
  transferId: string,
  accountId: string,
  o: TransferOutcome,
  context: CommandContext,
) {
  const now = deps.clock.now();
  const reads = {
    transfer: streamRead(transferStream(transferId), transfer),
    account: streamRead(accountStream(accountId), account),
  };
  const done = await handleStreams(
    deps,
    reads,
    loaded => ({
      append: decideSettlement(
        { transfer: loaded.transfer.state, account: loaded.account.state },
        { transferId, accountId, outcome: o, now },
      ),
      result: null,
    }),
    { ...context, now },
  );
  await deps.readModels.waitFor(done.position, undefined, [
    accountsProjection,
    mutationsProjection,
    transfersProjection,
  ]);
  return done;
}

/** bank-create: the validated transfer sent, its amount debited at once, never twice (the index is used once). */
export async function createBankTransfer(
  deps: CommandDeps,
  ownerId: string,
  accountId: string,
  input: { bankAccountIndexNo: string; amount: number; idempotencyKey?: string | undefined },
): Promise<string> {
  const stream = transferStream(input.bankAccountIndexNo);
  const validated = (await load(deps, stream, transfer)).state;
  const destination = validated.status === 'NONE' ? null : validated.destination;
  if (!destination || validated.status === 'NONE' || validated.accountId !== accountId || validated.ownerId !== ownerId)
    throw refuse('BANK_ACCOUNT_INDEX_INVALID', {
      errors: [{ path: 'body.bankAccountIndexNo', message: 'unknown for this account' }],
    });
  const requestHash = input.idempotencyKey
    ? requestFingerprint([input.idempotencyKey, accountId, input.bankAccountIndexNo, input.amount])
    : null;
  return sendTransfer(deps, {
    transferId: input.bankAccountIndexNo,
    ownerId,
    accountId,
    kind: 'bank',
    amount: input.amount,
    qris: null,
    requestHash,
    ...transferWording({ kind: 'bank', destination, qris: null }),
    message: `Transfer Rp ${input.amount.toLocaleString('id-ID')} ke ${destination.accountName} (${destination.instLocalName} ${destination.accountNumber}) berhasil`,
    send: (linked, session) =>
      deps.connector.transferToBank(linked.providerCode, linked.accountRef, session, {
        reference: input.bankAccountIndexNo,
        instId: destination.instId,
        instLocalName: destination.instLocalName,
        accountNumber: destination.accountNumber,
        amount: input.amount,
      }),
  });
}

/** qris-create: the QR's merchant paid from the wallet (the amount with any tip), debited at once. */
export async function createQrisTransfer(
  deps: CommandDeps,
  ownerId: string,
  accountId: string,
  input: {
    payload: string;
    merchantName: string;
    amount: number;
    tip: number;
    message: string;
    idempotencyKey?: string | undefined;
  },
): Promise<string> {
  const transferId = input.idempotencyKey
    ? deterministicUuid(`transfer:${ownerId}:${input.idempotencyKey}`)
    : randomUUID();
  const requestHash = input.idempotencyKey ? requestFingerprint([accountId, input.payload, input.amount]) : null;
  return sendTransfer(deps, {
    transferId,
    ownerId,
    accountId,
    kind: 'qris',
    amount: input.amount,
    qris: { merchantName: input.merchantName, payload: input.payload, tip: input.tip },
    requestHash,
    ...transferWording({ kind: 'qris', destination: null, qris: input }),
    message: input.message,
    send: (linked, session) =>
      deps.connector.payQris(linked.providerCode, linked.accountRef, session, {
        reference: transferId,
        qris: input.payload,
        amount: input.amount,
      }),
  });
}
