import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fairQueue, type FairQueue, type FairQueueBounds } from '../src/qr-decode-queue.ts';

type Image = { tenant: string; n: number };
type Step = { offer: number } | { finish: number; usedMs: number };

const boundsArb = fc.record({
  threads: fc.integer({ min: 1, max: 3 }),
  perTenant: fc.integer({ min: 0, max: 3 }),
  waiting: fc.integer({ min: 0, max: 6 }),
});
const stepsArb: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ offer: fc.integer({ min: 0, max: 3 }) }), weight: 2 },
    { arbitrary: fc.record({ finish: fc.nat(), usedMs: fc.integer({ min: 0, max: 2000 }) }), weight: 1 },
  ),
  { maxLength: 120 },
);

/** The decoder's use of the queue: every image that can start is started after each offer and each finish. */
function decoderOn(bounds: FairQueueBounds) {
  const queue: FairQueue<Image> = fairQueue(bounds);
  const inThreads = new Map<string, Image>();
  const started: Image[] = [];
  const startTurns = () => {
    for (let turn = queue.next(); turn; turn = queue.next()) {
      expect(turn.item.tenant).toBe(turn.tenant);
      expect(inThreads.has(turn.tenant), 'a second image of a tenant in the decoder').toBe(false);
      inThreads.set(turn.tenant, turn.item);
      started.push(turn.item);
    }
  };
  return {
    queue,
    inThreads,
    started,
    offer(image: Image) {
      const offer = queue.offer(image.tenant, image);
      startTurns();
      return offer;
    },
    finish(tenant: string, usedMs: number) {
      inThreads.delete(tenant);
      queue.finish(tenant, usedMs);
      startTurns();
    },
  };
}

describe('the QR decoder shared fairly between tenants', () => {
  // a queue full of one tenant's images while another offers takes a few hundred runs to come by
  test.prop([boundsArb, stepsArb], { numRuns: 1000 })(
    'one image of a tenant in a thread, no thread idle while a tenant without one waits, every bound kept, each tenant first in first out, a tenant with nothing waiting refused only when every waiting tenant has one image waiting',
    (bounds, steps) => {
      const decoder = decoderOn(bounds);
      const waitingOf = new Map<string, Image[]>(); // the model: each tenant's images waiting, in order
      const counts = new Map<string, number>();
      for (const step of steps) {
        if ('offer' in step) {
          const tenant = `t${step.offer}`;
          const image = { tenant, n: (counts.get(tenant) ?? 0) + 1 };
          counts.set(tenant, image.n);
          const mine = waitingOf.get(tenant) ?? [];
          const before = [...waitingOf.entries()];
          const threadFree = !decoder.inThreads.has(tenant) && decoder.inThreads.size < bounds.threads;
          const offer = decoder.offer(image);
          if (!offer.admitted) {
            expect(threadFree, 'refused with a thread free for it').toBe(false);
            const ownFull = mine.length >= bounds.perTenant;
            const othersAtMostOneMore = before.every(([, images]) => images.length <= mine.length + 1);
            expect(ownFull || othersAtMostOneMore, 'refused while another tenant holds two more').toBe(true);
          } else {
            if (offer.evicted) {
              const [, images] = before.find(([name]) => name === offer.evicted!.tenant)!;
              expect(offer.evicted, 'not the newest image of its tenant').toEqual(images.at(-1));
              expect(images.length).toBeGreaterThanOrEqual(mine.length + 2);
              images.pop();
            }
            waitingOf.set(tenant, [...mine, image]);
          }
        } else {
          const running = [...decoder.inThreads.keys()];
          if (running.length === 0) continue;
          decoder.finish(running[step.finish % running.length]!, step.usedMs);
        }
        for (const image of decoder.started) {
          const images = waitingOf.get(image.tenant);
          expect(images?.[0], `${image.tenant} #${image.n} started, not its first image waiting`).toBe(image);
          images!.shift();
        }
        decoder.started.length = 0;

        const waiting = [...waitingOf.values()].flat().length;
        expect(decoder.queue.waiting).toBe(waiting);
        expect(decoder.queue.running).toBe(decoder.inThreads.size);
        expect(decoder.inThreads.size).toBeLessThanOrEqual(bounds.threads);
        expect(waiting).toBeLessThanOrEqual(bounds.waiting);
        for (const images of waitingOf.values()) expect(images.length).toBeLessThanOrEqual(bounds.perTenant);
        const idleWaiting = [...waitingOf].some(([name, images]) => images.length > 0 && !decoder.inThreads.has(name));
        expect(decoder.inThreads.size === bounds.threads || !idleWaiting, 'a thread idle while a tenant waits').toBe(
          true,
        );
      }
    },
  );

  test.prop([
    fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 2, maxLength: 4 }),
    fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 200 }),
  ])(
    'decoder time is shared: tenants that always have images waiting get times within two deadlines of one another, whatever their images cost',
    (costOf, jitter) => {
      // one thread; tenant i's images each hold it costOf[i] ms (noise its whole deadline, a clean QR a moment), more or less
      const deadline = 2000;
      const decoder = decoderOn({ threads: 1, perTenant: 2, waiting: 100 });
      const used = costOf.map(() => 0);
      for (const [i] of costOf.entries()) for (let n = 0; n < 3; n++) decoder.offer({ tenant: `t${i}`, n });
      for (const [step, extra] of jitter.entries()) {
        const [tenant] = [...decoder.inThreads.keys()];
        const i = Number(tenant!.slice(1));
        const usedMs = Math.min(deadline, costOf[i]! + (extra % 500));
        used[i]! += usedMs;
        decoder.finish(tenant!, usedMs);
        decoder.offer({ tenant: tenant!, n: 100 + step }); // it sends another: always one in the thread or waiting
        expect(Math.max(...used) - Math.min(...used)).toBeLessThanOrEqual(2 * deadline);
      }
    },
  );

  it('gives the next thread to a tenant that arrives with nothing in the decoder, before the images of those who used it', () => {
    const decoder = decoderOn({ threads: 1, perTenant: 2, waiting: 8 });
    for (const n of [1, 2, 3]) decoder.offer({ tenant: 'a', n });
    for (const n of [1, 2]) decoder.offer({ tenant: 'b', n });
    decoder.finish('a', 2000); // noise: its whole deadline
    expect(decoder.started).toEqual([
      { tenant: 'a', n: 1 },
      { tenant: 'b', n: 1 },
    ]);
    decoder.offer({ tenant: 'c', n: 1 });
    decoder.finish('b', 2000);
    expect(decoder.started.at(-1), 'before the images of a and b that waited longer').toEqual({ tenant: 'c', n: 1 });
    // a clean QR takes a moment: c's next image still goes before the noise of a and b
    decoder.offer({ tenant: 'c', n: 2 });
    decoder.finish('c', 20);
    expect(decoder.started.at(-1)).toEqual({ tenant: 'c', n: 2 });
    decoder.finish('c', 20);
    expect(decoder.started.at(-1)).toEqual({ tenant: 'a', n: 2 });
  });

  it('lets a tenant that arrives late claim no time for while it was away: it takes its turn among the others', () => {
    const decoder = decoderOn({ threads: 1, perTenant: 2, waiting: 8 });
    const resend = (tenant: string, n: number) => decoder.offer({ tenant, n });
    for (const tenant of ['a', 'b']) for (const n of [1, 2, 3]) resend(tenant, n);
    for (let n = 4; n < 14; n++) {
      const [tenant] = [...decoder.inThreads.keys()];
      decoder.finish(tenant!, 2000);
      resend(tenant!, n);
    }
    for (const n of [1, 2, 3]) resend('c', n);
    const turns = [];
    for (let n = 100; n < 106; n++) {
      const [tenant] = [...decoder.inThreads.keys()];
      decoder.finish(tenant!, 2000);
      resend(tenant!, n);
      turns.push(decoder.started.at(-1)!.tenant);
    }
    expect(turns.filter(tenant => tenant === 'c')).toHaveLength(2);
  });

  it('makes room for a tenant with nothing waiting by refusing the newest image of the tenant waiting most', () => {
    const decoder = decoderOn({ threads: 1, perTenant: 2, waiting: 3 });
    for (const n of [1, 2, 3]) decoder.offer({ tenant: 'a', n });
    expect(decoder.offer({ tenant: 'b', n: 1 })).toEqual({ admitted: true, evicted: null });
    expect(decoder.offer({ tenant: 'c', n: 1 })).toEqual({ admitted: true, evicted: { tenant: 'a', n: 3 } });
    // every waiting tenant has one image waiting: a fourth tenant, and a second image of any, is refused
    expect(decoder.offer({ tenant: 'd', n: 1 })).toEqual({ admitted: false });
    expect(decoder.offer({ tenant: 'b', n: 2 })).toEqual({ admitted: false });
    expect(decoder.queue.drain()).toEqual([
      { tenant: 'a', n: 2 },
      { tenant: 'b', n: 1 },
      { tenant: 'c', n: 1 },
    ]);
  });

  it('refuses a tenant past its own queue while the queue of all has room', () => {
    const decoder = decoderOn({ threads: 1, perTenant: 1, waiting: 8 });
    expect(decoder.offer({ tenant: 'a', n: 1 }).admitted).toBe(true);
    expect(decoder.offer({ tenant: 'a', n: 2 }).admitted).toBe(true);
    expect(decoder.offer({ tenant: 'a', n: 3 })).toEqual({ admitted: false });
    expect(decoder.offer({ tenant: 'b', n: 1 }).admitted).toBe(true);
  });
});
