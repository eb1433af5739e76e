import { describe, expect, it } from 'vitest';
import { runPaced } from '../../bench/harness.ts';

const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

describe('paced load (bench harness)', () => {
  it('sends at the given rate whatever the answers take', async () => {
    const run = await runPaced({
      rate: 500,
      durationMs: 300,
      maxInFlight: 64,
      signal: new AbortController().signal,
      operation: () => sleep(20),
    });
    expect(run.sent).toBeGreaterThanOrEqual(140);
    expect(run.sent).toBeLessThanOrEqual(160);
    expect(run.completed).toBe(run.sent);
    expect(run.failed).toBe(0);
  });

  it('counts each latency from the moment its request was due, so a service that falls behind shows it', async () => {
    // one at a time, 10 ms each, asked for every 2 ms: the queue grows by 4 ms per request
    const run = await runPaced({
      rate: 500,
      durationMs: 100,
      maxInFlight: 1,
      signal: new AbortController().signal,
      operation: () => sleep(10),
    });
    const sorted = [...run.latencies].sort((a, b) => a - b);
    expect(run.completed).toBe(run.sent);
    expect(sorted.at(-1)!).toBeGreaterThan(4 * run.sent); // the last waited for all the others, not just its own 10 ms
    expect(run.seconds).toBeGreaterThan((10 * run.sent) / 1000);
  });

  it('counts failed operations apart', async () => {
    let n = 0;
    const run = await runPaced({
      rate: 200,
      durationMs: 100,
      maxInFlight: 8,
      signal: new AbortController().signal,
      operation: async () => {
        if (n++ % 2) throw new Error('no');
      },
    });
    expect(run.failed + run.completed).toBe(run.sent);
    expect(run.failed).toBeGreaterThan(0);
  });
});
