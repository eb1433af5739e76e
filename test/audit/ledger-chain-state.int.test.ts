import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../../src/audit/ledger-checkpoints.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import type { LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { ledgerIntegrity, type IntegrityFinding } from '../../src/audit/ledger-integrity.ts';
import { verifyLog } from '../../src/audit/verify-log.ts';
import { ledgerResetCommand } from '../../src/cli/ledger-reset.ts';
import { TestClock } from '../../src/clock.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { newEvent } from '../store/event-store.contract.ts';
import { freshServiceDatabase, withoutAppendOnlyGuard } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { testSigningKey } from '../support/signing-key.ts';

const signer = digestSigner(testSigningKey());
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The chain's leader on a fresh database under the service's restricted role; the findings it tells, collected. */
async function chainOnServiceRole() {
  const db = await freshServiceDatabase();
  const owner = createPool(db.ownerUrl, 2);
  const service = createPool(db.url, 6);
  const store = await PostgresEventStore.create(service);
  const told: IntegrityFinding[] = [];
  ledgerIntegrity(service).attach({ log: createLogger('silent'), publish: async f => told.push(f) });
  const clock = new TestClock();
  const leader = (dir = mkdtempSync(path.join(tmpdir(), 'ledger-state-'))) => {
    const ledger = new LedgerCheckpoints({ pool: service, store, log: createLogger('silent'), clock }, signer, dir);
    closing.push(() => ledger.stop());
    return { ledger, dir };
  };
  const { ledger, dir } = leader();
  closing.push(
    () => owner.end(),
    () => service.end(),
    () => store.close(),
  );
  await ledger.start();
  return { owner, service, store, clock, ledger, dir, told, leader };
}
type Chain = Awaited<ReturnType<typeof chainOnServiceRole>>;

/** Appends an event and waits until the leader has taken it in. */
async function appended(c: Chain, ledger = c.ledger) {
  const { position } = await c.store.append(`account-${nextUuid()}`, [newEvent('AccountLinked')], 'no_stream');
  expect(await ledger.waitFor(position, 20_000)).toBe(true);
}

/** An event, a minute on, and the checkpoint the leader makes of it. */
async function checkpointMade(c: Chain, ledger = c.ledger): Promise<LedgerCheckpoint> {
  await appended(c, ledger);
  const before = (await listLedgerCheckpoints(c.service)).length;
  c.clock.advance(61_000);
  return eventually(async () => {
    const now = await listLedgerCheckpoints(c.service);
    return now.length > before && now.at(-1)!;
  }, 20_000);
}

/** An event and a minute on: the leader stands by saying `error`, and signs nothing. */
async function refuses(c: Chain, error: string, ledger = c.ledger) {
  const rows = (await listLedgerCheckpoints(c.service)).length;
  await c.store.append(`account-${nextUuid()}`, [newEvent('AccountLinked')], 'no_stream');
  c.clock.advance(61_000);
  await eventually(async () => {
    const h = ledger.health()[0]!.health;
    return h.state === 'waiting' && h.error.includes(error);
  }, 20_000);
  await new Promise(r => setTimeout(r, 3000));
  expect(await listLedgerCheckpoints(c.service)).toHaveLength(rows);
  expect(await ledgerIntegrity(c.service).sound()).toBe(false);
}

/** `npm run cli -- ledger-reset` as the service's role: answers what it accepted. */
async function reset(c: Chain, reason: string): Promise<string[]> {
  const printed: string[] = [];
  const out = { print: (t: string) => printed.push(t), complain: () => undefined };
  const context = { keyId: signer.keyId, checkpointDir: c.dir };
  const deps = { pool: c.service, store: c.store, clock: c.clock };
  expect(await ledgerResetCommand(deps, ['--reason', reason], context, out)).toBe(0);
  return (JSON.parse(printed[0]!) as { findings: string[] }).findings;
}

/** The service's role sets a member of the chain's state. */
const forge = (c: Chain, member: string, value: unknown) =>
  query(c.service, 'ForgeState', `update ledger_chain_state set state = jsonb_set(state, $1, $2)`, [
    member,
    JSON.stringify(value),
  ]);

const leading = (ledger: LedgerCheckpoints) =>
  eventually(async () => ledger.health()[0]!.health.state === 'leading', 20_000);

// each test waits out several of the leader's looks (a second apart) and its back-off after each stand-down
describe("the chain's state, which the service's role may write", { timeout: 90_000 }, () => {
  it('changed while the leader runs is a finding, never a checkpoint signed from it; a reset signs on from the rows', async () => {
    const c = await chainOnServiceRole();
    const kept = await checkpointMade(c);
    await appended(c);
    // the role puts another root in the pending event's frontier: signed from, it would be a forged root
    await forge(c, '{frontier,0,hash}', 'ab'.repeat(32));
    const finding = `the chain's state (ledger_chain_state) was changed outside the leader: its frontier is not what the leader wrote before checkpoint ${kept.seq + 1}`;
    await refuses(c, finding);
    expect(c.told).toContainEqual(expect.objectContaining({ source: 'chain state', finding, acknowledged: false }));

    expect(await reset(c, 'the state row was edited')).toContain(finding);
    await leading(c.ledger);
    expect(await checkpointMade(c)).toMatchObject({ seq: kept.seq + 1, from: kept.to });
    expect(
      (await verifyLog({ store: c.store, pool: c.service }, { publicKey: signer.publicKey, kept: [] })).problems,
    ).toEqual([]);
    expect(await ledgerIntegrity(c.service).sound()).toBe(true);
  });

  it('changed under one instance and accepted while another led stops the first no more', async () => {
    const c = await chainOnServiceRole();
    await checkpointMade(c);
    await appended(c);
    await forge(c, '{frontier,0,hash}', 'ab'.repeat(32));
    await refuses(c, 'its frontier is not what the leader wrote');
    await c.ledger.stop();
    const other = c.leader();
    await other.ledger.start();
    await refuses(c, 'its frontier is not what the leader wrote', other.ledger);
    await reset(c, 'the frontier was edited');
    await leading(other.ledger);
    await checkpointMade(c, other.ledger);
    // a change the other instance sees, and a reset that accepts it and names the first one no more
    await forge(c, '{day}', '2099-01-01');
    await refuses(c, 'its day is not what the leader wrote', other.ledger);
    expect(await reset(c, 'the day was edited')).not.toContainEqual(expect.stringContaining('its frontier'));
    await leading(other.ledger);
    await other.ledger.stop();
    await c.ledger.start();
    await leading(c.ledger);
    expect(await checkpointMade(c)).toBeTruthy();
  });

  it('is proved from the rows and the log at a new leadership: a leaf added to an empty frontier, a later day', async () => {
    const c = await chainOnServiceRole();
    const kept = await checkpointMade(c);
    await c.ledger.stop();
    // nothing pending, so no count or root to hold it against: the next checkpoint would count 1 event and root 2
    await query(c.service, 'ForgeState', 'update ledger_chain_state set state = state || $1', [
      JSON.stringify({ frontier: [{ size: 1, hash: 'ab'.repeat(32) }], day: '2099-01-01' }),
    ]);
    await c.ledger.start();
    await refuses(
      c,
      `the chain's state after checkpoint ${kept.seq} is not what the log makes of it (its frontier, day)`,
    );
  });
});

describe('a malformed checkpoint row in the middle of the chain (the owner put it there)', { timeout: 90_000 }, () => {
  it('found by the daily verification stops signing, at once and at the next leadership, until a reset accepts it', async () => {
    const c = await chainOnServiceRole();
    for (let i = 0; i < 4; i++) await checkpointMade(c);
    await withoutAppendOnlyGuard(
      c.owner,
      async tx => {
        await query(tx, 'DropRow', 'delete from ledger_checkpoints where seq = 1');
        await query(tx, 'Malformed', `insert into ledger_checkpoints values (1, '{"v":1,"seq":"one"}')`);
      },
      'ledger_checkpoints',
    );
    await c.ledger.verifyNow();
    const malformed = 'checkpoint row 1: checkpoint row 1 is malformed: ';
    await refuses(c, malformed);

    // another instance takes the lead, its checkpoint file made anew from the rows: the finding held still stops it
    await c.ledger.stop();
    const other = c.leader();
    await other.ledger.start();
    await refuses(c, malformed, other.ledger);

    expect(await reset(c, 'row 1 was overwritten by hand; the file keeps the signed one')).toContainEqual(
      expect.stringContaining(malformed),
    );
    await leading(other.ledger);
    expect(await checkpointMade(c, other.ledger)).toMatchObject({ seq: 4 });
    const held = (await ledgerIntegrity(c.service).findings()).filter(f => f.finding.startsWith(malformed));
    expect(held).toEqual([expect.objectContaining({ source: 'daily verification', acknowledged: true })]);

    // the next verification finds it again, accepted: the leader signs on
    await other.ledger.verifyNow();
    expect(other.ledger.health()[0]!.health).toEqual({ state: 'leading' });
    expect((await ledgerIntegrity(c.service).findings()).filter(f => f.finding.startsWith(malformed))).toEqual([
      expect.objectContaining({ acknowledged: true }),
    ]);
    expect(await checkpointMade(c, other.ledger)).toMatchObject({ seq: 5 });
    // a later reset, for another finding, accepts it again (else the leader stops on it once more)
    await forge(c, '{day}', '2099-01-01');
    await refuses(c, 'its day is not what the leader wrote', other.ledger);
    expect(await reset(c, 'the day was edited')).toContainEqual(expect.stringContaining(malformed));
    await leading(other.ledger);
    expect(await checkpointMade(c, other.ledger)).toMatchObject({ seq: 6 });
  });
});
