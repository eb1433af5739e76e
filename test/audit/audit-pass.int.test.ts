import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointFileName } from '../../src/audit/checkpoint-file.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { digestPositionName } from '../../src/audit/digests.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { verifyDigests } from '../../src/audit/verify-digests.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { TestClock } from '../../src/clock.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { readCheckpoint, saveCheckpoint } from '../../src/store/checkpoints.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshEventLog, withoutAppendOnlyGuard } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { testSigningKey } from '../support/signing-key.ts';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const signer = digestSigner(testSigningKey());

/** A log, a clock and a way to run the audit's leader over it until it has taken in the whole log. */
async function auditedLog() {
  const { pool, store } = await freshEventLog(closing);
  const clock = new TestClock();
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-pass-'));
  const leader = () => new LedgerCheckpoints({ pool, store, log: createLogger('silent'), clock }, signer, dir);
  const runToHead = async () => {
    const ledger = leader();
    await ledger.start();
    try {
      expect(await ledger.waitFor(await store.headPosition(), 10_000)).toBe(true);
    } finally {
      await ledger.stop();
    }
  };
  /** `n` events recorded on `day` (WIB noon), over a few streams. */
  const append = async (day: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const e = newEvent('AccountSynced', { i, day, note: 'é ✓' });
      await store.append(
        `account-${nextUuid()}`,
        [{ ...e, metadata: { ...e.metadata, occurredAt: `${day}T05:00:00.000Z` } }],
        'no_stream',
      );
    }
  };
  const verified = async () => {
    expect((await verifyDigests({ store, pool }, signer.publicKey)).clean).toBe(true);
    expect((await verifyLog({ store, pool }, { publicKey: signer.publicKey, kept: [] })).problems).toEqual([]);
  };
  return { pool, store, clock, dir, leader, runToHead, append, verified };
}

type Row = {
  day: string;
  events: string;
  frontier: unknown;
  root: string;
  signature: string | null;
  keyId: string | null;
  last: string;
};
const digestRows = async (pool: pg.Pool) =>
  (
    await query<Row>(
      pool,
      'DigestRows',
      `select to_char(day, 'YYYY-MM-DD') as day, events::text, frontier, root, signature, key_id as "keyId", last_position as last
         from daily_digests order by day`,
    )
  ).rows;
const withoutPosition = (rows: Row[]) => rows.map(({ last: _, ...r }) => r);

const chainState = async (pool: pg.Pool) =>
  (await query<{ state: unknown }>(pool, 'ChainState', 'select state from ledger_chain_state')).rows[0]!.state;

describe('the chain and the daily digests in one pass', () => {
  it('digest every event once, signing a day when the next begins, as verify-digests recomputes them', async () => {
    const log = await auditedLog();
    await log.append('2026-01-05', 3);
    await log.runToHead();
    await log.append('2026-01-06', 2);
    await log.runToHead();
    expect((await digestRows(log.pool)).map(r => [r.day, Number(r.events), r.signature !== null])).toEqual([
      ['2026-01-05', 3, true],
      ['2026-01-06', 2, false],
    ]);
    await log.verified();
  });

  it('on a database whose digests are behind the chain (an upgrade), catch the digests up alone first: no event skipped or counted twice', async () => {
    const log = await auditedLog();
    await log.append('2026-01-05', 20);
    await log.runToHead();
    const rowsThen = await digestRows(log.pool);
    const digestedThen = await readCheckpoint(log.pool, digestPositionName);
    await log.append('2026-01-06', 15);
    await log.append('2026-01-07', 5);
    await log.runToHead();
    const rowsAtHead = await digestRows(log.pool);
    const chainAtHead = [await chainState(log.pool), await listLedgerCheckpoints(log.pool)];
    // the digests as an older version left them: their rows and position at the first run's end, the chain at the head
    await query(log.pool, 'Rewind', 'delete from daily_digests');
    await query(
      log.pool,
      'Restore',
      `insert into daily_digests (day, events, frontier, root, signature, key_id, last_position)
       select day, events, frontier, root, signature, "keyId", last
         from jsonb_to_recordset($1::jsonb) as d(day date, events bigint, frontier jsonb, root text, signature text, "keyId" text, last text)`,
      [JSON.stringify(rowsThen)],
    );
    await saveCheckpoint(log.pool, digestPositionName, digestedThen);
    await log.runToHead();
    expect(withoutPosition(await digestRows(log.pool))).toEqual(withoutPosition(rowsAtHead));
    expect([await chainState(log.pool), await listLedgerCheckpoints(log.pool)]).toEqual(chainAtHead);
    // and on together from there
    await log.append('2026-01-08', 4);
    await log.runToHead();
    expect((await digestRows(log.pool)).map(r => Number(r.events))).toEqual([20, 15, 5, 4]);
    await log.verified();
  });

  it('on a database whose digests have never run (a new table beside an old chain), digest the whole log from its start', async () => {
    const log = await auditedLog();
    await log.append('2026-01-05', 7);
    await log.append('2026-01-06', 2);
    await log.runToHead();
    const rowsAtHead = await digestRows(log.pool);
    expect(rowsAtHead.map(r => Number(r.events))).toEqual([7, 2]);
    const chainAtHead = [await chainState(log.pool), await listLedgerCheckpoints(log.pool)];
    await query(log.pool, 'Rewind', 'delete from daily_digests');
    await query(log.pool, 'Rewind', 'delete from subscriber_checkpoints where name = $1', [digestPositionName]);
    await log.runToHead();
    expect(withoutPosition(await digestRows(log.pool))).toEqual(withoutPosition(rowsAtHead));
    expect([await chainState(log.pool), await listLedgerCheckpoints(log.pool)]).toEqual(chainAtHead);
    await log.verified();
  });

  it('on a database whose chain is behind the digests, catch the chain up alone first and leave the digests as they are', async () => {
    const log = await auditedLog();
    await log.append('2026-01-05', 10);
    await log.runToHead();
    const chainThen = await chainState(log.pool);
    const checkpointsThen = (await listLedgerCheckpoints(log.pool)).length;
    const chainedThen = await readCheckpoint(log.pool, 'ledger:checkpoints');
    // an older version's chain stood there: its checkpoint file too (a file ahead of the rows is a finding now)
    const file = path.join(log.dir, checkpointFileName);
    const fileThen = readFileSync(file, 'utf8');
    await log.append('2026-01-06', 10);
    await log.append('2026-01-07', 3);
    await log.runToHead();
    const rowsAtHead = await digestRows(log.pool);
    const checkpointsAtHead = await listLedgerCheckpoints(log.pool);
    expect(checkpointsAtHead.length).toBeGreaterThan(checkpointsThen);
    // the chain as it stood after the first run, the digests at the head
    await withoutAppendOnlyGuard(
      log.pool,
      client => query(client, 'Rewind', 'delete from ledger_checkpoints where seq >= $1', [checkpointsThen]),
      'ledger_checkpoints',
    );
    await query(log.pool, 'Rewind', 'update ledger_chain_state set state = $1', [JSON.stringify(chainThen)]);
    await saveCheckpoint(log.pool, 'ledger:checkpoints', chainedThen);
    writeFileSync(file, fileThen);
    await log.runToHead();
    expect(await digestRows(log.pool)).toEqual(rowsAtHead);
    expect(await listLedgerCheckpoints(log.pool)).toEqual(checkpointsAtHead);
    await log.append('2026-01-08', 2);
    await log.runToHead();
    expect((await digestRows(log.pool)).map(r => Number(r.events))).toEqual([10, 10, 3, 2]);
    await log.verified();
  });

  it("stand by while an older instance's daily digests subscriber holds its lock, and lead once it lets go", async () => {
    const log = await auditedLog();
    const older = await log.pool.connect();
    closing.push(async () => older.release(true));
    const lockName = `subscriber:${digestPositionName}`;
    await query(older, 'OlderDigests', `select pg_advisory_lock(hashtextextended($1, 0))`, [lockName]);
    const ledger = log.leader();
    await ledger.start();
    closing.push(() => ledger.stop());
    await log.append('2026-01-05', 2);
    expect(await ledger.waitFor(await log.store.headPosition(), 2500)).toBe(false);
    expect(ledger.health()[0]!.health).toEqual({ state: 'standby' });
    expect(await digestRows(log.pool)).toEqual([]);
    await query(older, 'OlderDigestsStop', `select pg_advisory_unlock(hashtextextended($1, 0))`, [lockName]);
    expect(await ledger.waitFor(await log.store.headPosition(), 10_000)).toBe(true);
    expect((await digestRows(log.pool)).map(r => Number(r.events))).toEqual([2]);
  });
});
