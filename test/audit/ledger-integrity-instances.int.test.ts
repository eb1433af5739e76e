import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { query } from '../../src/db/pool.ts';
import { withoutAppendOnlyGuard } from '../support/database.ts';
import { registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

let leader: TestService;
let standby: TestService;
beforeAll(async () => {
  [leader, standby] = await startTwoInstances();
});
afterAll(async () => {
  await standby?.close();
  await leader?.close();
});

const ledgerState = (s: TestService) => s.ledger.health()[0]!.health.state;

async function ready(s: TestService) {
  const answer = await s.app.inject({ method: 'GET', url: '/ready' });
  return { statusCode: answer.statusCode, body: answer.json() };
}

describe("the ledger's integrity findings with two instances on one database", () => {
  it('are reported by the standby too: what the leader found makes both not ready, with the findings', async () => {
    leader.clock.set('2026-01-05T03:00:00.000Z');
    expect(ledgerState(leader)).toBe('leading');
    expect(ledgerState(standby)).toBe('standby');
    await registerUser(leader);
    expect(await leader.ledger.waitFor(await leader.store.headPosition(), 20_000)).toBe(true);
    leader.clock.advance(61_000);
    const [made] = await eventually(async () => {
      const rows = await listLedgerCheckpoints(leader.pool);
      return rows.length > 0 && rows;
    }, 20_000);
    expect((await ready(standby)).statusCode).toBe(200);

    await withoutAppendOnlyGuard(leader.pool, tx =>
      query(
        tx,
        'ChangeAnEvent',
        `update es_events set data = jsonb_set(data::jsonb, '{name}', '"Mallory"')::json where type = 'UserRegistered'`,
      ),
    );
    await leader.ledger.verifyNow();

    const seen = await ready(standby);
    expect(seen.statusCode).toBe(503);
    expect(seen.body.checks.ledgerIntegrity).toBe(false);
    const { findings, lastVerification } = seen.body.details.ledgerIntegrity;
    expect(lastVerification).toMatchObject({ clean: false, checkpoints: made!.seq + 1 });
    expect(findings).not.toHaveLength(0);
    for (const finding of findings)
      expect(finding).toMatchObject({ source: 'daily verification', acknowledged: false });
    expect((await ready(leader)).body.details.ledgerIntegrity).toEqual(seen.body.details.ledgerIntegrity);
  });
});
