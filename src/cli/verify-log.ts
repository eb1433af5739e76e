import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { checkpointLine, latestLedgerCheckpoint } from '../audit/ledger-checkpoint-rows.ts';
import { isEd25519PublicKey } from '../audit/ledger-format.ts';
import type { KeptCheckpoint } from '../audit/log-verifier.ts';
import { newestInCheckpointFile, parseKeptCheckpoints, verifyLog } from '../audit/verify-log.ts';
import type { EventStore } from '../store/event-store.ts';

type Out = { print: (text: string) => void; complain: (text: string) => void };
const console_: Out = { print: text => console.log(text), complain: text => console.error(text) };

/** A public key as given: base64 SPKI DER, or a file holding that or a PEM; null when it is no Ed25519 key. */
function trustedKey(given: string): string | null {
  let text = given.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) && existsSync(text)) text = readFileSync(text, 'utf8').trim();
  if (text.startsWith('-----BEGIN')) {
    try {
      text = createPublicKey(text).export({ format: 'der', type: 'spki' }).toString('base64');
    } catch {
      return null;
    }
  }
  return isEd25519PublicKey(text) ? text : null;
}

/** `checkpoint`: the newest signed checkpoint as one JSON line; exit code 1 before the first. */
export async function checkpointCommand(pool: pg.Pool, out: Out = console_): Promise<number> {
  const latest = await latestLedgerCheckpoint(pool);
  if (!latest) {
    out.complain('checkpoint: none yet (the first is made within a minute of the first event)');
    return 1;
  }
  out.print(checkpointLine(latest));
  return 0;
}

/**
 * `verify-log [--checkpoint FILE] [--public-key KEY]`: the chain recomputed from the log against the stored
 * checkpoints, the kept ones, the newest line of the service's checkpoint file and the daily digests. The key comes
 * from the auditor (the option or LEDGER_PUBLIC_KEY), never from the database. Exit 0 intact, 1 tampered, 2 unusable.
 */
export async function verifyLogCommand(
  deps: { store: EventStore; pool: pg.Pool },
  args: string[],
  context: { envPublicKey: string | undefined; checkpointDir: string },
  out: Out = console_,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'public-key': { type: 'string' },
      checkpoint: { type: 'string' },
      'witness-key': { type: 'string', multiple: true },
      leaves: { type: 'string' },
    },
  });
  const keys = trustedKeys(values['public-key'] ?? context.envPublicKey, values['witness-key'] ?? [], out);
  if (!keys) return 2;
  const { publicKey, witnessKeys } = keys;
  const kept = keptCheckpoints(values.checkpoint, context.checkpointDir, out);
  if (!kept) return 2;
  if (values.leaves && !existsSync(values.leaves)) {
    out.complain(
      `verify-log: ${values.leaves} does not exist (--leaves: export --leaves kept from before, or an export)`,
    );
    return 2;
  }
  const verdict = await verifyLog(deps, {
    publicKey,
    kept,
    witnessKeys,
    ...(values.leaves ? { leaves: values.leaves } : {}),
  });
  for (const p of verdict.problems) out.print(JSON.stringify(p));
  const counts = `${verdict.events} events, ${verdict.checkpoints} checkpoints, ${verdict.unchecked} events after the last, ${verdict.days.length} days`;
  const first = verdict.problems[0];
  out.complain(
    first
      ? `verify-log: ${counts}: ${verdict.problems.length} problems; first: ${first.at}: ${first.problem}`
      : `verify-log: ${counts}: intact`,
  );
  return verdict.clean ? 0 : 1;
}

/** The keys the auditor trusts: the ledger's and the witnesses'; null (told why) when one is missing or no key. */
function trustedKeys(
  given: string | undefined,
  witness: string[],
  out: Out,
): { publicKey: string; witnessKeys: string[] } | null {
  if (!given) {
    out.complain(
      'verify-log needs the public key you trust: --public-key <base64 SPKI DER, or a file> or LEDGER_PUBLIC_KEY (a key from the database proves nothing)',
    );
    return null;
  }
  const publicKey = trustedKey(given);
  if (!publicKey) {
    out.complain(
      'verify-log: the public key given is not an Ed25519 public key (base64 SPKI DER, or a file holding it or a PEM)',
    );
    return null;
  }
  const witnessKeys = witness.map(trustedKey);
  if (witnessKeys.includes(null)) {
    out.complain('verify-log: a --witness-key given is not an Ed25519 public key (base64 SPKI DER, or a file)');
    return null;
  }
  return { publicKey, witnessKeys: witnessKeys as string[] };
}

/** The checkpoints kept outside the database: the file given, and the newest line of the service's checkpoint file. */
function keptCheckpoints(file: string | undefined, checkpointDir: string, out: Out): KeptCheckpoint[] | null {
  const kept: KeptCheckpoint[] = [];
  if (file) {
    try {
      for (const checkpoint of parseKeptCheckpoints(readFileSync(file, 'utf8')))
        kept.push({ checkpoint, source: file });
    } catch (err) {
      out.complain(
        `verify-log: ${file} holds no checkpoints as JSON or JSON lines (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      );
      return null;
    }
  }
  try {
    const newest = newestInCheckpointFile(checkpointDir);
    if (newest) kept.push({ checkpoint: newest, source: "the service's checkpoint file" });
  } catch {
    out.complain(
      `verify-log: the service's checkpoint file in ${checkpointDir} does not end in a checkpoint; not used`,
    );
  }
  return kept;
}
