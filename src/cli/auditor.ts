import { createAuditor, revokeAuditor } from '../commands/auditor.ts';
import type { StoreDeps } from '../commands/deps.ts';
import type { Queryable } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import { listAuditors } from '../projections/auditors.ts';

type Out = { print: (line: string) => void; complain: (line: string) => void };
const console_: Out = { print: line => console.log(line), complain: line => console.error(line) };

const usage =
  'auditor create <name> | auditor revoke <auditorId> | auditor list: the tokens witnesses use (/api/audit only)';

/**
 * `auditor create <name>`: a token that reads the ledger and posts cosignatures (/api/audit) and nothing else, printed
 * once as JSON (only its hash is kept); `revoke <id>` refuses it from then on; `list` the auditors and their state.
 */
export async function auditorCommand(
  deps: StoreDeps & { pool: Queryable },
  args: string[],
  out: Out = console_,
): Promise<number> {
  const [action, arg, ...rest] = args;
  try {
    if (action === 'create' && arg && rest.length === 0 && arg.trim().length > 0 && arg.length <= 100) {
      const created = await createAuditor(deps, arg.trim(), 'operator:cli');
      out.print(JSON.stringify(created));
      out.complain('The token is shown only this once: hand it to the auditor privately (Authorization: Bearer).');
      return 0;
    }
    if (action === 'revoke' && arg && rest.length === 0) {
      await revokeAuditor(deps, arg, 'operator:cli');
      out.complain(`auditor ${arg}: revoked`);
      return 0;
    }
    if (action === 'list' && !arg) {
      for (const a of await listAuditors(deps.pool))
        out.print(
          JSON.stringify({
            id: a.id,
            name: a.name,
            prefix: a.prefix,
            createdAt: a.created_at.toISOString(),
            revokedAt: a.revoked_at?.toISOString() ?? null,
          }),
        );
      return 0;
    }
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    out.complain(`auditor: ${err.message}`);
    return 1;
  }
  out.complain(usage);
  return 2;
}
