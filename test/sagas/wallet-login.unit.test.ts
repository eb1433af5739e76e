import { describe, it } from 'vitest';
import { walletLoginStream } from '../../src/domain/wallet-login.ts';
import { WalletLoginCompleted } from '../../src/events/wallet-login.ts';
import { applyWalletLogin } from '../../src/sagas/calls.ts';
import { call, followUp, log } from '../../src/sagas/reaction.ts';
import { applied, walletLogins } from '../../src/sagas/wallet-login.ts';
import { reactionSpecification, stepSpecification, stored, t0 } from './reaction-specification.ts';

const sessionId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const ownerId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const accountId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const sealed = { iv: 'iv', tag: 'tag', data: 'data' };
const completed = WalletLoginCompleted({
  sessionId,
  ownerId,
  providerCode: 'WALLET-C',
  phoneNumber: '081200000000',
  purpose: { kind: 'new', providerCode: 'WALLET-C', accountName: 'C', intervalMinutes: 60 },
  accountId,
  pin: null,
  providerSession: sealed,
  holderName: 'SITI',
  completedAt: '2026-03-02T02:59:00.000Z',
});
const at = { streamId: walletLoginStream(sessionId), revision: 1 };

describe('wallet login reaction', () => {
  const { given } = reactionSpecification(walletLogins);

  it('links or reactivates the account of a completed login, caused by the completion (without derived event ids)', () =>
    given([])
      .when(stored(completed, at))
      .then([
        call(
          applyWalletLogin(completed.data, {
            actor: 'system:wallet-login',
            now: t0,
            correlationId: sessionId,
            causationId: `${at.streamId}@1`,
          }),
          followUp(applied, { sessionId }),
        ),
      ]));

  it('says in the log that the account was deleted meanwhile, and nothing when it was linked or reactivated', () => {
    const { given: givenApplied } = stepSpecification(applied);
    givenApplied([])
      .when({ sessionId, outcome: 'account-gone' })
      .then([log({ sessionId }, 'wallet login completed for a deleted account')]);
    givenApplied([]).when({ sessionId, outcome: null }).then([]);
    givenApplied([])
      .when({ sessionId, outcome: { commit: 10n, prepare: 10n } })
      .then([]);
  });
});
