import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { checkpointNotifications } from '../db/checkpoint-notifications.ts';
import { refuse } from '../errors.ts';
import { findPayment, paymentsProjection, type PaymentRow } from '../projections/payments.ts';
import type { AppDeps } from './deps.ts';

/** A full instance or payment: the page polls meanwhile, and may try a stream again after this long. */
const retryAfterSeconds = 30;

/** The open streams of this instance, counted per payment and in all, for the limits. */
class OpenStreams {
  private readonly perPayment = new Map<string, number>();
  private total = 0;
  /** How each open stream ends, for a closing server. */
  readonly enders = new Set<() => void>();

  constructor(private readonly limits: AppDeps['config']['paymentStreams']) {}

  /** Which limit a new stream of this payment would pass, if any. */
  full(paymentId: string): 'instance' | 'payment' | null {
    if (this.total >= this.limits.perInstance) return 'instance';
    return (this.perPayment.get(paymentId) ?? 0) >= this.limits.perPayment ? 'payment' : null;
  }

  /** Counts a stream in; the answer counts it out, once however often it is called. */
  take(paymentId: string): () => void {
    this.total++;
    this.perPayment.set(paymentId, (this.perPayment.get(paymentId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perPayment.get(paymentId) ?? 1) - 1;
      if (left > 0) this.perPayment.set(paymentId, left);
      else this.perPayment.delete(paymentId);
    };
  }
}

type StatusOf = (row: PaymentRow) => unknown;

type Notifications = ReturnType<typeof checkpointNotifications.acquire>;

/**
 * The stream of one payment's status: each status once, as the page's polling answers it, until the payment ends,
 * its expiry passes or `end` is called; a heartbeat comment keeps it open meanwhile.
 */
function statusStream(
  deps: AppDeps,
  row: PaymentRow,
  opts: { statusOf: StatusOf; open: OpenStreams; notifications: Notifications; heartbeatMs: number },
) {
  const { statusOf, open, notifications, heartbeatMs } = opts;
  const stream = new PassThrough();
  const release = open.take(row.id);
  let last = '';
  let ended = false;
  // each status once, as the page's polling answers it; an ended payment ends the stream
  const send = (current: PaymentRow) => {
    if (current.status !== last) stream.write(`event: status\ndata: ${JSON.stringify(statusOf(current))}\n\n`);
    last = current.status;
    if (current.status !== 'PENDING') end();
  };
  // the row as it is now, read after the watch began: no change falls between the look and the watch
  const look = async () => {
    const current = await findPayment(deps.pool, row.id).catch(() => null);
    if (current && !ended) send(current);
  };
  const heartbeat = setInterval(() => {
    stream.write(': heartbeat\n\n');
    // past its expiry a payment's stream has nothing more to say: the expiry's own change, else the end
    if (deps.clock.now() >= row.expires_at) void look().then(end);
  }, heartbeatMs);
  const unwatch = notifications.watch(paymentsProjection.name, row.id, () => void look());
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    unwatch();
    release();
    open.enders.delete(end);
    stream.end();
  };
  open.enders.add(end);
  stream.write(`retry: ${retryAfterSeconds * 1000}\n\n`);
  send(row);
  if (!ended) void look(); // a change made between the first read and the watch
  return { stream, end };
}

/**
 * GET /pay/{paymentId}/events: the payment page hears its payment end at once, as server-sent events, instead of at
 * its next poll. Each stream says the status when it opens (the payment may have ended since the page was made), then
 * again when the payments read model announces a change of this payment (one LISTEN per process, fanned out here:
 * src/db/checkpoint-notifications.ts), and ends once the payment has ended or its expiry has passed. A comment every
 * heartbeat keeps proxies and the idle timeout from closing it. Past a limit the answer is 429 (this payment) or 503
 * (this instance), and the page goes on polling, as it does wherever a stream fails.
 */
export function paymentStreamRoute(
  deps: AppDeps,
  find: (id: string) => Promise<PaymentRow | null>,
  statusOf: StatusOf,
) {
  const open = new OpenStreams(deps.config.paymentStreams);
  const heartbeatMs = deps.config.paymentStreams.heartbeatSeconds * 1000;

  return async function (app: FastifyInstance) {
    const notifications = checkpointNotifications.acquire(deps.pool);
    app.addHook('preClose', async () => {
      for (const end of [...open.enders]) end(); // a closing server waits for no open stream
    });
    app.addHook('onClose', () => checkpointNotifications.release(deps.pool));

    app.get<{ Params: { paymentId: string } }>('/pay/:paymentId/events', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const row = await find(request.params.paymentId);
      if (!row) throw refuse('PAYMENT_NOT_FOUND');
      const full = open.full(row.id);
      if (full) {
        reply.header('retry-after', String(retryAfterSeconds));
        throw refuse(full === 'payment' ? 'RATE_LIMITED' : 'UNAVAILABLE');
      }
      await notifications.ready().catch(() => {
        throw refuse('UNAVAILABLE'); // no listener: the page polls
      });
      const { stream, end } = statusStream(deps, row, { statusOf, open, notifications, heartbeatMs });
      reply.raw.on('close', end); // the browser went away
      reply
        .type('text/event-stream; charset=utf-8')
        .header('x-accel-buffering', 'no') // nginx: pass each event on as it comes
        // a stream's connection is not kept for another request: a closing server waits for none once the stream ends
        .header('connection', 'close');
      return reply.send(stream);
    });
  };
}
