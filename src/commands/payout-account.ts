import { refuse } from '../errors.ts';
import { ProviderError, type BankEntry, type ProviderSession } from '../providers/connector.ts';
import { account, accountStream } from '../domain/account.ts';
import { checkedState } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { transferAccount } from './send-transfer.ts';
import type { LinkedAccount } from '../domain/account.ts';
import type { CommandDeps } from './deps.ts';
import { payoutAccountStream, payoutAccount, type ChoosePayoutAccount } from '../domain/payout-account.ts';

/** An admin makes one of their own linked WALLET-A accounts the payout account (another's or unknown: 404). */
export async function choosePayoutAccount(deps: CommandDeps, adminId: string, accountId: string) {
  const now = deps.clock.now();
  const reads = {
    account: streamRead(accountStream(accountId), account),
    payout: streamRead(payoutAccountStream, payoutAccount),
  };
  return handleStreams(
    deps,
    reads,
    loaded => {
      const linked = loaded.account.state;
      if (linked.status !== 'linked' || linked.ownerId !== adminId) throw refuse('ACCOUNT_NOT_FOUND');
      if (linked.providerCode !== 'WALLET-A')
        throw refuse('TRANSFER_NOT_SUPPORTED', {
          message: `Payouts go through WALLET-A accounts, not ${linked.providerCode}`,
        });
      return {
        append: {
          payout: payoutAccount.decide(loaded.payout.state, {
            type: 'ChoosePayoutAccount',
            accountId,
            ownerId: adminId,
            adminId,
            now,
          }),
        },
        guard: ['account'],
        result: null,
      };
    },
    { actor: `admin:${adminId}`, now },
  );
}

export const currentPayoutAccount = (deps: CommandDeps) => checkedState(deps, payoutAccountStream, payoutAccount);

/** The provider's entry for a withdrawal's bank code (BCA or 014); an unknown bank is an invalid destination. */
export async function bankOf(deps: CommandDeps, linked: LinkedAccount, bankCode: string): Promise<BankEntry> {
  const code = bankCode.trim().toUpperCase();
  const banks = await deps.connector.listBanks(linked.providerCode, linked.accountRef, sessionOf(deps, linked));
  const bank = banks.find(b => b.instLocalName.toUpperCase() === code || b.instId === code);
  if (!bank)
    throw refuse('WITHDRAWAL_DESTINATION_INVALID', {
      message: `The provider knows no bank ${bankCode}`,
      errors: [{ path: 'body.bankCode', message: 'unknown bank' }],
    });
  return bank;
}

const sessionOf = (deps: CommandDeps, linked: LinkedAccount) => deps.vault.open<ProviderSession>(linked.session!);

export type DestinationCheck = { holderName: string | null; destinationChecked: boolean };

/**
 * A withdrawal's destination asked of the provider through the payout account (the inquiry bank-init makes): the
 * holder's name, or 400 when refused. No payout account, or an inactive one: not checked, and said so.
 */
export async function checkDestination(
  deps: CommandDeps,
  destination: { bankCode: string; accountNumber: string },
): Promise<DestinationCheck> {
  const payout = await currentPayoutAccount(deps);
  if (!payout) return { holderName: null, destinationChecked: false };
  const linked = await transferAccount(deps, payout.ownerId, payout.accountId).catch(() => null);
  // an expired session must not stop merchants asking for their money: the payout checks the destination again
  if (!linked) return { holderName: null, destinationChecked: false };
  try {
    const bank = await bankOf(deps, linked, destination.bankCode);
    const { accountName } = await deps.connector.inquireBankAccount(
      linked.providerCode,
      linked.accountRef,
      sessionOf(deps, linked),
      { ...bank, accountNumber: destination.accountNumber },
    );
    return { holderName: accountName, destinationChecked: true };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    // the payout account needs a relogin: as when it is inactive, not checked now (the payout asks again)
    if (err.failure === 'session-expired') return { holderName: null, destinationChecked: false };
    if (err.failure === 'unavailable')
      throw refuse('PROVIDER_UNAVAILABLE', { message: `The destination could not be checked: ${err.message}` });
    throw refuse('WITHDRAWAL_DESTINATION_INVALID', {
      message: `The destination was refused: ${err.message}`,
      errors: [{ path: 'body.accountNumber', message: err.message }],
    });
  }
}
