import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { spawnService, type RunningService } from '../support/process.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-start-'));
let running: RunningService | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether anything accepts a TCP connection on `port` of `host`. */
const listening = (port: number, host: string) =>
  new Promise<boolean>(resolve => {
    const socket = net.connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('the sandbox provider in production', () => {
  it('is not started on embedded defaults with NODE_ENV=production, and the start says nothing of it', async () => {
    const sandboxPort = await freePort();
    running = await spawnService({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SANDBOX_PORT: String(sandboxPort),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
    });
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    expect(await listening(sandboxPort, '127.0.0.1')).toBe(false);
    expect(running.output()).not.toMatch(/Sandbox provider/);
  });

  it('refuses to start when SANDBOX=true is asked for with NODE_ENV=production', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'production', SANDBOX: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', chunk => (output += chunk));
    // a start that is not refused would run on: stopped, so that the failure is the assertion below, not a leak
    const stop = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
    clearTimeout(stop);
    expect(code).toBe(2);
    expect(output).toMatch(/SANDBOX: refused with NODE_ENV=production/);
  });
});
