/**
 * The payments benchmark's load generator, run as a process of its own (bench/payments.ts forks it), so that neither
 * the service nor the bare route shares its event loop: autocannon against the URL it is sent (or the instances it is
 * sent, the connections split between them) as fast as answered, or at a steady pace of its own (open loop), one load
 * at a time.
 * `{ type: 'run', id, load }` is answered with `{ type: 'result', id, result }` (or `{ type: 'failed', id, error }`).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';

export type LoadTarget =
  { kind: 'bare'; url: string } | { kind: 'payments'; url: string; key: string; accountIds: string[]; type?: string };

export type LoadRequest = {
  target: LoadTarget;
  connections: number;
  durationSec: number;
  /**
   * A steady pace: this many requests per second in all, one every 1/rate s whatever the answers (an open loop; each
   * latency counted from when its request was due), else as fast as answered. Not autocannon's overallRate: that sends
   * each connection's share of a second back to back at the second's start (a burst every second), and corrects its
   * latencies for an expected interval rounded up to 1 ms.
   */
  overallRate?: number;
  /**
   * Base URLs of instances sharing the load (the target's url ignored): the connections (and the pace) split evenly,
   * one autocannon per instance, all at once; counts add up, latencies are the worst instance's.
   */
  splitAcross?: string[];
};

export type LoadResult = {
  /** 2xx answers per second over the load (autocannon's average counts every answer, refusals too) */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  /** this process's CPU during the load */
  cpuMs: number;
};

/** One POST of a load: where it goes, its headers and its body. */
type Post = { path: string; headers: Record<string, string>; body: string };

let n = 0;
/**
 * Amounts from 10,000 to 1,009,000 in steps of 1,000: with unique codes 1 to 999, one account can hold about a million
 * pending payments before two would need the same total, so no load here runs out of codes or searches long for one.
 */
const amount = () => 10_000 + (n % 1000) * 1_000;

const nextPost = (target: LoadTarget): (() => Post) => {
  if (target.kind === 'bare')
    return () => {
      n++;
      return {
        path: '/bare',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: amount(),
          walletAccountId: randomUUID(),
          redirectUrl: 'https://shop.example/thanks',
          orderId: `bench-${n}-${randomUUID()}`,
        }),
      };
    };
  const headers = { 'content-type': 'application/json', 'x-api-key': target.key };
  return () => {
    n++;
    const walletAccountId = target.accountIds[n % target.accountIds.length]!;
    const body = JSON.stringify({
      amount: amount(),
      walletAccountId,
      redirectUrl: 'https://shop.example/thanks',
      orderId: `bench-${n}-${randomUUID()}`,
      ...(target.type ? { type: target.type } : {}),
    });
    return { path: '/api/v1/payments', headers, body };
  };
};

/** The steady pace (LoadRequest.overallRate): an open loop over keep-alive connections, spread over `urls` in turn. */
async function paced(target: LoadTarget, urls: string[], rate: number, durationSec: number): Promise<LoadResult> {
  const next = nextPost(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (url: string, due: number) => {
    const post = next();
    const done = new Promise<void>(resolve => {
      const req = http.request(new URL(post.path, url), { method: 'POST', agent, headers: post.headers }, res => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode! >= 200 && res.statusCode! < 300) {
            ok++;
            latencies.push(performance.now() - due);
          } else non2xx++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(post.body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  const intervalMs = 1000 / rate;
  const total = Math.round(rate * durationSec);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise(r => setTimeout(r, wait));
    send(urls[i % urls.length]!, due);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? NaN;
  return {
    rps: ok / durationSec,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: latencies.at(-1) ?? NaN,
    ok,
    non2xx,
    errors,
    seconds,
    cpuMs: 0,
  };
}

async function load(request: LoadRequest): Promise<LoadResult> {
  const urls = request.splitAcross ?? [request.target.url];
  if (request.overallRate !== undefined) {
    const cpu0 = process.cpuUsage();
    const result = await paced(request.target, urls, request.overallRate, request.durationSec);
    const cpu = process.cpuUsage(cpu0);
    return { ...result, cpuMs: (cpu.user + cpu.system) / 1000 };
  }
  const cpu0 = process.cpuUsage();
  const parts = await Promise.all(
    urls.map((url, i) => {
      // the remainder to the first instances: every connection is used
      const connections =
        Math.floor(request.connections / urls.length) + (i < request.connections % urls.length ? 1 : 0);
      return loadOne({ ...request.target, url }, connections, request.durationSec);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const worst = (pick: (r: LoadResult) => number) => Math.max(...parts.map(pick));
  const ok = parts.reduce((a, r) => a + r.ok, 0);
  const seconds = worst(r => r.seconds);
  return {
    rps: parts.reduce((a, r) => a + r.rps, 0),
    p50: worst(r => r.p50),
    p90: worst(r => r.p90),
    p99: worst(r => r.p99),
    max: worst(r => r.max),
    ok,
    non2xx: parts.reduce((a, r) => a + r.non2xx, 0),
    errors: parts.reduce((a, r) => a + r.errors, 0),
    seconds,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

function loadOne(target: LoadTarget, connections: number, durationSec: number): Promise<LoadResult> {
  const next = nextPost(target);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        connections,
        duration: durationSec,
        // each connection's next request takes the next POST
        requests: [{ method: 'POST', setupRequest: (r: autocannon.Request) => ({ ...r, ...next() }) }],
      },
      (err, result) => {
        if (err) return reject(err);
        const ok = result['2xx'];
        resolve({
          rps: ok / result.duration,
          p50: result.latency.p50,
          p90: result.latency.p90,
          p99: result.latency.p99,
          max: result.latency.max,
          ok,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          seconds: result.duration,
          cpuMs: 0, // the process's, counted by load()
        });
      },
    );
  });
}

process.on('message', message => {
  const m = message as { type: string; id: number; load: LoadRequest };
  if (m.type === 'stop') process.exit(0);
  if (m.type !== 'run') return;
  load(m.load).then(
    result => process.send!({ type: 'result', id: m.id, result }),
    (err: unknown) => process.send!({ type: 'failed', id: m.id, error: String((err as Error)?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', pid: process.pid });
