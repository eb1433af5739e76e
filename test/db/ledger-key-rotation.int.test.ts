import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSigner, type DigestSigner } from '../../src/audit/digest-signer.ts';
import { checkpointLine, listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import {
  checkpointHash,
  genesisHash,
  signCheckpoint,
  type LedgerCheckpoint,
  type UnsignedCheckpoint,
} from '../../src/audit/ledger-format.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { freshServiceDatabase } from '../support/database.ts';
import { testSigningKey } from '../support/signing-key.ts';

let owner: pg.Pool;
let service: pg.Pool;
const old = digestSigner(testSigningKey());
const fresh = digestSigner(testSigningKey('the next key'));
const stranger = digestSigner(testSigningKey('someone else'));

beforeAll(async () => {
  const db = await freshServiceDatabase();
  owner = createPool(db.ownerUrl, 2);
  service = createPool(db.url, 4);
});
afterAll(async () => {
  await service?.end();
  await owner?.end();
});

/** The checkpoint after `before`, signed by `by`; with `handOver`, a rotation to that key (signed by it too). */
function next(
  before: LedgerCheckpoint | null,
  by: DigestSigner,
  handOver?: DigestSigner,
  over: Partial<UnsignedCheckpoint> = {},
): LedgerCheckpoint {
  return signCheckpoint(
    {
      v: 1,
      seq: before ? before.seq + 1 : 0,
      from: before?.to ?? 0,
      to: (before?.to ?? 0) + 3,
      events: 3,
      root: 'cd'.repeat(32),
      prev: before ? checkpointHash(before) : genesisHash,
      at: '2026-01-05T03:01:00.000Z',
      lastPosition: '9/9',
      keyId: by.keyId,
      ...(handOver ? { nextKey: handOver.publicKey } : {}),
      ...over,
    },
    by,
    handOver,
  );
}

const append = (...lines: (LedgerCheckpoint | string)[]) =>
  query(service, 'Append', 'select ledger_append_checkpoints($1::json[])', [
    lines.map(l => (typeof l === 'string' ? l : checkpointLine(l))),
  ]).then(
    () => null,
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );
const refused = (message: RegExp) => ({ code: 'ES422', message: expect.stringMatching(message) });

const registered = async () =>
  (await query<{ key_id: string }>(service, 'Keys', 'select key_id from ledger_keys order by key_id')).rows.map(
    r => r.key_id,
  );

describe("the owner's function across a key rotation", () => {
  it('refuses a key without a rotation, takes a rotation signed by both keys and registers the new one', async () => {
    const first = next(null, old);
    expect(await append(first)).toBeNull();
    // a key nobody registered, and one the owner registered beside the chain: neither takes over without a rotation
    expect(await append(next(first, stranger))).toEqual(refused(/key [0-9a-f]{16} is not registered/));
    await query(owner, 'RegisterBeside', 'insert into ledger_keys (key_id, public_key) values ($1, $2)', [
      stranger.keyId,
      stranger.publicKey,
    ]);
    expect(await append(next(first, stranger))).toEqual(
      refused(new RegExp(`signed by key ${stranger.keyId}, the chain's key is ${old.keyId}`)),
    );
    // a rotation whose new key did not sign, or whose nextKeySignature is another text's
    const rotation = next(first, old, fresh);
    const { nextKeySignature: _unsigned, ...withoutIt } = rotation;
    expect(await append(JSON.stringify(withoutIt))).toEqual(refused(/not a well-formed checkpoint/));
    const otherText = next(first, old, fresh, { root: 'ef'.repeat(32) }).nextKeySignature;
    expect(await append({ ...rotation, nextKeySignature: otherText })).toEqual(
      refused(/nextKeySignature of seq 1 does not verify/),
    );
    expect(await registered()).not.toContain(fresh.keyId);

    expect(await append(rotation)).toBeNull();
    expect(await registered()).toContain(fresh.keyId);
    // after it the new key only: the old one is retired
    expect(await append(next(rotation, old))).toEqual(refused(/the chain's key is/));
    const after = next(rotation, fresh);
    expect(await append(after)).toBeNull();
    expect((await listLedgerCheckpoints(service)).map(c => [c.seq, c.keyId, c.nextKey ?? null])).toEqual([
      [0, old.keyId, null],
      [1, old.keyId, fresh.publicKey],
      [2, fresh.keyId, null],
    ]);
  });
});
