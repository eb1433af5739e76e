import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDelivery } from '../../src/webhooks/delivery-runner.ts';
import { deliverWebhookTask } from '../../src/webhooks/jobs.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';
import { runJobQueue } from '../../src/db/job-queue.ts';
import { ensureRunnersTable, heartbeat, unlockJobsOfDeadWorkers } from '../../src/db/queue-liveness.ts';
import { createLogger } from '../../src/logger.ts';
import { ensureWebhookSchema } from '../../src/webhooks/schema.ts';
import { freshPool } from '../support/database.ts';
import { keyHolder } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { startReceiver, startWebhookTestService } from '../webhooks/support.ts';
import { nextUuid } from '../support/ids.ts';

/** Which locked webhook jobs count as cut off by a dead process (the SIGKILL itself: test/e2e/webhook-crash.e2e.test.ts). */
describe('unlocking the jobs of dead workers', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = await freshPool(4);
    await ensureWebhookSchema(pool);
    await ensureRunnersTable(pool);
  });
  afterAll(async () => {
    await pool?.end();
  });

  /** A job of `task`, locked by `workerId` `lockedSecondsAgo` ago, as the queue's get_job leaves it (set by hand here). */
  async function lockedJob(task: string, workerId: string, lockedSecondsAgo: number): Promise<string> {
    const added = await pool.query<{ id: string }>('select id::text from graphile_worker.add_job($1, $2::json)', [
      task,
      JSON.stringify({ n: nextUuid() }),
    ]);
    const id = added.rows[0]!.id;
    await pool.query(
      `update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::int * interval '1 second' where id = $1`,
      [id, workerId, lockedSecondsAgo],
    );
    return id;
  }
  const lockOf = async (id: string) =>
    (await pool.query('select locked_by from graphile_worker.jobs where id = $1', [id])).rows[0]?.locked_by ?? null;

  it('unlocks the jobs of runners silent for too long and of workers no runner claims, and nothing else', async () => {
    await heartbeat(pool, { id: 'live-runner', workerIds: ['worker-live-1', 'worker-live-2'], deadAfterMs: 20_000 });
    await heartbeat(pool, { id: 'silent-runner', workerIds: ['worker-silent'], deadAfterMs: 20_000 });
    await heartbeat(pool, { id: 'slow-beating-runner', workerIds: ['worker-slow'], deadAfterMs: 120_000 }); // another queue's timing
    await pool.query(
      `update queue_runners set heartbeat_at = now() - interval '1 minute' where id in ('silent-runner', 'slow-beating-runner')`,
    );

    const ofLiveRunner = await lockedJob(deliverWebhookTask, 'worker-live-2', 3600); // a live runner's, however old
    const ofSilentRunner = await lockedJob(deliverWebhookTask, 'worker-silent', 60);
    const ofNobody = await lockedJob(deliverWebhookTask, 'worker-gone', 60);
    const ofSlowRunner = await lockedJob(deliverWebhookTask, 'worker-slow', 60); // its runner may be silent 2 minutes // e.g. a process that died before its first beat
    const justLocked = await lockedJob(deliverWebhookTask, 'worker-starting', 1); // its runner may not have beaten yet
    const otherTask = await lockedJob('sync-account', 'worker-of-another-runner', 3600); // not ours to judge

    const unlocked = await unlockJobsOfDeadWorkers(pool, [deliverWebhookTask], 20_000);
    expect(unlocked.sort()).toEqual(['worker-gone', 'worker-silent']);
    expect(await lockOf(ofSilentRunner)).toBeNull();
    expect(await lockOf(ofNobody)).toBeNull();
    expect(await lockOf(ofLiveRunner)).toBe('worker-live-2');
    expect(await lockOf(ofSlowRunner)).toBe('worker-slow');
    expect(await lockOf(justLocked)).toBe('worker-starting');
    expect(await lockOf(otherTask)).toBe('worker-of-another-runner');
    const runners = await pool.query('select id from queue_runners order by id');
    expect(runners.rows).toEqual([{ id: 'live-runner' }, { id: 'slow-beating-runner' }]); // the silent one is forgotten; it would beat itself back in

    // the sync queue's runners judge its jobs the same way
    expect(await unlockJobsOfDeadWorkers(pool, ['sync-account'], 20_000)).toEqual(['worker-of-another-runner']);
    expect(await lockOf(otherTask)).toBeNull();
  });
});

describe('a queue that finds a job of its tasks left locked by a dead process', () => {
  it('runs it again within about deadAfterMs, whatever the task (here the account syncs)', async () => {
    const pool = await freshPool(6);
    try {
      await runMigrations({ pgPool: pool, logger: new WorkerLogger(() => () => undefined) });
      const added = await pool.query<{ id: string }>(
        `select id::text from graphile_worker.add_job('sync-account', '{"accountId":"cut-off"}'::json)`,
      );
      // as a process killed in the middle of the job leaves it: locked by a worker nobody claims, for a minute now
      await pool.query(
        `update graphile_worker._private_jobs set locked_by = 'worker-of-a-killed-process', locked_at = now() - interval '1 minute' where id = $1`,
        [added.rows[0]!.id],
      );
      const ran: unknown[] = [];
      const queue = await runJobQueue(
        'job queue',
        {
          pgPool: pool,
          concurrency: 2,
          pollInterval: 100,
          liveness: { heartbeatMs: 100, deadAfterMs: 500 },
          taskList: { 'sync-account': async payload => void ran.push(payload) },
        },
        createLogger('silent'),
      );
      try {
        await eventually(async () => ran.length === 1, 10_000);
        expect(ran).toEqual([{ accountId: 'cut-off' }]);
        // the queue completes the job once the task has returned, a moment after `ran` saw it
        const jobsLeft = async () =>
          (await pool.query('select count(*)::int as n from graphile_worker.jobs')).rows[0].n;
        await eventually(async () => (await jobsLeft()) === 0, 10_000);
        await new Promise(resolve => setTimeout(resolve, 300)); // and does not run it a second time
        expect(ran).toHaveLength(1);
      } finally {
        await queue.stop();
      }
    } finally {
      await pool.end();
    }
  });
});

describe('two live runners on one database', () => {
  let service: TestService;
  beforeAll(async () => {
    // beats every 100 ms and presumes a runner dead after 500 ms; the receiver takes 3 s to answer the first attempt
    service = await startWebhookTestService(
      { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_SECONDS: '10' },
      { retryDelaysMs: [0, 50], pollIntervalMs: 50, heartbeatMs: 100, deadAfterMs: 500 },
    );
  });
  afterAll(async () => {
    await service?.close();
  });

  it("never unlock each other's attempts in flight, however long they last", async () => {
    const other = await startWebhookDelivery(service.deps, service.deps.config.webhooks); // as another process would
    const receiver = await startReceiver(n => ({ status: 200, delayMs: n === 0 ? 3000 : 0 }));
    try {
      const owner = await keyHolder(service);
      const registered = await owner.call('POST', '/api/v1/webhooks', { url: receiver.url });
      const endpointId = registered.json().data.id as string;
      await enqueueWebhookEvent(service.deps, {
        ownerId: owner.id,
        eventId: nextUuid(),
        type: 'payment.completed',
        createdAt: service.clock.now().toISOString(),
        data: {},
      });

      await eventually(async () => receiver.received.length === 1);
      const locked = await service.pool.query(
        `select locked_by from graphile_worker.jobs where task_identifier = $1 and locked_by is not null`,
        [deliverWebhookTask],
      );
      expect(locked.rows).toHaveLength(1);
      await new Promise(r => setTimeout(r, 2000)); // four times deadAfterMs: both runners beat and swept many times
      const still = await service.pool.query(
        `select locked_by from graphile_worker.jobs where task_identifier = $1 and locked_by is not null`,
        [deliverWebhookTask],
      );
      expect(still.rows).toEqual(locked.rows);

      const delivered = await eventually(async () => {
        const [d] = (await owner.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`)).json().data;
        return d?.status === 'succeeded' ? d : null;
      });
      expect(delivered.attempts).toHaveLength(1);
      expect(receiver.received).toHaveLength(1); // sent once: not again by the other runner
    } finally {
      await other.stop();
      await receiver.close();
    }
  });

  it('forgets a runner that stops cleanly; every queue of the service beats with its workers', async () => {
    const other = await startWebhookDelivery(service.deps, service.deps.config.webhooks);
    const count = async (name: string) =>
      (
        await service.pool.query(
          `select count(*)::int as n from queue_runners where id like $1 || '-%' and cardinality(worker_ids) > 0`,
          [name],
        )
      ).rows[0].n as number;
    expect(await count('webhook-queue')).toBe(2);
    expect(await count('job-queue')).toBe(1); // the account syncs' runner
    await other.stop();
    expect(await count('webhook-queue')).toBe(1);
  });
});
