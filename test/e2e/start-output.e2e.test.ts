import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { spawnService, type RunningService } from '../support/process.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-start-output-'));
let running: RunningService | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The output's lines, the access log's aside (this test's own requests). */
const lines = (text: string) => text.split('\n').filter(l => l.trim() !== '' && !l.includes('"request completed"'));

describe('what a person sees when the service starts and stops', () => {
  it('a few lines at the default level: the dashboard at PUBLIC_BASE_URL, the API docs, the sandbox, the key; Ctrl-C ends it in one more', async () => {
    const port = await freePort();
    // the default level (no LOG_LEVEL), in a process group of its own as a terminal starts it
    const { LOG_LEVEL: _, ...env } = process.env;
    running = await spawnService(
      {
        ...(env as Record<string, string>),
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        PORT: String(port),
        SANDBOX_PORT: String(await freePort()),
        PUBLIC_BASE_URL: 'https://pay.example.test',
      },
      90_000,
      { group: true },
    );
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    await new Promise(r => setTimeout(r, 1000)); // whatever the start still logs after it is ready
    const started = lines(running.output());
    expect(started.length, started.join('\n')).toBeLessThanOrEqual(10);
    expect(started).toContain('  Dashboard:  https://pay.example.test/');
    expect(started).toContain(
      '  API docs:   https://pay.example.test/docs (the OpenAPI document: https://pay.example.test/openapi.json)',
    );
    expect(started.some(l => /^ {2}Sandbox: {4}http:\/\/127\.0\.0\.1:\d+, a provider sandbox/.test(l))).toBe(true);
    expect(started.some(l => /^ {2}Ledger key: [0-9a-f]{16} /.test(l))).toBe(true);
    expect(running.output()).not.toMatch(/schema: applied|Deprecation|FSTDEP/);
    // listens on loopback only by default
    expect(running.url).toBe(`http://localhost:${port}`);

    // Ctrl-C: the terminal signals the whole foreground group
    process.kill(-running.child.pid!, 'SIGINT');
    expect(await running.exited).toBe(0);
    const after = lines(running.output()).slice(started.length);
    expect(after, after.join('\n')).toHaveLength(1);
    expect(after[0]).toMatch(/stopping: requests in flight finish/);
  }, 150_000);

  it('SIGTERM, as a container runtime or systemd sends it to the service alone, ends it in one line too', async () => {
    const { LOG_LEVEL: _, ...env } = process.env;
    running = await spawnService(
      {
        ...(env as Record<string, string>),
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir, // the first test's: a second start on a data folder that exists
        PORT: String(await freePort()),
        SANDBOX_PORT: String(await freePort()),
      },
      90_000,
    );
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    await new Promise(r => setTimeout(r, 1000));
    const started = lines(running.output()).length;
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const after = lines(running.output()).slice(started);
    expect(after, after.join('\n')).toHaveLength(1);
    expect(after[0]).toMatch(/stopping: requests in flight finish/);
  }, 150_000);
});
