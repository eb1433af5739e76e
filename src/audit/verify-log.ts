import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { inSnapshot, query } from '../db/pool.ts';
import type { EventStore } from '../store/event-store.ts';
import { logDay } from './digest-days.ts';
import { listDigests } from './digests.ts';
import { checkpointFileName } from './checkpoint-file.ts';
import { cosignatureProblems, listCosignatures } from './cosignatures.ts';
import { chainState, type ChainState } from './ledger-chain.ts';
import { readCheckpointRows, type CheckpointRow } from './ledger-checkpoint-rows.ts';
import { ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';
import { keyChain } from './ledger-keys.ts';
import { LogVerifier, type KeptCheckpoint, type LogProblem } from './log-verifier.ts';
import { firstDifferingEvents } from './first-differing.ts';
import { logEvents } from './stream-pages.ts';
import { DigestCheck, type DayVerdict } from './verify-digests.ts';

export type LogVerdict = {
  clean: boolean;
  /** everything found, first in the log first */
  problems: LogProblem[];
  events: number;
  checkpoints: number;
  /** events after the last checkpoint: not signed yet */
  unchecked: number;
  days: DayVerdict[];
};

/**
 * A checkpoint as kept: what is published beside it (the webhook's keys, the route's hash and cosignatures) is not
 * signed.
 */
function asSigned(value: unknown): LedgerCheckpoint {
  if (value === null || typeof value !== 'object') return ledgerCheckpoint.parse(value);
  const { keys: _keys, hash: _hash, cosignatures: _cosignatures, ...signed } = value as Record<string, unknown>;
  return ledgerCheckpoint.parse(signed);
}

/** Checkpoints kept outside the database: one JSON checkpoint, a JSON array of them, or JSON lines. */
export function parseKeptCheckpoints(text: string): LedgerCheckpoint[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  try {
    const whole: unknown = JSON.parse(trimmed);
    return (Array.isArray(whole) ? whole : [whole]).map(asSigned);
  } catch {
    return trimmed
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => asSigned(JSON.parse(l)));
  }
}

/** The service's own checkpoint file's newest line: it vouches for every checkpoint before it through the chain. */
export function newestInCheckpointFile(dir: string): LedgerCheckpoint | null {
  const file = path.join(dir, checkpointFileName);
  if (!existsSync(file)) return null;
  // its end only: a year of checkpoints is some 300 MB
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 64 * 1024));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const last = tail
      .toString('utf8')
      .split('\n')
      .filter(l => l.trim() !== '')
      .at(-1);
    return last ? ledgerCheckpoint.parse(JSON.parse(last)) : null;
  } finally {
    closeSync(fd);
  }
}

type ReadChain = { rows: CheckpointRow[]; state: ChainState | null; malformedState: string | null };

async function readChain(pool: pg.Pool): Promise<ReadChain> {
  return inSnapshot(pool, async tx => {
    const rows = await readCheckpointRows(tx);
    const exists = (
      await query<{ exists: boolean }>(
        tx,
        'LedgerStateExists',
        `select to_regclass('ledger_chain_state') is not null as exists`,
      )
    ).rows[0]!.exists;
    const row = exists
      ? (await query<{ state: unknown }>(tx, 'ReadLedgerChainState', 'select state from ledger_chain_state where id'))
          .rows[0]
      : undefined;
    const parsed = row ? chainState.safeParse(row.state) : null;
    return {
      rows,
      state: parsed?.success ? parsed.data : null,
      malformedState:
        parsed && !parsed.success ? parsed.error.issues.map(i => `${i.path.join('.')}: ${i.message}`).join('; ') : null,
    };
  });
}

/** A row that is no checkpoint: a finding where the log stands at the checkpoint before it, never a crash. */
function rowProblems({ rows, malformedState }: ReadChain): LogProblem[] {
  let reached = 0;
  const problems: LogProblem[] = [];
  for (const row of rows) {
    if ('checkpoint' in row) reached = row.checkpoint.to;
    else
      problems.push({
        at: `checkpoint row ${row.seq}`,
        index: reached,
        seq: row.seq,
        problem: `checkpoint row ${row.seq} is malformed: ${row.malformed}`,
      });
  }
  if (malformedState)
    problems.push({
      at: 'the chain state',
      index: reached,
      problem: `the chain's state is malformed: ${malformedState}`,
    });
  return problems;
}

/** The chain's working state against its rows: a state ahead of the rows says rows were deleted (unsigned, so a hint). */
function stateProblems(stored: LedgerCheckpoint[], state: ChainState | null): LogProblem[] {
  if (!state) return [];
  const last = stored.at(-1);
  if (state.seq > stored.length)
    return [
      {
        at: `checkpoint ${stored.length}`,
        index: last?.to ?? 0,
        seq: stored.length,
        problem: `the chain made ${state.seq} checkpoints, ${stored.length} are stored: checkpoint rows were deleted`,
      },
    ];
  if (state.seq === stored.length && state.from !== (last?.to ?? 0))
    return [
      {
        at: `checkpoint ${state.seq}`,
        index: last?.to ?? 0,
        problem: `the chain continues from event ${state.from}, the last stored checkpoint ends at ${last?.to ?? 0}`,
      },
    ];
  return [];
}

const precision = (p: LogProblem) => (p.streamId !== undefined ? 0 : p.day !== undefined ? 2 : 1);

/**
 * `cli verify-log`: recomputes the chain of signed checkpoints from the log (every event as stored, in log
 * order) and holds it against the stored checkpoints and any kept outside the database, with the public key the
 * auditor trusts; and the daily digests, in the same pass. Names the first event, day or checkpoint that differs.
 */
export async function verifyLog(
  deps: { store: EventStore; pool: pg.Pool },
  options: { publicKey: string; kept: KeptCheckpoint[]; witnessKeys?: string[]; leaves?: string },
): Promise<LogVerdict> {
  const read = await readChain(deps.pool);
  const { state } = read;
  const stored = read.rows.flatMap(r => ('checkpoint' in r ? [r.checkpoint] : []));
  const chain = new LogVerifier(stored, options.kept, options.publicKey);
  // each day's digest checked with the key it names, among those followed from the auditor's through the rotations
  const days = new DigestCheck(await listDigests(deps.pool).catch(() => []), keyChain(stored, options.publicKey).keys);
  const dayStarts = new Map<string, number>();
  let index = 0;
  let day: string | null = null;
  for await (const e of logEvents(deps.store)) {
    chain.add(e);
    days.add(e);
    day = logDay(day, e);
    if (!dayStarts.has(day)) dayStarts.set(day, index);
    index++;
  }
  const walked = chain.finish();
  const digests = days.finish();
  const dayProblems: LogProblem[] = digests.days
    .filter(d => d.status === 'tampered')
    .flatMap(d =>
      d.problems.map(problem => ({ at: `day ${d.day}`, index: dayStarts.get(d.day) ?? index, day: d.day, problem })),
    );
  // the witnesses' word on the stored chain, for the witness keys the auditor gave (the table itself proves nothing)
  const witnessed = options.witnessKeys?.length
    ? cosignatureProblems(stored, await listCosignatures(deps.pool), options.witnessKeys)
    : [];
  // leaves kept from before (export --leaves) name the first event of each stored range whose root differs
  const rootDiffers = new Set(walked.problems.flatMap(p => (p.problem.startsWith('the root of') ? [p.seq] : [])));
  const named = options.leaves
    ? await firstDifferingEvents(
        deps.store,
        stored.filter(c => rootDiffers.has(c.seq)),
        options.leaves,
      )
    : [];
  // the most precise first (an event, then a checkpoint's minute, then a day), each kind in log order
  const problems = [
    ...named,
    ...walked.problems,
    ...rowProblems(read),
    ...stateProblems(stored, state),
    ...witnessed,
    ...dayProblems,
  ].sort((a, b) => precision(a) - precision(b) || a.index - b.index);
  return {
    clean: problems.length === 0,
    problems,
    events: walked.events,
    checkpoints: walked.checkpoints,
    unchecked: walked.unchecked,
    days: digests.days,
  };
}
