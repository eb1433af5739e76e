import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShiftedClock } from '../src/clock.ts';

describe('the test clock (ShiftedClock)', () => {
  const file = () => path.join(mkdtempSync(path.join(tmpdir(), 'svc-clock-')), 'test-clock.json');
  const system = (at: string) => () => Date.parse(at);

  it('is the system time moved forward, and keeps its offset across a restart', () => {
    const where = file();
    const clock = new ShiftedClock(where, system('2026-11-23T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-11-23T00:00:00.000Z');
    clock.advance(3_600_000);
    clock.setTo(new Date('2026-11-30T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-11-30T00:00:00.000Z');
    const restarted = new ShiftedClock(where, system('2026-11-23T00:00:10Z'));
    expect(restarted.now().toISOString()).toBe('2026-11-30T00:00:10.000Z');
  });

  it('never moves back', () => {
    const clock = new ShiftedClock(file(), system('2026-11-23T00:00:00Z'));
    expect(() => clock.setTo(new Date('2026-11-22T00:00:00Z'))).toThrow(RangeError);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now().toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });
});
