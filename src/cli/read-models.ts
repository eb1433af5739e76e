import { parseArgs } from 'node:util';
import type pg from 'pg';
import { checkpointMigration, migrate } from '../db/migrations.ts';
import { projections } from '../projections/all.ts';
import { GaveUpWaiting, type Patience } from '../projections/replay.ts';
import { verifyAgainstHistory } from '../projections/scratch-verify.ts';
import { rebuildProjection } from '../projections/shadow-rebuild.ts';
import { comparePositions, type EventStore } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';

type Deps = { pool: pg.Pool; store: EventStore };

/** `--timeout <seconds>` (default 60): how long anything waits before giving up; null when it is not a positive number. */
function patienceFrom(command: string, args: string[]): Patience | null {
  const { values } = parseArgs({ args, options: { timeout: { type: 'string', default: '60' } } });
  const seconds = Number(values.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  return {
    timeoutMs: seconds * 1000,
    waiting: what => console.error(`${command}: waiting for ${what} (giving up after ${seconds} s)`),
  };
}

/** Runs the work; a wait that ran out of patience is said on stderr and exits 2. */
async function patiently(command: string, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof GaveUpWaiting)) throw err;
    console.error(`${command}: ${err.message}`);
    return 2;
  }
}

/** verify-read-models [--timeout <s>]: every read model against a replay of one snapshot of the log, into a scratch schema. */
export async function verifyReadModelsCommand(deps: Deps, args: string[]): Promise<number> {
  const patience = patienceFrom('verify-read-models', args);
  if (!patience) return usageError('verify-read-models');
  await migrate(deps.pool, [checkpointMigration]);
  const head = await deps.store.headPosition();
  return patiently('verify-read-models', async () => {
    let clean = true;
    for (const projection of projections) {
      const { differences, asOf } = await verifyAgainstHistory(deps, projection, { head, patience });
      clean &&= differences.length === 0;
      console.log(`${projection.name}: ${differences.length === 0 ? 'matches history' : JSON.stringify(differences)}`);
      if (comparePositions(asOf, head) < 0)
        console.error(
          `verify-read-models: ${projection.name} compared as of its checkpoint ${positionText(asOf)}, behind the head ${positionText(head)}: nothing moves it on (no live instance, or stuck)`,
        );
    }
    return clean ? 0 : 1;
  });
}

/** rebuild-read-models [--timeout <s>]: every read model replayed into shadow tables, then swapped in. */
export async function rebuildReadModelsCommand(deps: Deps, args: string[]): Promise<number> {
  const patience = patienceFrom('rebuild-read-models', args);
  if (!patience) return usageError('rebuild-read-models');
  await migrate(deps.pool, [checkpointMigration]);
  const head = await deps.store.headPosition();
  return patiently('rebuild-read-models', async () => {
    for (const projection of projections)
      console.log(
        `${projection.name}: replayed ${await rebuildProjection(deps, projection, { head, patience })} events`,
      );
    return 0;
  });
}

function usageError(command: string): number {
  console.error(`${command} takes --timeout <seconds>, a positive number (default 60)`);
  return 2;
}
