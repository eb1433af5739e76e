/**
 * `npm run bench -- gateway-payments`: GATEWAY payment creation (walletAccountId "GATEWAY", QRIS-DYNAMIC, billed into a
 * holding account with the fee) against direct payment creation into the merchant's own linked wallet, on the same
 * service started as `npm start` starts it, with autocannon in a process of its own, rounds alternating. Goal
 * The goal: the gateway at least 0.8x the direct rate. One holding account against one own account, and four against four.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/db/free-port.ts';
import { fmtRatio, markdownTable, textTable, writeResults, type BenchContext } from './harness.ts';
import { forkReady, LoadGenerator, merchant, postJson, stopChild } from './payments.ts';
import type { LoadResult } from './payments-load.ts';
import { killOnExit, startService } from './processes.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The platform's admin (made by the CLI, as a person makes one), signed in, with `count` holding accounts marked. */
async function platform(baseUrl: string, dataDir: string, count: number) {
  const email = `admin-${Date.now()}@bench.example`;
  await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'create-admin',
      '--name',
      'Admin',
      '--email',
      email,
      '--password',
      'rahasia123',
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    },
  );
  let cookie = '';
  for (let i = 0; i < 100 && !cookie; i++) {
    const login = await fetch(`${baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'rahasia123' }),
    });
    if (login.ok) cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    else await new Promise(r => setTimeout(r, 100));
  }
  const key = (
    (await postJson(`${baseUrl}/api/dashboard/api-keys`, { name: 'platform' }, { cookie })).data as { key: string }
  ).key;
  for (let i = 0; i < count; i++) {
    const linked = await postJson(
      `${baseUrl}/api/v1/accounts`,
      {
        type: 'ewallet',
        providerCode: 'WALLET-D',
        accountName: `Holding ${i}`,
        intervalMinutes: 1440,
        phoneNumber: `0818000${String(i).padStart(5, '0')}`,
      },
      { 'x-api-key': key },
    );
    await postJson(`${baseUrl}/api/admin/gateway/holding-accounts`, { accountId: linked.accountId }, { cookie });
  }
  return { cookie };
}

export async function run(ctx: BenchContext): Promise<void> {
  const durationSec = ctx.quick ? 3 : 10;
  const rounds = ctx.quick ? 1 : 3;
  const connections = 16;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  const service = await startService({
    checkout: repoRoot,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    logFile: path.join(dataDir, 'service.log'),
  });
  const stopOnExit = killOnExit([service]);
  const generator = await forkReady<{ pid: number }>('payments-load.ts');
  const load = new LoadGenerator(generator.child);
  try {
    const admin = await platform(service.url, dataDir, 4);
    const results: Record<string, LoadResult[]> = {};
    for (const size of [1, 4]) {
      const m = await merchant(service.url, size, size);
      // the merchant asks for gateway access and the admin approves it
      const cookie = m.cookie;
      await postJson(
        `${service.url}/api/dashboard/gateway/access-request`,
        { businessName: 'Bench', businessType: 'retail', phone: '081234567890', address: 'Jakarta' },
        { cookie },
      );
      const me = (await (await fetch(`${service.url}/api/auth/me`, { headers: { cookie } })).json()) as { id: string };
      await postJson(`${service.url}/api/admin/gateway/access-requests/${me.id}/approve`, {}, { cookie: admin.cookie });
      for (let round = 0; round < rounds; round++) {
        for (const side of round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct']) {
          const target =
            side === 'direct'
              ? {
                  kind: 'payments' as const,
                  url: service.url,
                  key: m.key,
                  accountIds: m.accountIds,
                  type: 'QRIS-DYNAMIC',
                }
              : {
                  kind: 'payments' as const,
                  url: service.url,
                  key: m.key,
                  accountIds: ['GATEWAY'],
                  type: 'QRIS-DYNAMIC',
                };
          const result = await load.run({ target, connections, durationSec });
          (results[`${side}-${size}`] ??= []).push(result);
          console.log(
            `  ${side} (${size} account${size > 1 ? 's' : ''}) round ${round + 1}: ${result.rps.toFixed(0)} payments/s, p99 ${result.p99} ms, non-2xx ${result.non2xx}`,
          );
        }
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const rows = [1, 4].map(size => {
      const direct = median(results[`direct-${size}`]!.map(r => r.rps));
      const gateway = median(results[`gateway-${size}`]!.map(r => r.rps));
      const p99 = median(results[`gateway-${size}`]!.map(r => r.p99));
      return [
        `direct into ${size} own account${size > 1 ? 's' : ''}; GATEWAY over 4 holding accounts`,
        direct.toFixed(0),
        gateway.toFixed(0),
        `${p99} ms`,
        fmtRatio(gateway / direct),
        gateway / direct >= 0.8 ? 'PASS' : 'below',
      ];
    });
    const header = [
      'load',
      'direct payments/s',
      'GATEWAY payments/s',
      'GATEWAY p99',
      'GATEWAY / direct',
      'goal >= 0.8x',
    ];
    console.log(textTable(header, rows));
    writeResults(
      'gateway-payments',
      { durationSec, rounds, connections, results },
      `# GATEWAY payment creation against direct creation\n\n${durationSec} s per load, ${rounds} round(s) alternating, ${connections} connections, medians.${ctx.quick ? ' Quick run: not a measurement.' : ''}\n\n${markdownTable(header, rows)}\n`,
    );
  } finally {
    await stopChild(generator.child);
    await service.stop();
    stopOnExit();
  }
}
