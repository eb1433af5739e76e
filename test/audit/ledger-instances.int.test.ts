import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointFileName } from '../../src/audit/checkpoint-file.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { TestClock } from '../../src/clock.ts';
import { subscriberLocks } from '../../src/db/lock-holder.ts';
import { query } from '../../src/db/pool.ts';
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

describe('ledger checkpoints with two instances', () => {
  it('sign one chain between them, each checkpoint once in the shared file, and the other takes over when one stops', async () => {
    const { pool, store } = await freshEventLog(closing);
    const clock = new TestClock();
    const signer = digestSigner(testSigningKey());
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-two-'));
    const instance = () => new LedgerCheckpoints({ pool, store, log: createLogger('silent'), clock }, signer, dir);
    const [a, b] = [instance(), instance()];
    await a.start();
    await b.start();
    closing.push(() => b.stop());
    const rows = async (n: number) =>
      eventually(async () => (await listLedgerCheckpoints(pool)).length >= n && listLedgerCheckpoints(pool), 15_000);
    for (let round = 1; round <= 4; round++) {
      await store.append(`account-${nextUuid()}`, [newEvent('AccountLinked'), newEvent('AccountSynced')], 'no_stream');
      if (round === 3) await a.stop(); // b leads from here (its standby looks again every 2 s)
      await eventually(
        async () => (await (round >= 3 ? b : a).waitFor(await store.headPosition(), 100)) || null,
        15_000,
      );
      clock.advance(61_000);
      await rows(round);
    }
    const all = await listLedgerCheckpoints(pool);
    expect(all.map(c => [c.seq, c.from, c.to])).toEqual([
      [0, 0, 2],
      [1, 2, 4],
      [2, 4, 6],
      [3, 6, 8],
    ]);
    const lines = readFileSync(path.join(dir, checkpointFileName), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l) as unknown);
    expect(lines).toEqual(all);
    expect((await verifyLog({ store, pool }, { publicKey: signer.publicKey, kept: [] })).problems).toEqual([]);
  }, 60_000);

  it('hand each checkpoint on after its commit (the ledger.checkpoint webhook), and the newest again on start', async () => {
    const { pool, store } = await freshEventLog(closing);
    const clock = new TestClock();
    const sent: number[][] = [];
    const deps = {
      pool,
      store,
      log: createLogger('silent'),
      clock,
      published: async (cs: { seq: number }[]) => sent.push(cs.map(c => c.seq)),
    };
    const ledger = new LedgerCheckpoints(
      deps,
      digestSigner(testSigningKey()),
      mkdtempSync(path.join(tmpdir(), 'ledger-sent-')),
    );
    await ledger.start();
    await store.append(`account-${nextUuid()}`, [newEvent('AccountLinked')], 'no_stream');
    expect(await ledger.waitFor(await store.headPosition(), 10_000)).toBe(true);
    clock.advance(61_000);
    await eventually(async () => sent.length > 0, 10_000);
    expect(sent).toEqual([[0]]);
    await ledger.stop();
    await ledger.start();
    closing.push(() => ledger.stop());
    expect(sent).toEqual([[0], [0]]);
  });

  it("hold the audit's locks on the session of the process's subscribers, and lead again when that connection drops", async () => {
    const { pool, store } = await freshEventLog(closing);
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-locks-'));
    const ledger = new LedgerCheckpoints(
      { pool, store, log: createLogger('silent'), clock: new TestClock() },
      digestSigner(testSigningKey()),
      dir,
    );
    await ledger.start();
    const advisoryLocks = async () =>
      (
        await query<{ pid: number; n: number }>(
          pool,
          'AuditLocksHeld',
          `select pid, count(*)::int as n from pg_locks where locktype = 'advisory' and granted
              and database = (select oid from pg_database where datname = current_database()) group by pid`,
        )
      ).rows;
    try {
      expect(ledger.health()[0]!.health.state).toBe('leading');
      const pid = await subscriberLocks.peek(pool)!.backendPid();
      expect(await advisoryLocks()).toEqual([{ pid, n: 2 }]); // the chain's and the digests', on no connection of its own

      await query(pool, 'DropLockSession', 'select pg_terminate_backend($1)', [pid]);
      await store.append(`account-${nextUuid()}`, [newEvent('AccountLinked')], 'no_stream');
      const head = await store.headPosition();
      await eventually(async () => (await ledger.waitFor(head, 200)) || null, 15_000);
      expect(ledger.health()[0]!.health.state).toBe('leading');
      const again = await subscriberLocks.peek(pool)!.backendPid();
      expect(again).not.toBe(pid);
      expect(await advisoryLocks()).toEqual([{ pid: again, n: 2 }]);
    } finally {
      await ledger.stop();
    }
    expect(subscriberLocks.peek(pool)).toBeNull(); // the last user closed the session
  }, 60_000);
});
