/**
 * The order in which uploaded QR images reach the decoder's threads, shared fairly between tenants (the users who
 * upload them). A tenant has at most one image in a thread; the rest of its images wait in its own queue, first in
 * first out, at most `perTenant` of them. The next free thread goes to the waiting tenant that has used the least
 * decoder time: each tenant carries the milliseconds its images held a thread, and a tenant that starts waiting is
 * lifted to the count of the image started last, so that it cannot bank the time it was away (start-time fair
 * queueing); equal counts go in the order the tenants started waiting (round-robin). A picture of noise that holds a
 * thread for its whole deadline therefore puts its tenant behind every tenant that has used less.
 *
 * All tenants together have at most `waiting` images waiting. When that is full, a tenant with at least two images
 * fewer waiting than the tenant waiting most takes the place of that tenant's newest image, which is refused instead:
 * a tenant holds only its share of the bound, and a tenant with nothing waiting is refused only when every waiting
 * tenant has a single image waiting.
 */

export type FairQueueBounds = {
  /** Images decoded at once: the decoder's threads. */
  threads: number;
  /** Images of one tenant waiting behind its image in a thread. */
  perTenant: number;
  /** Images of all tenants waiting together. */
  waiting: number;
};

/** An image offered: refused, or admitted (the newest image of the tenant waiting most then refused, when one is). */
export type Offer<T> = { admitted: false } | { admitted: true; evicted: T | null };
export type Turn<T> = { tenant: string; item: T };

export type FairQueue<T> = {
  offer(tenant: string, item: T): Offer<T>;
  /** The image to start in a free thread; null when every thread is busy or no tenant without one has images waiting. */
  next(): Turn<T> | null;
  /** The tenant's image has left its thread after holding it `usedMs`. */
  finish(tenant: string, usedMs: number): void;
  /** Every image still waiting, taken out of the queue. */
  drain(): T[];
  readonly waiting: number;
  readonly running: number;
};

type Tenant<T> = { waiting: T[]; running: boolean; usedMs: number; waitingSince: number };

/** The tenant with the most images waiting; of those, the one that has used the most decoder time. */
function waitingMost<T>(tenants: Iterable<Tenant<T>>): Tenant<T> | null {
  let most: Tenant<T> | null = null;
  for (const tenant of tenants) {
    const byCount = most ? tenant.waiting.length - most.waiting.length : 1;
    if (byCount > 0 || (byCount === 0 && tenant.usedMs > most!.usedMs)) most = tenant;
  }
  return most;
}

/** The tenant whose image goes next: none of its own in a thread, the least decoder time used, then the longest wait. */
function nextInTurn<T>(tenants: Map<string, Tenant<T>>): [string, Tenant<T>] | null {
  let chosen: [string, Tenant<T>] | null = null;
  for (const [name, tenant] of tenants) {
    if (tenant.running || tenant.waiting.length === 0) continue;
    const best = chosen?.[1];
    const byTime = best ? tenant.usedMs - best.usedMs : -1;
    if (byTime < 0 || (byTime === 0 && tenant.waitingSince < best!.waitingSince)) chosen = [name, tenant];
  }
  return chosen;
}

/** What the queue holds between calls. */
type QueueState<T> = {
  tenants: Map<string, Tenant<T>>;
  /** the decoder time of the image started last: where a tenant that starts waiting is put */
  startedAtMs: number;
  waiting: number;
  running: number;
  arrivals: number;
};

function tenantOf<T>(s: QueueState<T>, name: string): Tenant<T> {
  let tenant = s.tenants.get(name);
  if (!tenant) s.tenants.set(name, (tenant = { waiting: [], running: false, usedMs: 0, waitingSince: 0 }));
  return tenant;
}

function startWaiting<T>(s: QueueState<T>, tenant: Tenant<T>): void {
  tenant.usedMs = Math.max(tenant.usedMs, s.startedAtMs);
  tenant.waitingSince = ++s.arrivals;
}

/** A tenant with nothing in the decoder is kept only while it owes time; an idle decoder forgets every tenant. */
function forgetIdle<T>(s: QueueState<T>): void {
  if (s.waiting === 0 && s.running === 0) {
    s.tenants.clear();
    s.startedAtMs = 0;
    return;
  }
  for (const [name, tenant] of s.tenants)
    if (!tenant.running && tenant.waiting.length === 0 && tenant.usedMs <= s.startedAtMs) s.tenants.delete(name);
}

export function fairQueue<T>(bounds: FairQueueBounds): FairQueue<T> {
  const s: QueueState<T> = { tenants: new Map(), startedAtMs: 0, waiting: 0, running: 0, arrivals: 0 };
  const { tenants } = s;
  const refused = (): Offer<T> => {
    forgetIdle(s);
    return { admitted: false };
  };

  return {
    offer(name, item) {
      const tenant = tenantOf(s, name);
      // with a thread free and none of its own, the image starts at once (nobody else can be waiting then)
      const startsNow = !tenant.running && s.running < bounds.threads;
      let evicted: T | null = null;
      if (!startsNow) {
        if (tenant.waiting.length >= bounds.perTenant) return refused();
        if (s.waiting >= bounds.waiting) {
          const most = waitingMost(tenants.values());
          if (!most || most.waiting.length < tenant.waiting.length + 2) return refused();
          evicted = most.waiting.pop()!;
          s.waiting--;
        }
      }
      tenant.waiting.push(item);
      s.waiting++;
      if (!tenant.running && tenant.waiting.length === 1) startWaiting(s, tenant);
      return { admitted: true, evicted };
    },
    next() {
      if (s.running >= bounds.threads) return null;
      const chosen = nextInTurn(tenants);
      if (!chosen) return null;
      const [name, tenant] = chosen;
      const item = tenant.waiting.shift()!;
      s.waiting--;
      s.running++;
      tenant.running = true;
      s.startedAtMs = Math.max(s.startedAtMs, tenant.usedMs);
      return { tenant: name, item };
    },
    finish(name, usedMs) {
      const tenant = tenants.get(name);
      if (!tenant?.running) throw new Error(`no image of ${name} is being decoded`);
      tenant.running = false;
      s.running--;
      tenant.usedMs += Math.max(usedMs, 0);
      if (tenant.waiting.length > 0) startWaiting(s, tenant);
      forgetIdle(s);
    },
    drain() {
      const items = [...tenants.values()].flatMap(tenant => tenant.waiting.splice(0));
      s.waiting = 0;
      forgetIdle(s);
      return items;
    },
    get waiting() {
      return s.waiting;
    },
    get running() {
      return s.running;
    },
  };
}
