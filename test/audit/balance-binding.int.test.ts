import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingCashAsOf, merchantBalanceAsOf, type BindingDeps } from '../../src/audit/balance-as-of.ts';
import { LedgerNotVerified } from '../../src/audit/checkpoint-binding.ts';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listLedgerCheckpoints } from '../../src/audit/ledger-checkpoint-rows.ts';
import { checkpointHash, checkpointSignedText } from '../../src/audit/ledger-format.ts';
import { balanceAsOfCommand } from '../../src/cli/audit.ts';
import { creditGatewayPayment } from '../../src/commands/gateway-ledger.ts';
import { inTransaction, query } from '../../src/db/pool.ts';
import { gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import { positionText } from '../../src/store/subscriber.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * balance-as-of names the signed checkpoint its figures are bound to, after checking the chain and recomputing the
 * ranges they rely on; a log changed inside a signed range (as the tables' owner, the append-only trigger off) is refused,
 * never answered with the changed figures.
 */

let s: TestService;
let deps: BindingDeps;
const merchantId = randomUUID();
const holdingId = randomUUID();
beforeAll(async () => {
  s = await startTestService();
  s.clock.set('2026-02-02T02:00:00.000Z');
  deps = { store: s.store, pool: s.pool, publicKeys: [digestSigner(s.config.digestSigningKey!).publicKey] };
}, 60_000);
afterAll(async () => s?.close());

async function paid(totalAmount: number, merchant = merchantId) {
  const now = s.clock.now();
  await creditGatewayPayment(
    s.deps,
    {
      merchantId: merchant,
      paymentId: randomUUID(),
      holdingAccountId: holdingId,
      totalAmount,
      fee: 1_000,
      completedAt: now,
    },
    { actor: 'test', now },
  );
}

async function signMinute() {
  const head = await s.store.headPosition();
  expect(await s.ledger.waitFor(head, 10_000)).toBe(true);
  s.clock.advance(60_000);
  await eventually(
    async () => (await listLedgerCheckpoints(s.pool)).at(-1)?.lastPosition === positionText(head),
    10_000,
  );
}

/** As an insider with the superuser's connection: the append-only triggers switched off first. */
const tamper = (sql: string, params: unknown[]) =>
  inTransaction(s.pool, async tx => {
    await query(tx, 'ReplicaRole', 'set local session_replication_role = replica');
    await query(tx, 'Tamper', sql, params);
  });

describe('balance-as-of bound to a checkpoint', () => {
  it('reads the chain in seq order past ten checkpoints (not as text: 10 before 2)', async () => {
    const early = randomUUID();
    for (let i = 0; i < 11; i++) {
      await paid(10_000 + i, early);
      await signMinute();
    }
    expect((await listLedgerCheckpoints(s.pool)).map(c => c.seq)).toEqual([...Array(11).keys()]);
    const answer = await merchantBalanceAsOf(deps, early, s.clock.now());
    expect(answer.checkpoint).toMatchObject({ seq: 10, unsignedEvents: 0 });
    expect(answer.checkpoint!.rangesChecked).toEqual([...Array(11).keys()]);
  }, 60_000);

  it('names the newest checkpoint when the log verifies up to it, and refuses a changed amount inside a signed range', async () => {
    await paid(51_000);
    await signMinute();
    await paid(21_000);
    await signMinute();
    s.clock.advance(60_000);
    const at = s.clock.now();
    const newest = (await listLedgerCheckpoints(s.pool)).at(-1)!;

    const intact = await merchantBalanceAsOf(deps, merchantId, at);
    expect(intact.balance.pending).toBe(70_000);
    expect(intact.checkpoint).toMatchObject({
      seq: newest.seq,
      hash: checkpointHash(newest),
      to: newest.to,
      unsignedEvents: 0,
    });
    expect(intact.checkpoint!.rangesChecked).toContain(newest.seq);
    expect((await holdingCashAsOf(deps, holdingId, at)).checkpoint).toMatchObject({ seq: newest.seq });
    const lines: string[] = [];
    const out = { print: (t: string) => void lines.push(t), complain: (t: string) => void lines.push(t) };
    expect(await balanceAsOfCommand(deps, ['--merchant', merchantId, '--at', at.toISOString()], out)).toBe(0);
    expect(JSON.parse(lines[0]!).checkpoint.hash).toBe(checkpointHash(newest));

    // the first payment, in a signed range before the newest, made bigger, its postings still balanced
    await tamper(
      `update es_events set data = replace(replace(data::text, '51000', '951000'), '-50000', '-950000')::json
       where stream_id = $1 and revision = 0`,
      [gatewayLedgerStream(merchantId)],
    );
    const unbound = await merchantBalanceAsOf({ ...deps, publicKeys: [] }, merchantId, at);
    expect(unbound.balance.pending, 'what an unchecked fold would answer').toBe(970_000);
    await expect(merchantBalanceAsOf(deps, merchantId, at)).rejects.toThrow(LedgerNotVerified);
    await expect(holdingCashAsOf(deps, holdingId, at)).rejects.toThrow(/no longer make checkpoint \d+'s signed root/);
    lines.length = 0;
    expect(await balanceAsOfCommand(deps, ['--holding', holdingId, '--at', at.toISOString()], out)).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^balance-as-of: refused: the log does not verify: the events \[/)]);
  }, 60_000);

  it('refuses an event removed from a range it does not rely on, and a checkpoint re-signed with another key', async () => {
    const other = randomUUID();
    const now = s.clock.now();
    await creditGatewayPayment(
      s.deps,
      {
        merchantId: other,
        paymentId: randomUUID(),
        holdingAccountId: holdingId,
        totalAmount: 9_000,
        fee: 0,
        completedAt: now,
      },
      { actor: 'test', now },
    );
    await signMinute();
    const at = s.clock.now();
    // the first merchant's second payment, in a range none of this merchant's events are in, deleted
    await tamper('delete from es_events where stream_id = $1 and revision = 1', [gatewayLedgerStream(merchantId)]);
    await expect(merchantBalanceAsOf(deps, other, at)).rejects.toThrow(/events were removed or added/);

    const newest = (await listLedgerCheckpoints(s.pool)).at(-1)!;
    const { privateKey } = generateKeyPairSync('ed25519');
    const forged = sign(null, Buffer.from(checkpointSignedText(newest)), privateKey).toString('base64');
    await tamper(
      `update ledger_checkpoints set checkpoint = jsonb_set(checkpoint::jsonb, '{signature}', to_jsonb($2::text))::json where seq = $1`,
      [newest.seq, forged],
    );
    await expect(merchantBalanceAsOf(deps, other, at)).rejects.toThrow(
      /signature does not verify with the service's key/,
    );
  }, 60_000);
});
