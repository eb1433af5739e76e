import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { eventLeaf, recordedOn } from '../../src/audit/digest-days.ts';
import { leafHasher } from '../../src/audit/leaf-hashing.ts';
import { eventLeafV2 } from '../../src/audit/ledger-format.ts';
import { auditRead, eventLeaves, type LogPage } from '../../src/audit/log-leaves.ts';
import { leafHash } from '../../src/audit/merkle.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';

const t0 = Date.parse('2026-11-25T16:59:00.000Z'); // 23:59 WIB: the page crosses a WIB day

const event = (i: number): RecordedEvent => ({
  streamId: `account-${i % 7}`,
  revision: i,
  position: { commit: 100n + BigInt(i), prepare: BigInt(i) },
  type: 'AccountCreated',
  version: 1,
  // keys out of order, a sealed secret and a password hash: the leaf sorts the keys and commits to the secrets
  data: {
    zeta: i,
    alpha: 'x',
    token: { tag: 't', iv: 'i', data: `d${i}` },
    owner: { passwordHash: `argon2-${i}`, name: 'Sri' },
  },
  metadata: {
    eventId: `e-${i}`,
    correlationId: 'c',
    causationId: null,
    actor: 'user',
    occurredAt: new Date(t0 + i * 1000).toISOString(),
  },
});

const pageOf = (events: RecordedEvent[]): LogPage => ({
  // data and metadata as written: keys in the order the command wrote them
  text: JSON.stringify(
    events.map(e => [
      e.streamId,
      e.revision,
      e.type,
      e.version,
      e.data,
      e.metadata,
      `${e.position.commit}/${e.position.prepare}`,
    ]),
  ),
  count: events.length,
  last: events.at(-1)?.position ?? null,
});

describe('leaf hashing', () => {
  it("answers the chain's leaf v2 and the digests' leaf v1 hashes of the events, in runs of one WIB date, the same on the event loop (a small page) and on its thread (a large one)", async () => {
    const hasher = leafHasher();
    try {
      for (const n of [3, 600]) {
        const events = Array.from({ length: n }, (_, i) => event(i));
        const { hashes, digestHashes, runs } = await hasher.leaves(pageOf(events));
        expect(Buffer.from(hashes).toString('hex')).toBe(events.map(e => leafHash(eventLeafV2(e))).join(''));
        expect(Buffer.from(digestHashes).toString('hex')).toBe(events.map(e => leafHash(eventLeaf(e))).join(''));
        const chainOnly = await hasher.leaves(pageOf(events), { chain: true, digests: false });
        expect([chainOnly.hashes, chainOnly.digestHashes.length]).toEqual([hashes, 0]);
        const digestsOnly = await hasher.leaves(pageOf(events), { chain: false, digests: true });
        expect([digestsOnly.hashes.length, digestsOnly.digestHashes]).toEqual([0, digestHashes]);
        const position = (i: number) => `${events[i]!.position.commit}/${events[i]!.position.prepare}`;
        // 23:59:00 WIB plus a second an event: the 61st is the first of the next day
        const firstDay = Math.min(n, 60);
        expect(runs).toEqual([
          { recordedOn: recordedOn(events[0]!), count: firstDay, lastPosition: position(firstDay - 1) },
          ...(n > 60 ? [{ recordedOn: recordedOn(events[60]!), count: n - 60, lastPosition: position(n - 1) }] : []),
        ]);
      }
    } finally {
      await hasher.close();
    }
  }, 30_000);
});

/** Event data as JSON gives it, with secrets the chain's leaf commits to somewhere inside, or none. */
const eventData = fc.dictionary(
  fc.oneof(fc.string(), fc.constantFrom('iv', 'tag', 'data', 'passwordHash', 'keyHash', 'x"iv')),
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ iv: fc.string(), tag: fc.string(), data: fc.string() }),
    fc.record({ owner: fc.record({ passwordHash: fc.jsonValue({ maxDepth: 1 }), name: fc.string() }) }),
  ),
);

describe("an event's two leaves made at once", () => {
  test.prop([eventData, fc.string(), fc.nat(), fc.string(), fc.nat(), fc.dictionary(fc.string(), fc.jsonValue())])(
    "are byte for byte the digests' leaf v1 and the chain's leaf v2, secrets or none",
    (raw, streamId, revision, type, version, metadata) => {
      const e = JSON.parse(
        JSON.stringify({ streamId, revision, type, version, data: raw, metadata, position: null }),
      ) as RecordedEvent;
      expect(eventLeaves(e)).toEqual({ v1: eventLeaf(e), v2: eventLeafV2(e) });
    },
  );
});

describe("the audit's next read", () => {
  const at = (n: number) => ({ commit: BigInt(n), prepare: 0n });
  it('reads for both from where both stand, and has the one behind read alone up to the other first', () => {
    expect(auditRead(at(5), at(5))).toEqual({ after: at(5), upTo: null, kinds: { chain: true, digests: true } });
    expect(auditRead(at(3), at(5))).toEqual({ after: at(3), upTo: at(5), kinds: { chain: true, digests: false } });
    expect(auditRead(at(5), at(3))).toEqual({ after: at(3), upTo: at(5), kinds: { chain: false, digests: true } });
  });
});
