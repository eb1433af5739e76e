import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { TestClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshEventLog } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { testSigningKey } from '../support/signing-key.ts';

const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

/** Data as a command may write it: keys out of order, numbers and text that JSON can spell more than one way, a secret. */
const awkward = (i: number) => ({
  zeta: i,
  amount: 1.5,
  big: 1e21,
  small: -0.000001,
  note: `é ✓ "quoted" \\ ${'\u2028'} ${i}`,
  nested: { b: [3, { d: null, c: true }], a: {} },
  sealed: { tag: 't', iv: 'i', data: `d${i}` },
});

describe('the chain read a page at a time', () => {
  it('covers a log of several pages, hashed on the hashing thread, as verify-log recomputes it from the events', async () => {
    const { pool, store } = await freshEventLog(closing);
    const clock = new TestClock();
    const signer = digestSigner(testSigningKey());
    const ledger = new LedgerCheckpoints(
      { pool, store, log: createLogger('silent'), clock },
      signer,
      mkdtempSync(path.join(tmpdir(), 'ledger-pages-')),
    );
    // the log before the chain starts: read in pages of 5,000, the first two on the hashing thread
    const streams = Array.from({ length: 60 }, () => `account-${nextUuid()}`);
    for (let batch = 0; batch < 120; batch++)
      await Promise.all(
        streams.map((s, j) =>
          store.append(s, [newEvent('AccountSynced', awkward(batch * 60 + j))], batch === 0 ? 'no_stream' : batch - 1),
        ),
      );
    await ledger.start();
    closing.push(() => ledger.stop());
    expect(await ledger.waitFor(await store.headPosition(), 30_000)).toBe(true);
    clock.advance(61_000);
    const [checkpoint] = await eventually(async () => {
      const all = await listLedgerCheckpoints(pool);
      return all.length > 0 && all;
    }, 10_000);
    expect([checkpoint!.from, checkpoint!.to]).toEqual([0, 7200]);
    expect((await verifyLog({ store, pool }, { publicKey: signer.publicKey, kept: [] })).problems).toEqual([]);
  }, 60_000);
});
