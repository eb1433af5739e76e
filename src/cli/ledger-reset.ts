import { parseArgs } from 'node:util';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { checkOwnHistory } from '../audit/ledger-self-check.ts';
import { checkpointHash } from '../audit/ledger-format.ts';
import { operatorCli } from '../commands/holiday-calendar.ts';
import { resetLedgerIntegrity } from '../commands/ledger-integrity.ts';
import type { EventStore } from '../store/event-store.ts';

type Out = { print: (text: string) => void; complain: (text: string) => void };
const console_: Out = { print: text => console.log(text), complain: text => console.error(text) };

/**
 * `ledger-reset --reason "..."`: the operator's recorded answer to what the ledger's start-up check finds (a rolled-back
 * database, a chain signed anew, a key replaced) and to the findings the leader holds (a change to the chain's state, a
 * malformed checkpoint row): the check is run here as the service runs it, and its findings and those held, the
 * reason and the checkpoint the chain goes on from are appended to the log (`LedgerIntegrityReset`), so the next
 * checkpoint holds them. The service's leader then signs again, as long as it finds nothing the reset did not accept.
 * Exit 0 recorded, 1 nothing to reset, 2 bad usage or no signing key.
 */
export async function ledgerResetCommand(
  deps: { pool: pg.Pool; store: EventStore; clock: Clock },
  args: string[],
  context: { keyId: string | null; checkpointDir: string },
  out: Out = console_,
): Promise<number> {
  const { values } = parseArgs({ args, options: { reason: { type: 'string' } } });
  const reason = values.reason?.trim();
  if (!reason) {
    out.complain(
      'ledger-reset needs --reason "...": why the history the check found is accepted (it goes into the log)',
    );
    return 2;
  }
  if (!context.keyId) {
    out.complain(
      'ledger-reset needs the ledger signing key the service signs with (LEDGER_SIGNING_KEY_FILE), to check it',
    );
    return 2;
  }
  const check = await checkOwnHistory(deps, { fileDir: context.checkpointDir, keyId: context.keyId, published: null });
  // with what the leader holds from before: a change to the chain's state it saw, a malformed row found by the day
  const findings = [...check.findings, ...check.held];
  if (findings.length === 0) {
    out.complain("ledger-reset: the ledger's start-up check finds nothing; there is nothing to reset");
    return 1;
  }
  const continuesFrom = check.newest ? { seq: check.newest.seq, hash: checkpointHash(check.newest) } : null;
  await resetLedgerIntegrity(deps, { reason, findings, continuesFrom, resetBy: operatorCli });
  out.print(JSON.stringify({ reason, findings, continuesFrom }, null, 2));
  out.complain(
    'Recorded. The chain signs again within a minute, on from the checkpoint above; the next checkpoint holds this reset.',
  );
  return 0;
}
