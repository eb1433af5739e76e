import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { inTransaction, query } from '../db/pool.ts';
import { ledgerCheckpoint } from './ledger-format.ts';

export const checkpointFileName = 'checkpoints.jsonl';

/** Enough of the file's end to hold its last line (a checkpoint line is about 600 bytes). */
const tailBytes = 64 * 1024;

/**
 * The seq of the file's last checkpoint (-1 for none). A last line cut short by a crash mid-write is cut off first:
 * it is written again whole from the database.
 */
function lastSeqInFile(fd: number): number {
  const size = fstatSync(fd).size;
  if (size === 0) return -1;
  const length = Math.min(size, tailBytes);
  const tail = Buffer.alloc(length);
  readSync(fd, tail, 0, length, size - length);
  let end = length;
  if (tail[length - 1] !== 0x0a) {
    end = tail.lastIndexOf(0x0a) + 1;
    ftruncateSync(fd, size - length + end);
    if (end === 0) return size > length ? lastSeqInFile(fd) : -1;
  }
  const lineStart = tail.lastIndexOf(0x0a, end - 2) + 1;
  const line = tail.subarray(lineStart, end - 1).toString('utf8');
  return ledgerCheckpoint.parse(JSON.parse(line)).seq;
}

/**
 * Appends to `dir/checkpoints.jsonl` every stored checkpoint after the file's last one, in order, one JSON line each
 * (the text as stored), and waits for the disk. Called after each commit that made checkpoints and on start, so a
 * crash between the commit and the write leaves nothing missing; under a database lock, so two instances sharing the
 * folder never write the same line twice. A file ahead of the database (its rows deleted) is left as it is.
 * Answers how many lines were written.
 */
export async function syncCheckpointFile(pool: pg.Pool, dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return inTransaction(pool, async tx => {
    await query(
      tx,
      'LockCheckpointFile',
      `select pg_advisory_xact_lock(hashtextextended('ledger-checkpoint-file', 0))`,
    );
    const fd = openSync(path.join(dir, checkpointFileName), 'a+', 0o600);
    try {
      const last = lastSeqInFile(fd);
      const rows = await query<{ line: string }>(
        tx,
        'CheckpointsAfter',
        'select checkpoint::text as line from ledger_checkpoints where seq > $1 order by seq',
        [last],
      );
      if (rows.rows.length === 0) return 0;
      writeSync(fd, rows.rows.map(r => `${r.line}\n`).join(''));
      fsyncSync(fd);
      return rows.rows.length;
    } finally {
      closeSync(fd);
    }
  });
}
