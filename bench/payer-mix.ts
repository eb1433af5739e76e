/**
 * Today's fixed cadence of payment checks and the one that follows the payer (src/domain/check-cadence.ts), side by
 * side in one run, on one payer mix drawn from a fixed seed: each cadence gets a service of its own (npm start's
 * command, PAYMENT_CHECK_CADENCE=fixed or payer) and exactly the same customers at the same offsets.
 *
 * Each receiving account (a sandbox WALLET-D/E linked by phone, synchronised hourly) serves customers one after
 * another, a gap of 1 to 6 minutes between them. A customer's bill is a QRIS-DYNAMIC payment (15 minutes to pay), and
 * its page behaves as the page's script does: while in sight it asks for the status every 3 s; going out of sight it
 * asks once with `visibility=hidden` and nothing more until it is back, when it asks at once; closed, it goes out of
 * sight and says so, and at once asks with `visibility=closed` too (its pagehide).
 * - on time on a phone (60 %): the page is in sight from the bill (its QR image loaded once) while the customer reads
 *   it, then out of sight while the customer pays in the wallet app, 5 to 40 s, the payment 10 to 120 s after the bill;
 *   four in five first save the QR (`?download=1`, 1 to 4 s before leaving: a phone cannot scan its own screen), the
 *   others take a screenshot; back on the page 2 to 6 s after paying, it asks until it sees the payment COMPLETED (or
 *   20 s);
 * - on time at a desk (15 %): the page stays in sight on the computer while the customer pays by scanning its QR with a
 *   phone, 5 to 120 s after the bill; it asks until it sees the payment COMPLETED (or 20 s past paying);
 * - late (10 %): the page is in sight for 20 s, the QR downloaded (`?download=1`) in it, then closed (`hidden`, then
 *   `closed`), and paid 3 to 10 minutes after the bill from the picture;
 * - never (15 %): the page is in sight for 20 to 60 s, then closed (`hidden`, then `closed`); nobody pays.
 * Nobody presses "Saya sudah bayar"; provider push off (SANDBOX_PUSH=none), or on as the sandbox offers it. Measured: paid
 * (the sandbox's answer) to the first signed payment.completed at the merchant's endpoint, for the payments paid in
 * the measured span; the checks (AccountSynced with trigger payment-check) made in that span, per payment paid in it.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/free-port.ts';
import { fmtInt, sleep, type BenchContext } from './harness.ts';
import { startService, type StartedService } from './processes.ts';
import {
  bounded,
  call,
  linkWallet,
  registerMerchant,
  retrying,
  secs,
  serviceDatabase,
  startReceiver,
  stats,
  type Account,
  type Merchant,
  type Stats,
} from './fast-completion.ts';

export type MixSize = {
  accounts: number;
  merchants: number;
  /** customers arrive during this span; payments due after it are not paid */
  arrivalsSec: number;
  /** the measured span runs from here to the end of the arrivals (the cadences settle before it) */
  measureFromSec: number;
  /** after the arrivals, for the last webhooks */
  drainSec: number;
  gapSec: [number, number];
};
export const MIX_FULL: MixSize = {
  accounts: 1000,
  merchants: 4,
  arrivalsSec: 360,
  measureFromSec: 120,
  drainSec: 45,
  gapSec: [60, 360],
};
export const MIX_QUICK: MixSize = {
  accounts: 30,
  merchants: 1,
  arrivalsSec: 70,
  measureFromSec: 20,
  drainSec: 20,
  gapSec: [10, 40],
};

type Kind = 'on-time' | 'late' | 'never';
type Customer = {
  account: number;
  kind: Kind;
  /** a phone's page goes out of sight while its customer pays in the wallet app; a desk's stays in sight */
  device: 'phone' | 'desk';
  arriveMs: number;
  /** the page asks for the status from the bill until this long after it (on-time: until it sees the payment end) */
  pageMs: number;
  /** the page is out of sight from this long after the bill (closed, or its customer in the wallet app) ... */
  hiddenMs: number | null;
  /** ... until this long after the bill (back from the app), if it comes back; one that never does was closed */
  backMs: number | null;
  downloadMs: number | null;
  payMs: number | null;
};

/** mulberry32: the same customers for both cadences */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function payerMix(size: MixSize, seed = 39): Customer[] {
  const rand = seeded(seed);
  const between = (lo: number, hi: number) => lo + rand() * (hi - lo);
  const customers: Customer[] = [];
  for (let account = 0; account < size.accounts; account++) {
    let t = rand() * size.gapSec[1] * 1000;
    while (t < size.arrivalsSec * 1000) {
      const r = rand();
      const kind: Kind = r < 0.75 ? 'on-time' : r < 0.85 ? 'late' : 'never';
      const onDesk = kind === 'on-time' && r >= 0.6;
      const c: Customer = ((): Customer => {
        switch (kind) {
          case 'on-time': {
            const payMs = between(onDesk ? 5_000 : 10_000, 120_000);
            if (onDesk)
              return {
                account,
                kind,
                device: 'desk',
                arriveMs: t,
                pageMs: Infinity,
                hiddenMs: null,
                backMs: null,
                downloadMs: null,
                payMs,
              };
            const inAppMs = between(5_000, Math.min(40_000, payMs - 5_000));
            const hiddenMs = payMs - inAppMs;
            // most save the QR with "Unduh QRIS" for the wallet app to read; the others take a screenshot
            const downloads = rand() < 0.8;
            return {
              account,
              kind,
              device: 'phone',
              arriveMs: t,
              pageMs: Infinity,
              hiddenMs,
              backMs: payMs + between(2_000, 6_000),
              downloadMs: downloads ? Math.max(1_000, hiddenMs - between(1_000, 4_000)) : null,
              payMs,
            };
          }
          case 'late':
            return {
              account,
              kind,
              device: 'phone',
              arriveMs: t,
              pageMs: 20_000,
              hiddenMs: 20_000,
              backMs: null,
              downloadMs: between(8_000, 18_000),
              payMs: between(180_000, 600_000),
            };
          case 'never': {
            const pageMs = between(20_000, 60_000);
            return {
              account,
              kind,
              device: 'phone',
              arriveMs: t,
              pageMs,
              hiddenMs: pageMs,
              backMs: null,
              downloadMs: null,
              payMs: null,
            };
          }
          default: {
            const never: never = kind;
            throw new Error(`unknown kind ${String(never)}`);
          }
        }
      })();
      customers.push(c);
      t += (kind === 'on-time' ? c.payMs! : c.pageMs) + between(size.gapSec[0], size.gapSec[1]) * 1000;
    }
  }
  return customers;
}

/** The browsers the pages run in: a phone's says "Mobi", as phones' browsers do. */
const userAgents = {
  phone:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
  desk: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
} as const;

type Bill = { customer: Customer; id?: string; qris?: string; paidAt?: number; webhookAt?: number; failed?: string };

export type MixResult = {
  cadence: 'fixed' | 'payer';
  push: boolean;
  customers: number;
  billsCreated: number;
  paidInSpan: number;
  paidToWebhook: Stats;
  byKind: Record<'on-time' | 'late', Stats>;
  missing: number;
  checksInSpan: number;
  checksPerPaid: number;
  checksPerMinute: number;
  statusAsks: number;
  failures: string[];
  spanSeconds: number;
  loadavg: [number[], number[]];
};

const expiresInMinutes = 15;

async function bill(base: string, account: Account, b: Bill, seq: number) {
  const created = await retrying(() =>
    call<{ data: { id: string; qrString?: string; qrisImage?: string } }>(`${base}/api/v1/payments`, {
      key: account.merchant.key,
      body: {
        amount: 20_000 + (seq % 200) * 500,
        walletAccountId: account.id,
        type: 'QRIS-DYNAMIC',
        redirectUrl: 'https://shop.example/thanks',
        orderId: `mix-${process.pid}-${seq}`,
        expiresInMinutes,
      },
    }),
  );
  b.id = created.data.id;
  b.qris = created.data.qrString;
  if (!b.qris) throw new Error(`payment ${b.id} has no qrString`);
}

/** One cadence over the mix: a service of its own, the customers played on the real clock. */
export async function runMix(
  ctx: BenchContext,
  size: MixSize,
  cadence: 'fixed' | 'payer',
  push: boolean,
  tmp: string,
  started: StartedService[],
  repoRoot: string,
): Promise<MixResult | null> {
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(path.join(tmp, `mix-${cadence}-${push ? 'push' : 'poll'}-`));
  console.log(
    `\npayer mix, ${cadence} cadence, push ${push ? 'on' : 'off'}: ${fmtInt(size.accounts)} accounts; load ${loadBefore.map(l => l.toFixed(2)).join(' ')}`,
  );
  const service = await startService({
    checkout: repoRoot,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    logFile: path.join(tmp, `service-mix-${cadence}-${push ? 'push' : 'poll'}.log`),
    // the merchants' endpoints are this process's receiver, on loopback
    // the sandbox pushes for the e-wallets unless SANDBOX_PUSH=none
    env: {
      PAYMENT_CHECK_CADENCE: cadence,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...(push ? {} : { SANDBOX_PUSH: 'none' }),
    },
  });
  started.push(service);
  const receiver = await startReceiver();
  const db = serviceDatabase(dataDir);
  const timers = new Set<NodeJS.Timeout>();
  try {
    const base = service.url;
    const merchants: Merchant[] = [];
    for (let m = 0; m < size.merchants; m++) {
      const merchant = await registerMerchant(base, `Toko Mix ${cadence} ${m + 1}`);
      const endpoint = receiver.endpoint(merchant.name);
      const hook = await call<{ data: { secret: string } }>(`${base}/api/v1/webhooks`, {
        key: merchant.key,
        body: { url: endpoint.url },
      });
      endpoint.verifyWith(hook.data.secret);
      merchants.push(merchant);
    }
    const accounts = await bounded(
      Array.from({ length: size.accounts }, (_, i) => i),
      16,
      i =>
        linkWallet(
          base,
          merchants[i % merchants.length]!,
          `08173${String(i).padStart(7, '0')}`,
          i % 2 === 0 ? 'WALLET-D' : 'WALLET-E',
          1440, // synchronised daily (a point each): only the payment checks find the payments

          `Kasir ${i}`,
        ),
    );
    console.log(`  linked ${fmtInt(accounts.length)} accounts`);

    const customers = payerMix(size);
    const bills: Bill[] = customers.map(customer => ({ customer }));
    const failures: string[] = [];
    let statusAsks = 0;
    const t0 = Date.now() + 2000;
    const endMs = size.arrivalsSec * 1000;
    const at = (offsetMs: number, what: () => Promise<void>) => {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (!ctx.signal.aborted) what().catch(err => void failures.push(String(err)));
        },
        Math.max(0, t0 + offsetMs - Date.now()),
      );
      timers.add(timer);
    };
    const ask = async (b: Bill, visibility?: 'hidden' | 'closed') => {
      statusAsks++;
      const r = await fetch(`${base}/pay/${b.id}/status.json${visibility ? `?visibility=${visibility}` : ''}`, {
        headers: { 'user-agent': userAgents[b.customer.device] },
      });
      const body = (await r.json()) as { data?: { status?: string } };
      return body.data?.status;
    };
    bills.forEach((b, seq) => {
      const c = b.customer;
      const account = accounts[c.account]!;
      const later = (ms: number, what: () => void) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          what();
        }, ms);
        timers.add(timer);
      };
      at(c.arriveMs, async () => {
        await bill(base, account, b, seq);
        // the page opens: its QR image loads, then it asks for the status every 3 s while in sight
        await fetch(`${base}/pay/${b.id}/qris.png`).then(r => r.arrayBuffer());
        const opened = t0 + c.arriveMs;
        const pageUntil = opened + (c.kind === 'on-time' ? c.payMs! + 20_000 : c.pageMs);
        const poll = async () => {
          if (ctx.signal.aborted || Date.now() >= pageUntil || Date.now() >= t0 + endMs) return;
          const offset = Date.now() - opened;
          if (c.hiddenMs !== null && offset >= c.hiddenMs) {
            if (c.backMs === null) return; // closed
            // out of sight: nothing asked until the customer is back, then at once
            if (offset < c.backMs) return later(c.backMs - offset, () => void poll());
          }
          const status = await ask(b).catch(() => undefined);
          if (status && status !== 'PENDING') return;
          later(3000, () => void poll());
        };
        await poll();
      });
      // going out of sight (the wallet app, or the page closed), the page says so once; closed, it says that too, in
      // a second request sent at once (the browser's pagehide right after its visibilitychange)
      if (c.hiddenMs !== null)
        at(c.arriveMs + c.hiddenMs, async () => {
          if (!b.id || b.paidAt !== undefined) return;
          await Promise.all([ask(b, 'hidden'), c.backMs === null ? ask(b, 'closed') : undefined]);
        });
      if (c.downloadMs !== null)
        at(c.arriveMs + c.downloadMs, async () => {
          if (b.id)
            await fetch(`${base}/pay/${b.id}/qris.png?download=1`, {
              headers: { 'user-agent': userAgents[c.device] },
            }).then(r => r.arrayBuffer());
        });
      if (c.payMs !== null && c.arriveMs + c.payMs < endMs)
        at(c.arriveMs + c.payMs, async () => {
          if (!b.qris) return void (b.failed = 'not billed in time');
          await call(`${service.sandboxUrl}/sandbox/payments`, { body: { qris: b.qris } });
          b.paidAt = Date.now();
        });
    });
    await sleep(endMs + 2000, ctx.signal);
    const spanStart = t0 + size.measureFromSec * 1000;
    const spanEnd = t0 + endMs;
    console.log(`  arrivals over; draining ${size.drainSec} s ...`);
    await sleep(size.drainSec * 1000, ctx.signal);
    if (ctx.signal.aborted) return null;
    for (const b of bills) if (b.id) b.webhookAt = receiver.arrived.get(b.id);

    const checks = Number(
      (
        await db.query<{ n: string }>(
          `select count(*)::text as n from es_events where type = 'AccountSynced' and data->>'trigger' = 'payment-check'
             and (data->>'syncedAt')::timestamptz between $1 and $2`,
          [new Date(spanStart), new Date(spanEnd)],
        )
      ).rows[0]!.n,
    );
    const paid = bills.filter(b => b.paidAt !== undefined && b.paidAt >= spanStart && b.paidAt <= spanEnd);
    const latency = (list: Bill[]) => list.map(b => (b.webhookAt === undefined ? Infinity : b.webhookAt - b.paidAt!));
    const spanMinutes = (spanEnd - spanStart) / 60_000;
    const result: MixResult = {
      cadence,
      push,
      customers: customers.length,
      billsCreated: bills.filter(b => b.id).length,
      paidInSpan: paid.length,
      paidToWebhook: stats(latency(paid)),
      byKind: {
        'on-time': stats(latency(paid.filter(b => b.customer.kind === 'on-time'))),
        late: stats(latency(paid.filter(b => b.customer.kind === 'late'))),
      },
      missing: paid.filter(b => b.webhookAt === undefined).length,
      checksInSpan: checks,
      checksPerPaid: checks / paid.length,
      checksPerMinute: checks / spanMinutes,
      statusAsks,
      failures: failures.slice(0, 5),
      spanSeconds: (spanEnd - spanStart) / 1000,
      loadavg: [loadBefore, os.loadavg()],
    };
    console.log(
      `  ${cadence}: ${paid.length} paid in the span, paid → webhook p50 ${secs(result.paidToWebhook.p50)} s, p99 ${secs(result.paidToWebhook.p99)} s, ` +
        `${result.missing} missing; ${fmtInt(checks)} checks (${result.checksPerPaid.toFixed(1)} per paid payment); ${failures.length} failures`,
    );
    return result;
  } finally {
    for (const t of timers) clearTimeout(t);
    await db.end().catch(() => undefined);
    await receiver.close().catch(() => undefined);
    await service.stop().catch(err => console.error(`  stopping the service: ${String(err)}`));
    started.splice(started.indexOf(service), 1);
  }
}
