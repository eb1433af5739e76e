import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { z } from 'zod';
import { auditStream } from '../audit/audit-stream.ts';
import { accountBalanceAsOf, holdingCashAsOf, merchantBalanceAsOf, type BindingDeps } from '../audit/balance-as-of.ts';
import { LedgerNotVerified } from '../audit/checkpoint-binding.ts';
import { exportEvents } from '../audit/export.ts';
import { verifyDigests } from '../audit/verify-digests.ts';
import type { EventStore } from '../store/event-store.ts';

type Out = { print: (text: string) => void; complain: (text: string) => void };
const console_: Out = { print: text => console.log(text), complain: text => console.error(text) };

const instant = (text: string | undefined) => {
  if (!text || !/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
};

/** Lines to stdout, waiting for it to drain when it is full: a million of them never pile up in memory. */
export const toStdout = async (line: string) => {
  if (!process.stdout.write(line)) await once(process.stdout, 'drain');
};

/**
 * `export --from <instant> --to <instant>` (or `--all`), `--leaves`: the events recorded in [from, to) as JSON lines, in
 * log order (or their leaf hashes).
 */
export async function exportCommand(
  store: EventStore,
  args: string[],
  write: (line: string) => Promise<void> | void = toStdout,
  out: Out = console_,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      all: { type: 'boolean' },
      leaves: { type: 'boolean' },
    },
  });
  const [from, to] = [instant(values.from), instant(values.to)];
  if (!values.all && (!from || !to || from >= to)) {
    out.complain(
      'export needs --from before --to, ISO instants or dates (2026-11-01, 2026-11-01T00:00:00+07:00), or --all',
    );
    return 2;
  }
  const range = values.all ? 'all' : { from: from!, to: to! };
  const written = await exportEvents(store, range, write, { leaves: values.leaves ?? false });
  out.complain(`export: ${written} events`);
  return 0;
}

/**
 * `balance-as-of (--merchant <id> | --holding <id> | --account <id>) --at <instant>`: a gateway merchant's balances, a
 * holding account's cash or a receiving account's balance then; the first two bound to the newest signed checkpoint, and
 * refused (exit code 1) when the log does not verify up to it.
 */
export async function balanceAsOfCommand(deps: BindingDeps, args: string[], out: Out = console_): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      merchant: { type: 'string' },
      holding: { type: 'string' },
      account: { type: 'string' },
      at: { type: 'string' },
    },
  });
  const at = instant(values.at);
  const given = [values.merchant, values.holding, values.account].filter(v => v !== undefined);
  if (!at || given.length !== 1 || !z.uuid().safeParse(given[0]).success) {
    out.complain(
      'balance-as-of needs one of --merchant <user id>, --holding <account id> or --account <account id>, and --at <ISO instant>',
    );
    return 2;
  }
  try {
    const answer = values.merchant
      ? await merchantBalanceAsOf(deps, values.merchant, at)
      : values.holding
        ? await holdingCashAsOf(deps, values.holding, at)
        : await accountBalanceAsOf(deps.store, values.account!, at);
    out.print(JSON.stringify(answer));
    if ('checkpoint' in answer && answer.checkpoint === null && deps.publicKeys.length === 0)
      out.complain('balance-as-of: no signing key is configured here: the figures are bound to no checkpoint');
    return 0;
  } catch (err) {
    if (!(err instanceof LedgerNotVerified)) throw err;
    out.complain(`balance-as-of: refused: the log does not verify: ${err.message}`);
    return 1;
  }
}

/** `audit-stream <id>`: revisions, schemas and the fold against the read model; exit code 1 when anything is found. */
export async function auditStreamCommand(
  deps: { store: EventStore; pool: pg.Pool },
  args: string[],
  out: Out = console_,
): Promise<number> {
  const streamId = args[0];
  if (!streamId || args.length > 1) {
    out.complain('audit-stream needs one stream id, e.g. gateway-<user id>');
    return 2;
  }
  const report = await auditStream(deps, streamId);
  out.print(JSON.stringify(report, null, 2));
  return report.clean ? 0 : 1;
}

/** `verify-digests [--public-key <base64 SPKI>]`: every day of the log against its signed digest; exit code 1 when one was tampered with. */
export async function verifyDigestsCommand(
  deps: { store: EventStore; pool: pg.Pool },
  args: string[],
  ownPublicKey: string | null,
  out: Out = console_,
): Promise<number> {
  const { values } = parseArgs({ args, options: { 'public-key': { type: 'string' } } });
  const publicKey = values['public-key'] ?? ownPublicKey;
  if (!publicKey) {
    out.complain('verify-digests needs --public-key <base64 SPKI DER>: no signing key is configured here');
    return 2;
  }
  const report = await verifyDigests(deps, publicKey);
  for (const day of report.days) out.print(JSON.stringify(day));
  const tampered = report.days.filter(d => d.status === 'tampered').length;
  out.complain(`verify-digests: ${report.days.length} days, ${tampered} tampered with`);
  return report.clean ? 0 : 1;
}
