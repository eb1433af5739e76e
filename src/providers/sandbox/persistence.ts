import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { sandboxSnapshot, type SandboxSnapshot } from './state.ts';

/** Reads the state file; a missing file is a fresh start, an unreadable one is moved aside and logged. */
export function readStateFile(file: string, log?: Logger): SandboxSnapshot | null {
  if (!existsSync(file)) return null;
  try {
    return sandboxSnapshot.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    const aside = `${file}.unreadable`;
    renameSync(file, aside);
    log?.warn({ err, file, movedTo: aside }, 'sandbox state file unreadable; starting with an empty sandbox');
    return null;
  }
}

/** Whole-file replace through a temporary file, so a crash mid-write never leaves half a JSON document. */
export function writeStateFile(file: string, snapshot: SandboxSnapshot): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot));
  renameSync(temporary, file);
}

export type StateWriter = { schedule(): void; flush(): void };

/** Coalesces bursts of changes into one write `delayMs` later (wall time: this is I/O pacing, not business time). */
export function debouncedWriter(file: string, snapshot: () => SandboxSnapshot, log?: Logger, delayMs = 200): StateWriter {
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    try {
      writeStateFile(file, snapshot());
    } catch (err) {
      log?.error({ err, file }, 'sandbox state not written');
    }
  };
  return {
    schedule() {
      if (timer) return;
      timer = setTimeout(flush, delayMs);
      timer.unref();
    },
    flush,
  };
}
