import { uuidv7 } from '../ids.ts';
import { refuse } from '../errors.ts';
import { findGatewayWithdrawal } from '../projections/gateway-ledger.ts';
import { WrongExpectedRevision } from '../store/event-store.ts';
import type { Queryable } from '../db/pool.ts';
import type { CommandDeps } from './deps.ts';
import { gatewayLedger, gatewayLedgerStream, type GatewayLedgerCommand } from './gateway-ledger.ts';
import { handleCommand } from './handle.ts';

export type WithdrawalRequest = { amount: number; bankCode: string; accountNumber: string; accountHolderName: string };

// requests of one merchant from several processes race on one stream: more attempts than the default before a 409
const attempts = 10;

/**
 * Runs a ledger command; a stream still contended after every attempt answers 409 (the client may try again). Answers
 * once the ledger's read model shows the decision: whoever asked reads the balances and the withdrawal next.
 */
async function onLedger(deps: CommandDeps, command: GatewayLedgerCommand, actor: string) {
  let done;
  try {
    done = await handleCommand(deps, gatewayLedgerStream(command.merchantId), gatewayLedger, command, {
      actor, now: command.now, correlationId: 'withdrawalId' in command ? command.withdrawalId : undefined, attempts,
    });
  } catch (err) {
    if (err instanceof WrongExpectedRevision) throw refuse('CONFLICT', { message: 'The balance changed meanwhile; try again' });
    throw err;
  }
  await deps.readModels.waitFor(done.position, undefined, ['gateway-ledger']);
  return done;
}

/**
 * A merchant asks for a payout of part of their available balance: at least `minWithdrawal`, at most what is available
 * (the ledger's decision, kept true under concurrent requests by the stream's expected revision).
 */
export async function requestWithdrawal(
  deps: CommandDeps,
  merchantId: string,
  request: WithdrawalRequest,
  minWithdrawal: number,
) {
  const withdrawalId = uuidv7();
  const handled = await onLedger(deps, { type: 'RequestWithdrawal', merchantId, withdrawalId, ...request, requestedBy: merchantId, minWithdrawal, now: deps.clock.now() }, `user:${merchantId}`);
  return { id: withdrawalId, handled };
}

/** The merchant of a withdrawal, from the read model (it only names the stream; the ledger decides). Unknown: 404. */
async function merchantOf(db: Queryable, withdrawalId: string): Promise<string> {
  const row = await findGatewayWithdrawal(db, withdrawalId);
  if (!row) throw refuse('WITHDRAWAL_NOT_FOUND');
  return row.merchant_id;
}

/** An admin records that they transferred a requested withdrawal (never their own). */
export async function payWithdrawal(deps: CommandDeps & { pool: Queryable }, adminId: string, withdrawalId: string, reference: string) {
  const merchantId = await merchantOf(deps.pool, withdrawalId);
  return onLedger(deps, { type: 'PayWithdrawal', merchantId, withdrawalId, reference, paidBy: adminId, now: deps.clock.now() }, `admin:${adminId}`);
}

/** An admin refuses a requested withdrawal: its amount is available again. */
export async function rejectWithdrawal(deps: CommandDeps & { pool: Queryable }, adminId: string, withdrawalId: string, note: string) {
  const merchantId = await merchantOf(deps.pool, withdrawalId);
  return onLedger(deps, { type: 'RejectWithdrawal', merchantId, withdrawalId, note, rejectedBy: adminId, now: deps.clock.now() }, `admin:${adminId}`);
}
