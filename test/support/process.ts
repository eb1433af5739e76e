import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export type RunningService = { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> };

/** Starts `src/main.ts` as its own node process (no npm or npx in between, so signals reach it). */
export async function spawnService(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', chunk => (output += chunk));
  child.stderr!.on('data', chunk => (output += chunk));
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), timeoutMs);
    const check = () => {
      const match = /Service ready: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(code => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before it was ready:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}
