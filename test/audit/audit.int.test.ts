import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditStream } from '../../src/audit/audit-stream.ts';
import { accountBalanceAsOf, merchantBalanceAsOf } from '../../src/audit/balance-as-of.ts';
import { creditGatewayPayment, settleDue } from '../../src/commands/gateway-ledger.ts';
import { query } from '../../src/db/pool.ts';
import { withoutAppendOnlyGuard } from '../support/database.ts';
import { balanceAsOfCommand, exportCommand } from '../../src/cli/audit.ts';
import { keyHolder, registerUser } from '../support/http.ts';
import { signedInAdmin, type Admin } from '../support/gateway.ts';
import { nextUuid } from '../support/ids.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: Admin;
beforeAll(async () => {
  service = await startTestService();
  admin = await signedInAdmin(service);
});
afterAll(async () => service?.close());

const context = () => ({ actor: 'test', now: service.clock.now() });
/** balance-as-of without a key: its figures bound to no checkpoint (test/audit/balance-binding.int.test.ts binds them) */
const unbound = () => ({ store: service.store, pool: service.pool, publicKeys: [] });
const caughtUp = async () =>
  expect(await service.projections.waitFor(await service.store.headPosition(), 10_000)).toBe(true);

/** A merchant's ledger: two credits at t0, a settlement at t1, a third credit at t2 (instants between them returned). */
async function ledgerWithHistory() {
  const merchantId = nextUuid();
  const credit = (totalAmount: number) =>
    creditGatewayPayment(
      service.deps,
      {
        merchantId,
        paymentId: nextUuid(),
        holdingAccountId: nextUuid(),
        totalAmount,
        fee: 1_000,
        completedAt: service.clock.now(),
      },
      context(),
    );
  await credit(51_000);
  await credit(21_000);
  const afterCredits = service.clock.now();
  service.clock.advance(86_400_000);
  await settleDue(service.deps, merchantId, service.clock.now(), context());
  const afterSettlement = service.clock.now();
  service.clock.advance(3_600_000);
  await credit(11_000);
  const afterLast = service.clock.now();
  service.clock.advance(60_000);
  return { merchantId, before: new Date(afterCredits.getTime() - 1), afterCredits, afterSettlement, afterLast };
}

describe('balance-as-of', () => {
  it("folds a merchant's ledger up to the instant: nothing before it, pending after the credits, settled after the settlement", async () => {
    const { merchantId, before, afterCredits, afterSettlement, afterLast } = await ledgerWithHistory();
    expect((await merchantBalanceAsOf(unbound(), merchantId, before)).balance).toEqual({
      settled: 0,
      pending: 0,
      onHold: 0,
      available: 0,
    });
    expect(await merchantBalanceAsOf(unbound(), merchantId, afterCredits)).toMatchObject({
      revision: 1,
      balance: { settled: 0, pending: 70_000, onHold: 0, available: 0 },
    });
    expect(await merchantBalanceAsOf(unbound(), merchantId, afterSettlement)).toMatchObject({
      revision: 2,
      balance: { settled: 70_000, pending: 0, available: 70_000 },
    });
    expect(await merchantBalanceAsOf(unbound(), merchantId, afterLast)).toMatchObject({
      revision: 3,
      balance: { settled: 70_000, pending: 10_000 },
    });
  });

  it("answers an account's synchronised balance then: none before its first sync, the provider's after it", async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const linkedAt = service.clock.now();
    expect((await accountBalanceAsOf(service.store, accountId, new Date(linkedAt.getTime() - 1))).revision).toBe(-1);
    service.clock.advance(60_000);
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);
    await caughtUp();
    const synced = (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data as { balance: number };
    expect(synced.balance).toBeGreaterThan(0);
    expect((await accountBalanceAsOf(service.store, accountId, linkedAt)).balance).toBeNull();
    expect((await accountBalanceAsOf(service.store, accountId, service.clock.now())).balance).toBe(synced.balance);
  });

  it('refuses what it cannot answer with exit code 2 and a message', async () => {
    const lines: string[] = [];
    const out = { print: (t: string) => lines.push(t), complain: (t: string) => lines.push(t) };
    expect(await balanceAsOfCommand(unbound(), ['--merchant', 'not-a-uuid', '--at', '2026-01-01'], out)).toBe(2);
    expect(await balanceAsOfCommand(unbound(), ['--merchant', nextUuid()], out)).toBe(2);
    expect(
      await balanceAsOfCommand(
        unbound(),
        ['--merchant', nextUuid(), '--account', nextUuid(), '--at', '2026-01-01'],
        out,
      ),
    ).toBe(2);
    expect(lines.every(l => l.startsWith('balance-as-of needs'))).toBe(true);
  });
});

describe('audit-stream', () => {
  it("finds a ledger clean, then names the read model's difference and an event that is no longer valid", async () => {
    const { merchantId } = await ledgerWithHistory();
    await caughtUp();
    const stream = `gateway-${merchantId}`;
    expect(await auditStream(service.deps, stream)).toMatchObject({
      events: 4,
      readModelCompared: true,
      findings: [],
      clean: true,
    });

    await query(service.pool, 'T', 'update gateway_balances set pending = pending + 1 where merchant_id = $1', [
      merchantId,
    ]);
    const drifted = await auditStream(service.deps, stream);
    expect(drifted.clean).toBe(false);
    expect(drifted.findings).toEqual([{ problem: expect.stringContaining('balance.pending') }]);

    // behind the store's back, with the append-only trigger switched off as an insider would
    await withoutAppendOnlyGuard(service.pool, tx =>
      query(
        tx,
        'T',
        `update es_events set data = '{"merchantId": "nope"}'::jsonb where stream_id = $1 and revision = 2`,
        [stream],
      ),
    );
    const broken = await auditStream(service.deps, stream);
    expect(broken.findings).toContainEqual({
      revision: 2,
      problem: expect.stringContaining('BalanceSettled v1 is not valid'),
    });
  });

  it('finds a gap in the revisions', async () => {
    const { merchantId } = await ledgerWithHistory();
    const stream = `gateway-${merchantId}`;
    await withoutAppendOnlyGuard(service.pool, tx =>
      query(tx, 'T', 'delete from es_events where stream_id = $1 and revision = 1', [stream]),
    ); // behind the store's back
    expect((await service.store.readStream(stream)).map(e => e.revision)).toEqual([0, 2, 3]);
    expect((await auditStream(service.deps, stream)).findings).toContainEqual({
      revision: 2,
      problem: 'revision 2 where 1 was due',
    });
  });

  it('says when a stream has no events, and compares no read model for streams of other kinds', async () => {
    expect(await auditStream(service.deps, `gateway-${nextUuid()}`)).toMatchObject({
      events: 0,
      clean: false,
      findings: [{ problem: 'the stream has no events' }],
    });
    const user = await registerUser(service);
    expect(await auditStream(service.deps, `user-${user.id}`)).toMatchObject({ readModelCompared: false, clean: true });
    expect((await auditStream(service.deps, 'gateway-holding-accounts')).readModelCompared).toBe(false);
  });
});

describe('export', () => {
  it('writes the events recorded in [from, to) as JSON lines in log order, with secrets and sealed values replaced', async () => {
    service.clock.advance(86_400_000);
    const from = service.clock.now();
    const user = await registerUser(service);
    const caller = await keyHolder(service);
    await linkServiceWallet(caller);
    service.clock.advance(1000);
    const to = service.clock.now();
    service.clock.advance(1000);
    await registerUser(service); // after the window

    const lines: string[] = [];
    const code = await exportCommand(
      service.store,
      ['--from', from.toISOString(), '--to', to.toISOString()],
      line => void lines.push(line),
      { print: () => undefined, complain: () => undefined },
    );
    expect(code).toBe(0);
    const events = lines.map(
      l =>
        JSON.parse(l) as {
          streamId: string;
          type: string;
          position: string;
          data: Record<string, unknown>;
          metadata: { occurredAt: string };
        },
    );
    expect(
      events.every(e => e.metadata.occurredAt >= from.toISOString() && e.metadata.occurredAt < to.toISOString()),
    ).toBe(true);
    const ids = (await service.store.readAll({ commit: 0n, prepare: 0n }, 100_000))
      .filter(e => e.metadata.occurredAt >= from.toISOString() && e.metadata.occurredAt < to.toISOString())
      .map(e => `${e.streamId}@${e.revision}`);
    expect(events.map(e => `${e.streamId}@${(e as unknown as { revision: number }).revision}`)).toEqual(ids);

    // secrets as commitments in `data` (the ledger leaf's bytes), as words in `view` (for people)
    const registered = events.find(
      e => e.type === 'UserRegistered' && e.streamId === `user-${user.id}`,
    )! as unknown as { data: { passwordHash: unknown }; view: { passwordHash: unknown } };
    expect(registered.data.passwordHash).toEqual({ $commitment: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(registered.view.passwordHash).toBe('[redacted]');
    const linked = events.find(e => e.type === 'AccountLinked')!;
    expect(JSON.stringify(linked.data)).not.toMatch(/"iv"|"tag"/);
    expect(JSON.stringify(linked)).toContain('[sealed]');
    expect(lines.join('')).not.toContain(user.password);
  });

  it('refuses a window that is not one', async () => {
    const complaints: string[] = [];
    const out = { print: () => undefined, complain: (t: string) => complaints.push(t) };
    expect(
      await exportCommand(service.store, ['--from', '2026-02-01', '--to', '2026-01-01'], () => undefined, out),
    ).toBe(2);
    expect(
      await exportCommand(service.store, ['--from', 'yesterday', '--to', '2026-01-01'], () => undefined, out),
    ).toBe(2);
    expect(complaints).toHaveLength(2);
  });
});

describe('GET /api/admin/streams/:id', () => {
  it("shows an admin a stream's events with who, when and why, a page at a time, secrets replaced", async () => {
    const user = await registerUser(service);
    const first = await admin.session('GET', `/api/admin/streams/user-${user.id}?limit=1`);
    expect(first.statusCode, first.body).toBe(200);
    const page = first.json().data;
    expect(page.streamId).toBe(`user-${user.id}`);
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({
      revision: 0,
      type: 'UserRegistered',
      data: { passwordHash: '[redacted]' },
      metadata: { actor: expect.any(String), occurredAt: expect.any(String) },
    });
    const all = (await admin.session('GET', `/api/admin/streams/user-${user.id}`)).json().data;
    expect(page.nextRevision).toBe(all.events.length > 1 ? 1 : null);
  });

  it('answers 404 for a stream without events, 400 for an id that is none, 403 to a non-admin and 401 without a session', async () => {
    expect((await admin.session('GET', `/api/admin/streams/user-${nextUuid()}`)).json()).toMatchObject({
      status: 'error',
      code: 'STREAM_NOT_FOUND',
    });
    expect((await admin.session('GET', `/api/admin/streams/user-${nextUuid()}`)).statusCode).toBe(404);
    expect((await admin.session('GET', '/api/admin/streams/%20drop')).statusCode).toBe(400);
    expect((await admin.session('GET', `/api/admin/streams/user-${admin.id}?limit=0`)).statusCode).toBe(400);
    const user = await registerUser(service);
    expect(
      (
        await service.app.inject({
          method: 'GET',
          url: `/api/admin/streams/user-${user.id}`,
          cookies: { svc_token: user.cookie },
        })
      ).statusCode,
    ).toBe(403);
    expect((await service.app.inject({ method: 'GET', url: `/api/admin/streams/user-${user.id}` })).statusCode).toBe(
      401,
    );
  });
});

describe('the CLI', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: root,
        env: {
          ...process.env,
          LOG_LEVEL: 'silent',
          DATABASE_URL: service.config.databaseUrl!,
          DATA_DIR: service.config.dataDir,
        },
      });
      let out = '';
      child.stdout.on('data', c => (out += c));
      child.on('error', reject);
      child.on('exit', code => resolve({ code, out }));
    });

  it('runs audit-stream and export', async () => {
    const { merchantId } = await ledgerWithHistory();
    await caughtUp();
    const audit = await run(['audit-stream', `gateway-${merchantId}`]);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.out)).toMatchObject({ streamId: `gateway-${merchantId}`, events: 4, clean: true });
    const exported = await run(['export', '--from', '2000-01-01', '--to', '2100-01-01']);
    expect(exported.code).toBe(0);
    const lines = exported.out
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as { streamId: string });
    expect(lines.filter(l => l.streamId === `gateway-${merchantId}`)).toHaveLength(4);
  });
});
