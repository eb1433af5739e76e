import { randomUUID } from 'node:crypto';
import { ledgerIntegrity, ledgerIntegrityStream } from '../domain/ledger-integrity.ts';
import { handleCommand } from '../store/commands/handle.ts';
import type { CommandDeps } from './deps.ts';

/**
 * The operator's reset of the ledger's start-up check (`npm run cli -- ledger-reset`): recorded in the log, accepting
 * exactly the findings given; the chain's leader signs again once it sees it.
 */
export async function resetLedgerIntegrity(
  deps: Pick<CommandDeps, 'store' | 'clock'>,
  input: { reason: string; findings: string[]; continuesFrom: { seq: number; hash: string } | null; resetBy: string },
) {
  const now = deps.clock.now();
  return handleCommand(
    deps,
    ledgerIntegrityStream,
    ledgerIntegrity,
    { type: 'ResetLedgerIntegrity', resetId: randomUUID(), ...input, now },
    { actor: input.resetBy, now },
  );
}
