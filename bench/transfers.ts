/**
 * `npm run bench -- transfers`: bank-create throughput on one WALLET-A account against the same number of plain payment
 * creations into one account, on the service started as `npm start` starts it. Each bank-create's bank-init is made
 * beforehand (it asks the provider for the holder's name: not what is timed); then N bank-creates and N payment
 * creations run with the same concurrency, rounds alternating. The requests come from this process (fetch), which
 * idles while the service works. Goal: bank-create at least 0.5x the payment rate.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/db/free-port.ts';
import { fmtRatio, markdownTable, textTable, writeResults, type BenchContext } from './harness.ts';
import { merchant, postJson } from './payments.ts';
import { killOnExit, startService } from './processes.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `work` for 0..n-1 with at most `concurrency` at once; answers the seconds it took. */
async function timed(n: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

export async function run(ctx: BenchContext): Promise<void> {
  const n = ctx.quick ? 100 : 500;
  const rounds = ctx.quick ? 1 : 3;
  const concurrency = 8;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-transfers-'));
  const service = await startService({
    checkout: repoRoot,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    logFile: path.join(dataDir, 'service.log'),
  });
  const stopOnExit = killOnExit([service]);
  try {
    const m = await merchant(service.url, 7, 1);
    const api = (route: string, body: unknown) => postJson(`${service.url}${route}`, body, { 'x-api-key': m.key });
    // WALLET-A: created with its PIN, logged in by its OTP, funded in the sandbox, synchronised
    const phoneNumber = '081377700001';
    const created = await api('/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-A',
      accountName: 'Payouts',
      intervalMinutes: 1440,
      phoneNumber,
      pin: '123456',
    });
    const wallet = created.accountId as string;
    const sent = await api('/api/v1/accounts', {
      action: 'wallet-a-send-otp',
      phoneNumber,
      pin: '123456',
      accountId: wallet,
    });
    const otp = (
      (await (await fetch(`${service.sandboxUrl}/sandbox/otp?phone=${phoneNumber}`)).json()) as { code: string }
    ).code;
    await api('/api/v1/accounts', { action: 'wallet-a-verify-otp', sessionId: sent.sessionId, otp, accountId: wallet });
    await postJson(`${service.sandboxUrl}/sandbox/transactions`, {
      providerCode: 'WALLET-A',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 1_000_000_000,
      senderName: 'Top up',
    });
    await fetch(`${service.url}/api/v1/accounts/${wallet}/refresh`, { headers: { 'x-api-key': m.key } });
    const bank = (
      (await api(`/api/v1/accounts/${wallet}/transfer`, { action: 'wallet-a-bank-list' })).data as Record<
        string,
        string
      >[]
    )[0]!;

    const results: { side: string; round: number; perSecond: number }[] = [];
    let order = 0;
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? ['bank-create', 'payment'] : ['payment', 'bank-create']) {
        if (side === 'bank-create') {
          const indexes: string[] = [];
          for (let i = 0; i < n; i++) {
            const init = await api(`/api/v1/accounts/${wallet}/transfer`, {
              action: 'wallet-a-bank-init',
              accountNumber: '1234567890',
              amount: String(10_000 + i),
              ...bank,
            });
            indexes.push((init.data as { bankAccountIndexNo: string }).bankAccountIndexNo);
          }
          const seconds = await timed(n, concurrency, async i => {
            await api(`/api/v1/accounts/${wallet}/transfer`, {
              action: 'wallet-a-bank-create',
              bankAccountIndexNo: indexes[i],
              amount: String(10_000 + i),
            });
          });
          results.push({ side, round, perSecond: n / seconds });
        } else {
          const seconds = await timed(n, concurrency, async i => {
            await api('/api/v1/payments', {
              amount: 10_000 + (order++ % 100_000) * 10,
              walletAccountId: m.accountIds[0],
              redirectUrl: 'https://shop.example/thanks',
              orderId: `bench-${round}-${i}-${order}`,
            });
          });
          results.push({ side, round, perSecond: n / seconds });
        }
        console.log(`  ${side} round ${round + 1}: ${results.at(-1)!.perSecond.toFixed(0)}/s`);
      }
    }
    const median = (side: string) =>
      [...results.filter(r => r.side === side).map(r => r.perSecond)].sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
    const banks = median('bank-create');
    const payments = median('payment');
    const header = ['load', 'per second', 'payment creations per second (same run)', 'ratio', 'goal'];
    const rows = [
      [
        `${n} bank-creates on one wallet, ${concurrency} at a time`,
        banks.toFixed(0),
        payments.toFixed(0),
        fmtRatio(banks / payments),
        `>= 0.5x: ${banks / payments >= 0.5 ? 'PASS' : 'below'}`,
      ],
    ];
    console.log(textTable(header, rows));
    writeResults(
      'transfers',
      { n, rounds, concurrency, results },
      `# Bank-create throughput on one wallet\n\n${ctx.quick ? 'Quick run: not a measurement.\n\n' : ''}Against plain payment creations into one account, same service (npm start), same concurrency, ${rounds} round(s) alternating, medians; the bank-inits are made beforehand and not timed.\n\n${markdownTable(header, rows)}\n`,
    );
  } finally {
    await service.stop();
    stopOnExit();
  }
}
