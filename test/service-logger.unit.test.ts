import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a script that logs with the service's logger and then exits as the service does, and returns what it wrote. */
function logThenExit(exit: string): string[] {
  const script = `
    import { serviceLogger } from './src/logger.ts';
    const log = serviceLogger('info');
    for (let i = 0; i < 2000; i++) log.info({ i, password: 'hunter2' }, 'line ' + i);
    ${exit}
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).not.toBeNull();
  return r.stdout.split('\n').filter(Boolean);
}

describe("the service's asynchronous logger", () => {
  it('writes every line logged before process.exit, in order, with secrets redacted', () => {
    const lines = logThenExit('process.exit(0);');
    expect(lines).toHaveLength(2000);
    const parsed = lines.map(l => JSON.parse(l) as { i: number; password: string });
    expect(parsed.map(p => p.i)).toEqual([...Array(2000).keys()]);
    expect(new Set(parsed.map(p => p.password))).toEqual(new Set(['[redacted]']));
  });

  it('writes every line logged before a fatal error ends the process', () => {
    const lines = logThenExit("throw new Error('boom');");
    expect(lines).toHaveLength(2000);
  });
});
