import { refuse } from '../errors.ts';
import { LedgerIntegrityReset, type LedgerIntegrityEvent } from '../events/ledger-integrity.ts';
import type { Decider } from './decider.ts';

/** The one stream of the operator's resets of the ledger's start-up check. */
export const ledgerIntegrityStream = 'ledger-integrity';

export type ResetLedgerIntegrity = {
  type: 'ResetLedgerIntegrity';
  resetId: string;
  reason: string;
  /** what the start-up check finds now, every one of which the reset accepts */
  findings: string[];
  continuesFrom: { seq: number; hash: string } | null;
  resetBy: string;
  now: Date;
};

export const ledgerIntegrity: Decider<{ resets: number }, ResetLedgerIntegrity, LedgerIntegrityEvent> = {
  initialState: () => ({ resets: 0 }),
  evolve: state => ({ resets: state.resets + 1 }),
  decide(_state, command) {
    const reason = command.reason.trim();
    if (reason === '')
      throw refuse('VALIDATION_ERROR', {
        message: 'A reset says why: --reason "..."',
        errors: [{ path: 'reason', message: 'must not be blank' }],
      });
    if (command.findings.length === 0)
      throw refuse('VALIDATION_ERROR', {
        message: "The ledger's start-up check finds nothing: there is nothing to reset",
        errors: [{ path: 'findings', message: 'must not be empty' }],
      });
    return [
      LedgerIntegrityReset({
        resetId: command.resetId,
        reason,
        findings: command.findings,
        continuesFrom: command.continuesFrom,
        resetBy: command.resetBy,
        resetAt: command.now.toISOString(),
      }),
    ];
  },
};
