import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { auditView } from '../../src/audit/event-view.ts';
import { exportLine } from '../../src/audit/export.ts';
import { committed, eventLeafV2, genesisHash, signCheckpoint } from '../../src/audit/ledger-format.ts';
import { appendLeaf, leafHash, rootOf, type Frontier } from '../../src/audit/merkle.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { declaredEvents } from '../../src/events/event.ts';
import '../../src/events/all.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';
import { positionText } from '../../src/store/subscriber.ts';

// docs/verify-export.mjs cannot import the service's code, so it carries its own copy of how an old event reads
// (upcasters, fields added later with a default) and of the redaction; these keep the copy equal to the service's.

const verifier = path.resolve(import.meta.dirname, '../../docs/verify-export.mjs');
type Reading = { upcasters?: Record<number, (d: Record<string, unknown>) => unknown>; defaults?: object };
const script = (await import(pathToFileURL(verifier).href)) as {
  reading: Record<string, Reading>;
  redacted: (v: unknown) => unknown;
  viewOf: (line: unknown) => unknown;
};

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown) => (s as { _zod: { def: Def } })._zod.def;

/** Where, inside a schema, parsing gives something else than the data it was given (a default, a transform...). */
function rewrites(schema: unknown, at: string): string[] {
  const def = defOf(schema);
  const inner = (key: string) => rewrites(def[key], at);
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'catch':
    case 'transform':
    case 'pipe':
      return [`${at} (${def.type})`];
    case 'object':
      return Object.entries(def.shape as Record<string, unknown>).flatMap(([k, v]) => rewrites(v, `${at}.${k}`));
    case 'nullable':
    case 'optional':
    case 'readonly':
    case 'nonoptional':
      return inner('innerType');
    case 'array':
      return inner('element');
    case 'union':
      return (def.options as unknown[]).flatMap(o => rewrites(o, at));
    case 'record':
      return inner('valueType');
    default:
      return [];
  }
}

/** The fields of an event's payload that read as a default where an old event lacks them, with that default. */
function defaultsOf(schema: z.ZodType): Record<string, unknown> {
  const shape = defOf(schema).shape as Record<string, z.ZodType>;
  const fields = Object.entries(shape).filter(([, field]) => defOf(field).type === 'default');
  return Object.fromEntries(fields.map(([k, field]) => [k, field.parse(undefined)]));
}

describe("verify-export.mjs's copy of how events read", () => {
  it('has every default and every upcaster the event declarations have, and nothing else rewrites a payload', () => {
    const expected: Record<string, { upcasters: string[]; defaults: Record<string, unknown> }> = {};
    for (const d of declaredEvents()) {
      const shape = defOf(d.schema).shape as Record<string, unknown>;
      const hidden = Object.entries(shape).flatMap(([k, v]) =>
        defOf(v).type === 'default' ? rewrites(defOf(v).innerType, `${d.type}.${k}`) : rewrites(v, `${d.type}.${k}`),
      );
      expect(hidden, 'only a top-level field with a default may rewrite a payload').toEqual([]);
      const defaults = defaultsOf(d.schema);
      const upcasters = Object.keys(d.upcasters);
      if (upcasters.length > 0 || Object.keys(defaults).length > 0) expected[d.type] = { upcasters, defaults };
    }
    const copied = Object.fromEntries(
      Object.entries(script.reading).map(([type, r]) => [
        type,
        { upcasters: Object.keys(r.upcasters ?? {}), defaults: r.defaults ?? {} },
      ]),
    );
    expect(copied).toEqual(expected);
  });

  it("upcasts as the service's upcasters do, over generated payloads", () => {
    for (const d of declaredEvents()) {
      const keys = Object.keys(defOf(d.schema).shape as object);
      const payload = fc.dictionary(fc.constantFrom(...keys, 'other'), fc.jsonValue()) as fc.Arbitrary<
        Record<string, unknown>
      >;
      for (const v of Object.keys(d.upcasters).map(Number)) {
        fc.assert(
          fc.property(payload, data => {
            expect(script.reading[d.type]!.upcasters![v]!(structuredClone(data))).toEqual(d.upcasters[v]!(data));
          }),
        );
      }
    }
  });

  it("redacts a payload's commitments as the service redacts its secrets", () => {
    const sealed = fc.record({ iv: fc.base64String(), tag: fc.base64String(), data: fc.base64String() });
    const key = fc.constantFrom('a', 'b', 'passwordHash', 'keyHash', 'iv', 'tag', 'data', 'session');
    const { value } = fc.letrec<{ value: unknown }>(tie => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), sealed),
        fc.dictionary(key, tie('value')),
        fc.array(tie('value'), { maxLength: 3 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, value), data => {
        const unread = { streamId: 's', revision: 0, position: { commit: 1n, prepare: 1n }, metadata: {} };
        const service = auditView({ ...unread, type: 'NotDeclared', version: 1, data } as unknown as RecordedEvent);
        expect(script.redacted(committed(data))).toEqual(service.data);
      }),
    );
  });
});

// events as an older version of the code stored them: v1 payloads, fields added later missing, secrets
const sealedValue = { iv: 'aXY=', tag: 'dGFn', data: 'ZGF0YQ==' };
const at = '2026-03-01T01:00:00.000Z';
const [paymentId, accountId, ownerId] = [randomUUID(), randomUUID(), randomUUID()];
const oldEvents: [string, number, Record<string, unknown>][] = [
  ['AccountSynced', 1, { accountId, balance: 5, syncedAt: at, slot: at, cursor: null }],
  ['AccountSynced', 1, { accountId, balance: 6, syncedAt: at, slot: null, cursor: 'c' }],
  ['ProviderSessionRestored', 1, { accountId, session: sealedValue, restoredAt: at }],
  [
    'PaymentCreated',
    1,
    {
      ...{ paymentId, ownerId, orderId: 'o-1', receivingAccountId: accountId, providerCode: 'BCA', type: 'VA-BANK1' },
      ...{ amount: 10_000, uniqueCode: 12, totalAmount: 10_012, accountNumber: '123', qrisPayload: null },
      ...{ redirectUrl: 'https://shop.example', expiresAt: at, createdAt: at, requestHash: null },
    },
  ],
  [
    'PaymentMethodChosen',
    1,
    {
      paymentId,
      type: 'VA-BANK1',
      uniqueCode: 1,
      totalAmount: 2,
      accountNumber: null,
      qrisPayload: null,
      chosenAt: at,
    },
  ],
  [
    'PaymentCompleted',
    1,
    {
      ...{ paymentId, ownerId, orderId: 'o-1', type: 'VA-BANK1', amount: 10_000, totalAmount: 10_012 },
      ...{ receivingAccountId: accountId, mutationId: randomUUID(), paidAt: at, completedAt: at },
    },
  ],
];

describe('docs/verify-export.mjs over events stored by older code', () => {
  it("reads each as the service's export shows it, and verifies their checkpoint", async () => {
    const recorded: RecordedEvent[] = oldEvents.map(([type, version, data], i) => ({
      type,
      version,
      data,
      streamId: `old-${type}`,
      revision: i,
      position: { commit: BigInt(10 + i), prepare: BigInt(10 + i) },
      metadata: {
        eventId: randomUUID(),
        correlationId: randomUUID(),
        causationId: null,
        actor: 'system',
        occurredAt: at,
      },
    }));
    const lines = recorded.map((e, i) => exportLine(i, e));
    for (const line of lines) {
      expect(line.unreadable).toBeUndefined();
      expect(script.viewOf(JSON.parse(JSON.stringify(line)))).toEqual(line.view);
    }
    const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' });
    const signer = digestSigner(key.toString('base64'));
    let frontier: Frontier = [];
    for (const e of recorded) frontier = appendLeaf(frontier, leafHash(eventLeafV2(e)));
    const checkpoint = signCheckpoint(
      {
        ...{ v: 1, seq: 0, from: 0, to: lines.length, events: lines.length, root: rootOf(frontier), prev: genesisHash },
        ...{ at, lastPosition: positionText(recorded.at(-1)!.position), keyId: signer.keyId },
      },
      signer,
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-verify-view-'));
    writeFileSync(path.join(dir, 'export.jsonl'), lines.map(l => `${JSON.stringify(l)}\n`).join(''));
    writeFileSync(path.join(dir, 'checkpoints.jsonl'), JSON.stringify(checkpoint));
    const files = ['export.jsonl', 'checkpoints.jsonl'].map(f => path.join(dir, f));
    const { stdout } = await promisify(execFile)(process.execPath, [verifier, ...files, signer.publicKey]);
    expect(stdout).toContain('1 checkpoint(s) verified, 0 not whole in it, 0 problem(s)');
  });
});
