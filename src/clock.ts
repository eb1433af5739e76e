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
