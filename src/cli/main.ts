import { parseArgs } from 'node:util';
import { registerUser } from '../commands/registration.ts';
import { passwordRefusal } from '../security/password-rules.ts';
import { resetPasswordCommand } from './reset-password.ts';
import { loadConfig, type Config } from '../config.ts';
import { writeDataFiles } from '../start-files.ts';
import { checkpointMigration, migrate } from '../db/migrations.ts';
import { createPool } from '../db/pool.ts';
import { auditView } from '../audit/event-view.ts';
import { streamEvents } from '../audit/stream-pages.ts';
import { auditStreamCommand, balanceAsOfCommand, exportCommand, toStdout, verifyDigestsCommand } from './audit.ts';
import { digestSigner } from '../audit/digest-signer.ts';
import { checkpointCommand, verifyLogCommand } from './verify-log.ts';
import { proveEventCommand } from './prove-event.ts';
import { rotateSigningKeyCommand } from './rotate-signing-key.ts';
import { ledgerResetCommand } from './ledger-reset.ts';
import '../events/all.ts';
import { createLogger } from '../logger.ts';
import { rebuildReadModelsCommand, verifyReadModelsCommand } from './read-models.ts';
import { unmatchedCredits } from '../projections/reconciliation.ts';
import { reconcile } from './reconcile.ts';
import { calendarCommand } from './calendar.ts';
import { auditorCommand } from './auditor.ts';
import { openDatabase } from '../service.ts';
import { listCheckpoints } from '../store/checkpoints.ts';
import { openEventStore } from '../store/open.ts';
import { listSubscriberFailures } from '../store/subscriber-failures.ts';
import { positionText, subscriberProblem } from '../store/subscriber.ts';
import { systemClock } from '../clock.ts';
import type pg from 'pg';
import type { EventStore } from '../store/event-store.ts';

const usage = `Usage: npm run cli -- <command>

  create-admin --name <name> --email <email> --password <password>
                          register a user with role ADMIN (8 to 128 characters, none of the common passwords)
  reset-password <email>  replace the user's password with a random temporary one, printed once as JSON, and end
                          every session of the user
  stream <streamId>       print a stream's events with their metadata (who, when, caused by what); secrets and
                          sealed values shown as [redacted] and [sealed]
  audit-stream <streamId> check a stream: revisions without gaps, every event valid against its schema (after
                          upcasting), and for gateway-, account- and payment- streams the fold against the read
                          model (exit code 1 when anything is found)
  balance-as-of (--merchant <userId> | --holding <accountId> | --account <accountId>) --at <ISO instant>
                          a gateway merchant's balances, a holding account's cash, or an account's balance, folded
                          from the log by when each event was recorded; the first two name the signed checkpoint
                          they are bound to, after checking the chain and the ranges they rely on (exit code 1 when
                          the log does not verify up to it; docs/auditing.md)
  export (--from <ISO instant> --to <ISO instant> | --all) [--leaves]
                          every event recorded in [from, to) (or all) as JSON lines, in log order, streamed; secrets as
                          commitments, so docs/verify-export.mjs checks checkpoints against it (docs/auditing.md);
                          --leaves: each event's index and leaf hash, to name the event where a root differs
  verify-digests [--public-key <base64 SPKI DER>]
                          recompute every WIB day's Merkle root from the log and check it against the signed daily
                          digest (with this service's key, or the one given); exit code 1 when a day was tampered with
  checkpoint              the newest signed checkpoint of the log, as JSON (keep it: it proves the log up to it)
  prove-event <eventId>   the event (an export line), its index, the signed checkpoint whose range holds it, its leaf
                          hash and its Merkle audit path to that checkpoint's root, as JSON; docs/verify-proof.mjs
                          checks it with the public key alone (exit code 1: no such event, or not signed yet)
  rotate-signing-key      a new ledger signing key beside the key file (<file>.next): the running service's next
                          checkpoint is signed by the old key and the new one and names the new one, every later one
                          by the new key alone (GET /.well-known/ledger-keys lists both)
  ledger-reset --reason <text>
                          after the service refuses to sign (its start-up check found the log no longer extends the
                          newest checkpoint: a rolled-back database, a chain signed anew, a key replaced), accept what
                          it finds, recorded in the log with the reason; the chain then signs on from its newest row
  verify-log [--checkpoint <file>] [--public-key <base64 SPKI DER, or a file>]
                          recompute the chain of signed checkpoints and the daily digests from the log, with the key
                          you trust (or LEDGER_PUBLIC_KEY), against the stored checkpoints and the ones you kept
                          (a JSON checkpoint or JSON lines); exit code 1 naming the first event, day or checkpoint that
                          differs, 2 without a public key; [--witness-key <base64 SPKI DER>]...: also the checkpoints
                          each witness has not cosigned and those its cosignatures contradict (a fork, a rollback)
                          [--leaves <file>]: leaf hashes kept from before (export --leaves, or an export) name the
                          first event of a range whose root differs
  auditor create <name> | auditor revoke <auditorId> | auditor list
                          an auditor's token (printed once as JSON, only its hash kept): it reads the ledger and posts
                          witnesses' cosignatures under /api/audit (Authorization: Bearer) and opens nothing else
  witness --url <service URL> --state <file> [--public-key <base64 SPKI DER>] [--token <token>]
                          docs/witness.mjs: check that the newest checkpoint extends the last one this witness vouched
                          for and cosign it (the first run pins the ledger's key and makes the witness's key pair);
                          exit code 1, saying why, on a fork or a rollback (docs/auditing.md, Witnesses)
  subscribers             each projection and saga: its checkpoint, and the event it is stuck at, if any
                          (exit code 1 when one is stuck)
  verify-read-models [--timeout <seconds>]
                          replay the log up to its head into a scratch schema and compare each read model with the
                          live one as of the same position, while the service runs, without taking its
                          projections' locks; exit code 1 when one differs
  rebuild-read-models [--timeout <seconds>]
                          rebuild each read model from history into shadow tables while the live ones serve, then
                          swap them in a short transaction; the live projections go on from there
                          (both: what has to wait is said on stderr; exit code 2 after --timeout, default 60)
  unmatched-credits [--from <ISO date>] [--to <ISO date>]
                          credits into receiving accounts that completed no payment (default: the last 7 days),
                          one JSON line each, with the expired payment they most likely paid late
  calendar show [<year>]  the settlement calendar's years in force (shipped, or set by an admin or here), and the years
                          due without a decree; with a year, that year's decree (exit code 1 when it has none)
  calendar import <year> <file>
                          set a year's decree whole from a JSON file shaped as PUT /api/admin/gateway/calendar/{year}'s
                          body ({"source", "days": [{"date", "name", "kind"}]}), checked as that route checks it and
                          recorded as operator:cli; a refused file changes nothing (exit code 1, each problem on stderr)
  reconcile --from <YYYY-MM-DD> --to <YYYY-MM-DD> [--csv --table <table>]
                          the gateway's reconciliation over WIB days (trial balance, merchants' balances, holding
                          credits against completed payments, unmatched credits, fees); exit code 1 when not balanced

Configuration comes from the same environment as the service (DATA_DIR, DATABASE_URL, EVENT_STORE, ...).
With the embedded database, the CLI shares the database of a service running on the same DATA_DIR.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(usage);
    return command ? 0 : 2;
  }
  // a witness runs on the auditor's machine and talks to the service over HTTP only: no database of its own
  if (command === 'witness') {
    const witness = (await import(new URL('../../docs/witness.mjs', import.meta.url).href)) as {
      runWitness: (args: string[]) => Promise<number>;
    };
    return witness.runWitness(rest);
  }
  const config = loadConfig(process.env);
  // the embedded database's passwords are kept in DATA_DIR before it is made
  writeDataFiles(config.dataFiles);
  const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const { url, embedded } = await openDatabase(config, log);
  const pool = createPool(url, 4);
  const store = await openEventStore(config, pool, { listen: false });
  try {
    return await runCommand(command, rest, { config, pool, store });
  } finally {
    await store.close();
    await pool.end();
    await embedded?.stop();
  }
}

/** One command of the CLI over the service's database and event store. */
async function runCommand(
  command: string,
  rest: string[],
  { config, pool, store }: { config: Config; pool: pg.Pool; store: EventStore },
): Promise<number> {
  const readModels = { waitFor: async () => true };
  switch (command) {
    case 'create-admin':
      return await createAdminCommand(store, rest);
    case 'reset-password':
      return await resetPasswordCommand({ store, pool, clock: systemClock, wallClock: systemClock, readModels }, rest);
    case 'stream':
      return await streamCommand(store, rest[0]);
    case 'audit-stream':
      return await auditStreamCommand({ store, pool }, rest);
    case 'balance-as-of':
      return await balanceAsOfCommand(
        {
          store,
          pool,
          publicKeys: config.digestSigningKey ? [digestSigner(config.digestSigningKey).publicKey] : [],
        },
        rest,
      );
    case 'export':
      return await exportCommand(store, rest);
    case 'verify-digests':
      return await verifyDigestsCommand(
        { store, pool },
        rest,
        config.digestSigningKey ? digestSigner(config.digestSigningKey).publicKey : null,
      );
    case 'checkpoint':
      return await checkpointCommand(pool);
    case 'rotate-signing-key':
      return await rotateSigningKeyCommand(pool, config);
    case 'ledger-reset':
      return await ledgerResetCommand({ pool, store, clock: systemClock }, rest, {
        keyId: config.digestSigningKey ? digestSigner(config.digestSigningKey).keyId : null,
        checkpointDir: config.ledgerCheckpointDir,
      });
    case 'prove-event':
      return await proveEventCommand({ store, pool }, rest);
    case 'verify-log':
      return await verifyLogCommand({ store, pool }, rest, {
        envPublicKey: config.ledgerPublicKey,
        checkpointDir: config.ledgerCheckpointDir,
      });
    case 'subscribers':
      return await subscribersCommand(pool, store);
    case 'verify-read-models':
      return await verifyReadModelsCommand({ pool, store }, rest);
    case 'rebuild-read-models':
      return await rebuildReadModelsCommand({ pool, store }, rest);
    case 'unmatched-credits':
      return await unmatchedCreditsCommand(pool, rest);
    case 'reconcile':
      return await reconcile({ pool, store, clock: systemClock }, rest);
    case 'calendar':
      return await calendarCommand({ store, clock: systemClock, readModels }, rest);
    case 'auditor':
      return await auditorCommand({ store, pool, clock: systemClock, readModels }, rest);
    default:
      console.error(`unknown command ${command}\n\n${usage}`);
      return 2;
  }
}

/** `create-admin`: a user with role ADMIN, its password checked as registration checks it. */
async function createAdminCommand(store: EventStore, rest: string[]): Promise<number> {
  const readModels = { waitFor: async () => true };
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
  });
  if (!values.name || !values.email || !values.password) {
    console.error('create-admin needs --name, --email and --password');
    return 2;
  }
  const refusal = passwordRefusal(values.password);
  if (refusal) {
    console.error(`create-admin: ${refusal}`);
    return 2;
  }
  const { userId } = await registerUser(
    { store, clock: systemClock, readModels },
    { ...(values as { name: string; email: string; password: string }), role: 'ADMIN' },
  );
  console.log(JSON.stringify({ userId, email: values.email, role: 'ADMIN' }));
  return 0;
}

/** `stream`: a stream's events as the audit shows them, one JSON line each. */
async function streamCommand(store: EventStore, streamId: string | undefined): Promise<number> {
  if (!streamId) {
    console.error('stream needs a stream id, e.g. user-<uuid>');
    return 2;
  }
  for await (const recorded of streamEvents(store, streamId))
    await toStdout(`${JSON.stringify(auditView(recorded))}\n`);
  return 0;
}

/** `subscribers`: each projection and saga, its checkpoint, and the event it is stuck at; 1 when one is stuck. */
async function subscribersCommand(pool: pg.Pool, store: EventStore): Promise<number> {
  await migrate(pool, [checkpointMigration]);
  const head = positionText(await store.headPosition());
  const failures = new Map((await listSubscriberFailures(pool)).map(f => [f.subscriber, f]));
  const checkpoints = new Map((await listCheckpoints(pool)).map(c => [c.name, positionText(c.position)]));
  for (const name of [...new Set([...checkpoints.keys(), ...failures.keys()])].sort()) {
    const failure = failures.get(name);
    const stuck = failure && subscriberProblem(name, { state: 'stuck', ...failure });
    console.log(
      JSON.stringify({
        subscriber: name,
        position: checkpoints.get(name) ?? 'start',
        head,
        ...(stuck ? { stuck } : {}),
      }),
    );
  }
  return failures.size > 0 ? 1 : 0;
}

/** `unmatched-credits`: credits into receiving accounts that completed no payment, one JSON line each. */
async function unmatchedCreditsCommand(pool: pg.Pool, rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' } } });
  const to = values.to ? new Date(values.to) : new Date();
  const from = values.from ? new Date(values.from) : new Date(to.getTime() - 7 * 86_400_000);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) {
    console.error('unmatched-credits needs --from before --to, as ISO dates');
    return 2;
  }
  for (const credit of await unmatchedCredits(pool, { from, to })) console.log(JSON.stringify(credit));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
