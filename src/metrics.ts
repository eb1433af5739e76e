import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from './clock.ts';
import { query } from './db/pool.ts';
import type { Logger } from './logger.ts';
import { listCheckpoints } from './store/checkpoints.ts';
import type { EventStore } from './store/event-store.ts';

/**
 * The service's Prometheus metrics, one registry per service (tests run several in a process).
 * Counters and histograms count what this process did (Prometheus sums the processes); the gauges of projection lag
 * and queue depth are read from PostgreSQL when scraped, so every process tells the same.
 */
export type ServiceMetrics = {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status_code'>;
  httpDuration: Histogram<'method' | 'route'>;
  webhookAttempts: Counter<'outcome'>;
};

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: success (2xx), failure (another status) or error (no answer)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}

type Sources = { pool: pg.Pool; store: EventStore; clock: Clock; log: Logger };

/** How far behind each projection and saga is: the age of the oldest event it has not handled (0 when caught up). */
async function subscriberLag(sources: Sources, gauge: Gauge<'subscriber'>) {
  const now = sources.clock.now().getTime();
  const lags = await Promise.all(
    (await listCheckpoints(sources.pool)).map(async ({ name, position }) => {
      const [next] = await sources.store.readAll(position, 1);
      return { name, seconds: next ? Math.max(0, now - Date.parse(next.metadata.occurredAt)) / 1000 : 0 };
    }),
  );
  gauge.reset();
  for (const { name, seconds } of lags) gauge.set({ subscriber: name }, seconds);
}

/** The job queue's jobs by task and state: due, scheduled for later, running, or failed for good. */
async function queueDepth(sources: Sources, gauge: Gauge<'task' | 'state'>) {
  const rows = await query<{ task: string; state: string; n: number }>(
    sources.pool,
    'MetricsQueueDepth',
    `select task_identifier as task,
            case when attempts >= max_attempts then 'failed' when locked_at is not null then 'running'
                 when run_at <= now() then 'due' else 'scheduled' end as state,
            count(*)::int as n
       from graphile_worker.jobs group by 1, 2`,
  );
  gauge.reset();
  for (const r of rows.rows) gauge.set({ task: r.task, state: r.state }, r.n);
}

/** Adds the gauges read at scrape time; a source that cannot answer leaves its gauge empty (and says so at debug). */
export function observeSources(metrics: ServiceMetrics, sources: Sources): void {
  const collecting = (what: string, work: () => Promise<void>) => async () => {
    await work().catch(err => sources.log.debug({ err }, `metrics: ${what} not collected`));
  };
  const lag: Gauge<'subscriber'> = new Gauge({
    name: 'subscriber_lag_seconds',
    help: 'Age of the oldest event a projection or saga has not handled yet (0 when caught up)',
    labelNames: ['subscriber'],
    registers: [metrics.registry],
    collect: collecting('subscriber lag', () => subscriberLag(sources, lag)),
  });
  const depth: Gauge<'task' | 'state'> = new Gauge({
    name: 'job_queue_jobs',
    help: 'Jobs in the durable queue (syncs, checks, webhook attempts) by task and state',
    labelNames: ['task', 'state'],
    registers: [metrics.registry],
    collect: collecting('queue depth', () => queueDepth(sources, depth)),
  });
}
