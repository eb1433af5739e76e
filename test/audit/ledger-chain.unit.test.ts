import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { cutCheckpoint, emptyChain, takeEvents, type ChainState } from '../../src/audit/ledger-chain.ts';
import { committed, eventLeafV2, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { LogVerifier } from '../../src/audit/log-verifier.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';
import { testSigningKey } from '../support/signing-key.ts';

const signer = digestSigner(testSigningKey());
const t0 = Date.parse('2026-01-05T03:00:00.000Z');

type Draft = { stream: number; data: Record<string, unknown>; minutes: number };

/** A log from drafts: revisions in order per stream, time moving on by each draft's minutes (some cross a WIB midnight). */
function logOf(drafts: Draft[]): RecordedEvent[] {
  const revisions = new Map<string, number>();
  let at = t0;
  return drafts.map((d, i) => {
    const streamId = `stream-${d.stream}`;
    const revision = (revisions.get(streamId) ?? -1) + 1;
    revisions.set(streamId, revision);
    at += d.minutes * 60_000;
    const metadata = {
      eventId: `e-${i}`,
      correlationId: `c-${i}`,
      causationId: null,
      actor: 'test',
      occurredAt: new Date(at).toISOString(),
    };
    return {
      streamId,
      revision,
      type: 'Happened',
      version: 1,
      data: d.data,
      metadata,
      position: { commit: BigInt(i * 2), prepare: BigInt(i * 2) },
    };
  });
}

/** The checkpoints the live chain signs over a log taken in `batch` events at a time, the last one cut at the end. */
function chainOf(log: RecordedEvent[], batch: number): LedgerCheckpoint[] {
  const all: LedgerCheckpoint[] = [];
  let state: ChainState = emptyChain;
  for (let i = 0; i < log.length; i += batch) {
    const taken = takeEvents(
      state,
      log.slice(i, i + batch),
      new Date(Date.parse(log[i]!.metadata.occurredAt) + 61_000),
      signer,
    );
    all.push(...taken.checkpoints);
    state = taken.state;
  }
  const cut = cutCheckpoint(state, new Date(t0 + 86_400_000 * 30), signer);
  if (cut) all.push(cut.checkpoint);
  return all;
}

const problemsOf = (log: RecordedEvent[], checkpoints: LedgerCheckpoint[], kept: LedgerCheckpoint[] = []) => {
  const verifier = new LogVerifier(
    checkpoints,
    kept.map(checkpoint => ({ checkpoint, source: 'kept' })),
    signer.publicKey,
  );
  for (const e of log) verifier.add(e);
  return verifier.finish().problems;
};

const draft = fc.record({
  stream: fc.integer({ min: 0, max: 4 }),
  data: fc.dictionary(
    fc.constantFrom('amount', 'name', 'passwordHash', 'note'),
    fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    { maxKeys: 3 },
  ),
  minutes: fc.integer({ min: 0, max: 600 }),
});

/** One change an insider could make to the events or to the stored checkpoints. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('change' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('drop-checkpoint' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('rewrite-checkpoint' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

/** The log and checkpoints after the mutation; null when it changes nothing (two events with the same leaf swapped). */
function mutate(
  log: RecordedEvent[],
  checkpoints: LedgerCheckpoint[],
  m: Mutation,
): { log: RecordedEvent[]; checkpoints: LedgerCheckpoint[] } | null {
  const i = m.at % log.length;
  const events = [...log];
  switch (m.kind) {
    case 'change':
      events[i] = { ...log[i]!, data: { ...log[i]!.data, tampered: true } };
      return { log: events, checkpoints };
    case 'delete':
      events.splice(i, 1);
      return { log: events, checkpoints };
    case 'insert':
      events.splice(i, 0, {
        ...log[i]!,
        streamId: 'stream-new',
        revision: 0,
        metadata: { ...log[i]!.metadata, eventId: 'forged' },
      });
      return { log: events, checkpoints };
    case 'swap': {
      const j = m.other % log.length;
      if (eventLeafV2(log[i]!) === eventLeafV2(log[j]!)) return null;
      [events[i], events[j]] = [
        { ...log[i]!, data: log[j]!.data },
        { ...log[j]!, data: log[i]!.data },
      ];
      if (eventLeafV2(events[i]!) === eventLeafV2(log[i]!)) return null;
      return { log: events, checkpoints };
    }
    case 'truncate':
      return { log: log.slice(0, i), checkpoints };
    case 'drop-checkpoint':
      return { log, checkpoints: checkpoints.filter((_, k) => k !== m.at % checkpoints.length) };
    case 'rewrite-checkpoint': {
      const k = m.at % checkpoints.length;
      return {
        log,
        checkpoints: checkpoints.map((c, n) =>
          n === k ? { ...c, at: new Date(Date.parse(c.at) + 1).toISOString() } : c,
        ),
      };
    }
  }
}

describe('the chain of checkpoints', () => {
  test.prop([fc.array(draft, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 20 })])(
    'over any log, verifies as signed',
    (drafts, batch) => {
      const log = logOf(drafts);
      const checkpoints = chainOf(log, batch);
      expect(checkpoints.at(-1)!.to).toBe(log.length);
      expect(problemsOf(log, checkpoints, checkpoints)).toEqual([]);
    },
  );

  test.prop([fc.array(draft, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 20 }), mutation])(
    'finds any single change to the events or to the checkpoints, the dropped last checkpoint given a kept one',
    (drafts, batch, m) => {
      const log = logOf(drafts);
      const checkpoints = chainOf(log, batch);
      const mutated = mutate(log, checkpoints, m);
      fc.pre(mutated !== null);
      // the newest checkpoint dropped leaves a shorter chain that is whole: the auditor's kept one shows it
      expect(problemsOf(mutated!.log, mutated!.checkpoints, [checkpoints.at(-1)!])).not.toEqual([]);
    },
  );

  it('commits to sealed values and password hashes instead of carrying them', () => {
    const sealed = { iv: 'aXY=', tag: 'dGFn', data: 'c2VjcmV0' };
    expect(committed({ a: [sealed], passwordHash: '$argon2id$x', nested: { keyHash: 'ab', keep: 1 } })).toEqual({
      a: [{ $commitment: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      passwordHash: { $commitment: expect.stringMatching(/^[0-9a-f]{64}$/) },
      nested: { keyHash: { $commitment: expect.stringMatching(/^[0-9a-f]{64}$/) }, keep: 1 },
    });
  });
});
