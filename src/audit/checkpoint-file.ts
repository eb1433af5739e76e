import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { inTransaction, query, type Queryable } from '../db/pool.ts';
import { checkpointHash, ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';

export const checkpointFileName = 'checkpoints.jsonl';

/**
 * How much of the file's end is read: some four hundred lines, hours of checkpoints. The file grows by hundreds of MB a
 * year and is never read whole; a checkpoint older than this window is taken to be in it already.
 */
const tailBytes = 256 * 1024;

/** A line of the file: its checkpoint and that checkpoint's hash (its identity). */
export type FileLine = { checkpoint: LedgerCheckpoint; hash: string };

/** The file's last lines, in file order; `whole` when they are all of it. Lines that are no checkpoint are left out. */
export type FileTail = { lines: FileLine[]; whole: boolean };

function parseLine(text: string): FileLine | null {
  try {
    const checkpoint = ledgerCheckpoint.parse(JSON.parse(text));
    return { checkpoint, hash: checkpointHash(checkpoint) };
  } catch {
    return null;
  }
}

/** The tail of an open file; with `cutTorn`, a last line cut short by a crash mid-write is cut off first. */
function readTail(fd: number, cutTorn: boolean): FileTail {
  const size = fstatSync(fd).size;
  if (size === 0) return { lines: [], whole: true };
  const length = Math.min(size, tailBytes);
  const tail = Buffer.alloc(length);
  readSync(fd, tail, 0, length, size - length);
  let end = length;
  if (tail[length - 1] !== 0x0a) {
    end = tail.lastIndexOf(0x0a) + 1;
    if (cutTorn) ftruncateSync(fd, size - length + end);
    if (end === 0) return size > length && cutTorn ? readTail(fd, cutTorn) : { lines: [], whole: size <= length };
  }
  // the window's first line is whole only when the window starts the file
  const start = size > length ? tail.indexOf(0x0a) + 1 : 0;
  const lines = tail
    .subarray(start, end)
    .toString('utf8')
    .split('\n')
    .filter(l => l.trim() !== '')
    .flatMap(l => parseLine(l) ?? []);
  return { lines, whole: size <= length };
}

/** The end of the service's checkpoint file in `dir` (nothing when there is none), read without changing it. */
export function checkpointFileTail(dir: string): FileTail {
  const file = path.join(dir, checkpointFileName);
  if (!existsSync(file)) return { lines: [], whole: true };
  const fd = openSync(file, 'r');
  try {
    return readTail(fd, false);
  } finally {
    closeSync(fd);
  }
}

type RowLine = { seq: number; line: string; hash: string };

async function rowLines(db: Queryable, where: string, params: unknown[]): Promise<RowLine[]> {
  const r = await query<{ seq: string; line: string }>(
    db,
    'CheckpointFileRows',
    `select seq::text, checkpoint::text as line from ledger_checkpoints where ${where} order by seq`,
    params,
  );
  return r.rows.flatMap(row => {
    const parsed = parseLine(row.line);
    return parsed ? [{ seq: Number(row.seq), line: row.line, hash: parsed.hash }] : [];
  });
}

/**
 * The seq after which the rows go on from the file: the newest line of the tail that is the row of its seq (the last
 * one, at once, as the file usually ends). With none of the tail in the rows (a chain signed anew, a rolled-back
 * database), rows from the tail's oldest seq on; all of them when the tail is the whole file.
 */
async function rowsFollowFrom(tx: Queryable, tail: FileTail): Promise<number> {
  const last = tail.lines.at(-1);
  if (!last) return -1;
  const lastRow = await rowLines(tx, 'seq = $1', [last.checkpoint.seq]);
  if (lastRow[0]?.hash === last.hash) return last.checkpoint.seq;
  const seqs = tail.lines.map(l => l.checkpoint.seq);
  const rows = await rowLines(tx, 'seq between $1 and $2', [Math.min(...seqs), Math.max(...seqs)]);
  const hashes = new Set(rows.map(r => `${r.seq}:${r.hash}`));
  for (let i = tail.lines.length - 1; i >= 0; i--) {
    const line = tail.lines[i]!;
    if (hashes.has(`${line.checkpoint.seq}:${line.hash}`)) return line.checkpoint.seq;
  }
  return tail.whole ? -1 : Math.min(...seqs) - 1;
}

/** A checkpoint appended for a seq the file held already: the file's hash for it (when in the tail) and the new one. */
export type FileFork = { seq: number; fileHash: string | null; hash: string };

/**
 * Appends to `dir/checkpoints.jsonl` every stored checkpoint the file does not hold (by its hash), in seq order, one
 * JSON line each (the text as stored), and waits for the disk. The file is append-only: a checkpoint for a seq it
 * holds already (the chain signed again, or on from a rolled-back database) is appended as well, and answered as a
 * fork. Called after each commit that made checkpoints and on start, so a crash between the commit and the write
 * leaves nothing missing; under a database lock, so two instances sharing the folder never write the same line twice.
 */
export async function syncCheckpointFile(pool: pg.Pool, dir: string): Promise<{ written: number; forks: FileFork[] }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return inTransaction(pool, async tx => {
    await query(
      tx,
      'LockCheckpointFile',
      `select pg_advisory_xact_lock(hashtextextended('ledger-checkpoint-file', 0))`,
    );
    const fd = openSync(path.join(dir, checkpointFileName), 'a+', 0o600);
    try {
      const tail = readTail(fd, true);
      const inFile = new Set(tail.lines.map(l => l.hash));
      const fileHashOf = new Map(tail.lines.map(l => [l.checkpoint.seq, l.hash]));
      const fileEnd = Math.max(-1, ...tail.lines.map(l => l.checkpoint.seq));
      const after = await rowsFollowFrom(tx, tail);
      const rows = (await rowLines(tx, 'seq > $1', [after])).filter(r => !inFile.has(r.hash));
      if (rows.length === 0) return { written: 0, forks: [] };
      writeSync(fd, rows.map(r => `${r.line}\n`).join(''));
      fsyncSync(fd);
      const forks = rows
        .filter(r => r.seq <= fileEnd)
        .map(r => ({ seq: r.seq, fileHash: fileHashOf.get(r.seq) ?? null, hash: r.hash }));
      return { written: rows.length, forks };
    } finally {
      closeSync(fd);
    }
  });
}
