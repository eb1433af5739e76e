/**
 * The payments benchmark's ceiling, run as a process of its own (bench/payments.ts forks it): a bare fastify route
 * doing one prepared INSERT of a row like a payment into its own embedded PostgreSQL, in a temporary data folder
 * deleted when it stops. The same pool size and idle time as the service's, no logging, no validation.
 * Tells its parent `{ type: 'ready', url, pid, version }` (version: PostgreSQL's); stops on `{ type: 'stop' }`,
 * SIGINT, SIGTERM or its parent's end.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';

/** The service's pool size (src/core.ts), and how long it keeps an idle connection (src/db/pool.ts). */
const poolSize = 30;
const idleConnectionMs = 10 * 60_000;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-payments-bare-'));
const db = await startEmbeddedPostgres({ dataDir, password: 'bench' });
const pool = new pg.Pool({ connectionString: db.url, max: poolSize, idleTimeoutMillis: idleConnectionMs });
pool.on('error', () => undefined);
const version = (await pool.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
await pool.query(
  `create table if not exists bare_payments (id uuid primary key, order_id text not null, amount bigint not null, body jsonb not null, created_at timestamptz not null default now())`,
);

const app = Fastify({ logger: false });
app.post('/bare', async request => {
  const body = request.body as { orderId: string; amount: number };
  const id = randomUUID();
  await pool.query({
    name: 'bare-insert',
    text: 'insert into bare_payments (id, order_id, amount, body) values ($1, $2, $3, $4)',
    values: [id, body.orderId, body.amount, body],
  });
  return { status: 'success', data: { id, amount: body.amount } };
});
const port = Number(process.env.BARE_PORT ?? 0);
const url = await app.listen({ port, host: '127.0.0.1' });

let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= (async () => {
    await app.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  })().finally(() => process.exit(0)));

process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('disconnect', stop);
process.on('message', message => {
  if ((message as { type?: string }).type === 'stop') void stop();
});
process.send?.({ type: 'ready', url, pid: process.pid, version });
