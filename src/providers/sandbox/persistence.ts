import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { sandboxSnapshot, type SandboxSnapshot } from './state.ts';

/** The state holds provider sessions and passwords: readable by the owner only, like secrets.json. */
const ownerOnly = 0o600;

/** Reads the state file; a missing file is a fresh start, an unreadable one is moved aside and logged. */
export function readStateFile(file: string, log?: Logger): SandboxSnapshot | null {
  if (!existsSync(file)) return null;
  try {
    chmodSync(file, ownerOnly); // a file written before it was owner-only
  } catch (err) {
    log?.warn({ err, file }, 'sandbox state file could not be made owner-only');
  }
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
  writeFileSync(temporary, JSON.stringify(snapshot), { mode: ownerOnly });
  chmodSync(temporary, ownerOnly); // the mode applies only to a file writeFileSync creates, not a leftover one
  renameSync(temporary, file);
}

export type StateWriter = { schedule(): void; flush(): void };

/** Coalesces bursts of changes into one write `delayMs` later (wall time: this is I/O pacing, not business time). */
export function debouncedWriter(
  file: string,
  snapshot: () => SandboxSnapshot,
  log?: Logger,
  delayMs = 200,
): StateWriter {
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
