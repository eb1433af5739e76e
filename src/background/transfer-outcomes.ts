import { load, type CommandContext } from '../store/commands/handle.ts';
import { account, accountStream } from '../domain/account.ts';
import { settleTransfer, transferWording } from '../commands/send-transfer.ts';
import type { CommandDeps } from '../commands/deps.ts';
import { transfer, transferStream } from '../domain/transfer.ts';
import { openTransfers } from '../projections/transfers.ts';
import { ProviderError, type ProviderSession } from '../providers/connector.ts';
import type pg from 'pg';
import { onTheClock, type OnTheClock } from './on-the-clock.ts';

/** A submitted transfer not answered for this long is asked about (its process stopped before recording the answer). */
const staleAfterMs = 60_000;
/** The provider never heard of a transfer this long after it was sent: it did not happen, the debit is given back. */
const unknownAfterMs = 5 * 60_000;

/**
 * Not a reaction (src/sagas/reaction.ts): the clock drives it and the provider's answer, asked for each tick, decides;
 * no event says when to ask.
 *
 * The transfers whose outcome is unknown: every tick each is asked about at the provider by our
 * reference until it says. Done: completed (an unconfirmed one keeps the debit it had). Failed, or never heard of
 * after a while: an unconfirmed one's debit is given back as a CREDIT mutation; a submitted one's hold is released.
 */
export function startTransferOutcomes(
  deps: CommandDeps & { pool: pg.Pool },
  options: { tickMs?: number } = {},
): OnTheClock {
  const resolve = async () => {
    const now = deps.clock.now();
    let resolved = 0;
    for (const open of await openTransfers(deps.pool, new Date(now.getTime() - staleAfterMs), 100)) {
      const state = (await load(deps, transferStream(open.id), transfer)).state;
      if (state.status !== 'SUBMITTED' && state.status !== 'UNCONFIRMED') continue;
      const linked = (await load(deps, accountStream(open.account_id), account)).state;
      if (linked.status !== 'linked' || !linked.session) continue; // asked again once the wallet is logged in
      const context: CommandContext = { actor: 'system:transfer-outcomes', now, correlationId: open.id };
      let answer;
      try {
        answer = await deps.connector.transferStatus(
          linked.providerCode,
          linked.accountRef,
          deps.vault.open<ProviderSession>(linked.session),
          open.id,
        );
      } catch (err) {
        if (err instanceof ProviderError) continue; // asked again next tick
        throw err;
      }
      const { description, counterparty } = transferWording(state);
      if (answer.status === 'SUCCESS') {
        await settleTransfer(
          deps,
          open.id,
          open.account_id,
          { outcome: 'done', transactionId: answer.transactionId, description, counterparty, amount: state.amount },
          context,
        );
      } else if (answer.status === 'FAILED' || now.getTime() - Date.parse(state.submittedAt) > unknownAfterMs) {
        const reason = answer.status === 'FAILED' ? answer.reason : 'the provider has no record of it';
        await settleTransfer(
          deps,
          open.id,
          open.account_id,
          state.status === 'UNCONFIRMED'
            ? { outcome: 'failed-after-debit', reason, amount: state.amount }
            : { outcome: 'refused', reason },
          context,
        );
      } else continue;
      resolved++;
    }
    return resolved;
  };
  return onTheClock(resolve, options.tickMs ?? 5000, deps.log, 'transfer outcomes tick');
}
