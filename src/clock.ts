import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The one source of time. Tests pass a TestClock and move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class TestClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-05T03:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/**
 * The test clock (TEST_CLOCK=true): the system's time moved forward by an offset that only grows,
 * kept in a file so that a restart never takes time back.
 */
export class ShiftedClock implements Clock {
  private offsetMs: number;
  constructor(
    private readonly file: string,
    private readonly system: () => number = Date.now,
  ) {
    this.offsetMs = existsSync(file) ? Math.max(0, Number(JSON.parse(readFileSync(file, 'utf8')).offsetMs) || 0) : 0;
  }
  now(): Date {
    return new Date(this.system() + this.offsetMs);
  }
  get offset(): number {
    return this.offsetMs;
  }
  /** Moves the clock forward by `ms` (at least 0) and answers by how much it moved. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError('the test clock moves forward only');
    const offsetMs = this.offsetMs + ms;
    // kept before it is used, written aside and renamed over: a crash mid-write leaves the old offset, never a bad file
    writeFileSync(`${this.file}.tmp`, JSON.stringify({ offsetMs }), { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
    this.offsetMs = offsetMs;
    return ms;
  }
  /** Moves the clock to `at`, which must not be before now; answers by how much it moved. */
  setTo(at: Date): number {
    return this.advance(at.getTime() - this.now().getTime());
  }
}
