import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../src/clock.ts';
import { carryOverLegacyPayables, legacyPayablesCarriedOver } from '../../src/commands/payments-carry-over.ts';
import { migrate } from '../../src/db/migrations.ts';
import { createPool } from '../../src/db/pool.ts';
import { account, accountStream } from '../../src/domain/account.ts';
import { mutationIdOf } from '../../src/domain/account-sync.ts';
import { legacyReservations } from '../../src/domain/payments-carry-over.ts';
import { payableClaim, payableClaimStream, TotalHeld } from '../../src/domain/payments-payable-claims.ts';
import { receivingStream } from '../../src/domain/payments-receiving.ts';
import { PayableReserved } from '../../src/events/payments-receiving.ts';
import { createLogger } from '../../src/logger.ts';
import { migrateForStartUp } from '../../src/schema.ts';
import { handleCommand, load } from '../../src/store/commands/handle.ts';
import type { EventStore } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { readLegacyStore } from '../fixtures/legacy-reservations/legacy-store.ts';
import { loadStoreRows } from '../fixtures/previous-store/store-rows.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { statusOf } from '../support/payments.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A store written by the version that reserved unique codes on the receiving stream (test/fixtures/legacy-reservations)
 * started by this one: its pending bills are carried over to the claims on their totals, where this version reserves,
 * matches and releases them, once, whichever instance starts first.
 */

const fixture = readLegacyStore();
const { history } = fixture;
const accountId = history.walletAccountId;
const silent = createLogger('silent');
const tenMinutesIn = new Date(Date.parse(history.at) + 10 * 60_000);

/** The fixture's rows in a fresh database whose schema this version brought up to date. */
async function restored(): Promise<string> {
  const url = await freshDatabaseUrl();
  await migrateForStartUp(url, { eventStore: 'postgres' }, silent);
  await loadStoreRows(url, fixture.tables);
  return url;
}

/** The bill the previous version reserved for a payment, as its PayableReserved recorded it. */
const reservedBefore = (paymentId: string) =>
  (fixture.tables.es_events as { type: string; data: { paymentId: string } }[]).find(
    e => e.type === 'PayableReserved' && e.data.paymentId === paymentId,
  )!.data;

const eventsOf = async (store: EventStore, streamId: string) =>
  (await store.readStream(streamId)).map(e => ({ type: e.type, data: e.data }));
const claimOf = (store: EventStore, totalAmount: number) => eventsOf(store, payableClaimStream(accountId, totalAmount));
const carriedFrom = async (store: EventStore) =>
  (await eventsOf(store, receivingStream(accountId)))
    .filter(e => e.data.reason === 'carried')
    .map(e => e.data.paymentId);

describe('a store with unique-code bills on its receiving streams, started by this version', () => {
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    const env = { ...fixture.env, DATABASE_URL: await restored() };
    // two instances starting together: one carries the bills over, the other finds it done
    [first, second] = await Promise.all([startTestService(env), startTestService(env)]);
    first.clock.set(tenMinutesIn.toISOString());
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('claims each pending bill as it was reserved, lapsed or not, and releases it from the receiving stream', async () => {
    for (const bill of [history.held, history.lapsed])
      expect((await claimOf(first.store, bill.totalAmount))[0]).toEqual({
        type: 'PayableReserved',
        data: reservedBefore(bill.id),
      });
    expect((await load(first.deps, receivingStream(accountId), legacyReservations)).state.pending.size).toBe(0);
    expect((await carriedFrom(first.store)).sort()).toEqual([history.held.id, history.lapsed.id].sort());
    // the completed payment's bill was released by the version that reserved it: nothing to carry
    expect(await claimOf(first.store, history.completed.totalAmount)).toEqual([]);
  });

  it('lets no new payment take a carried total while its bill is held', async () => {
    const { totalAmount } = history.held;
    const claim = handleCommand(
      first.deps,
      payableClaimStream(accountId, totalAmount),
      payableClaim,
      {
        type: 'ClaimTotal',
        accountId,
        paymentId: randomUUID(),
        amount: totalAmount - 1,
        uniqueCode: 1,
        expiresAt: new Date(tenMinutesIn.getTime() + 3_600_000),
        now: tenMinutesIn,
      },
      { actor: 'test', now: tenMinutesIn },
    );
    await expect(claim).rejects.toBeInstanceOf(TotalHeld);
  });

  it('completes a carried bill with a credit of its total booked in time, and frees its claim', async () => {
    const { id, totalAmount } = history.lapsed;
    const transaction = {
      id: 'paid-before-the-lapse',
      type: 'CREDIT' as const,
      amount: totalAmount,
      description: 'QRIS',
      senderName: 'Budi',
      reference: null,
      occurredAt: new Date(Date.parse(history.lapsed.expiresAt) - 60_000).toISOString(),
      mutationId: mutationIdOf(accountId, 'paid-before-the-lapse'),
    };
    // the credit as a sync records it, synchronised late: booked before the bill lapsed
    await handleCommand(
      first.deps,
      accountStream(accountId),
      account,
      {
        type: 'RecordSync',
        slot: null,
        trigger: 'refresh',
        balance: totalAmount,
        transactions: [transaction],
        now: tenMinutesIn,
      },
      { actor: 'test', now: tenMinutesIn },
    );
    const shop = {
      call: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string) =>
        first.app.inject({ method, url, headers: { 'x-api-key': history.shopKey } }),
    };
    const completed = await eventually(async () => {
      const status = await statusOf(shop, id);
      return status.status === 'COMPLETED' && status;
    });
    expect(completed).toMatchObject({ status: 'COMPLETED', totalAmount });
    const freed = await eventually(async () => (await claimOf(first.store, totalAmount)).at(-1)?.data);
    expect(freed).toMatchObject({ paymentId: id, reason: 'completed' });
  });

  it('is done once per store: a later start carries nothing and writes nothing', async () => {
    const before = await carriedFrom(first.store);
    const deps = { ...first.deps, log: silent };
    expect(await migrate(first.pool, [legacyPayablesCarriedOver(deps)])).toEqual([]);
    expect(await carryOverLegacyPayables(deps)).toEqual({ accounts: 0, claimed: 0, leftLapsed: 0 });
    expect(await carriedFrom(first.store)).toEqual(before);
    expect(before).toHaveLength(2); // two instances started: each bill carried by one of them
  });
});

describe('the carry-over', () => {
  const closing: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  /** This version's event store on a copy of the fixture, without a service: one per instance. */
  async function instanceOn(url: string) {
    const pool = createPool(url, 4);
    const store = await PostgresEventStore.create(pool);
    closing.push(
      () => pool.end(),
      () => store.close(),
    );
    return { store, clock: new TestClock(tenMinutesIn), log: silent };
  }
  const reservedAt = { actor: 'test', now: tenMinutesIn };
  const { totalAmount } = history.lapsed;
  /** A command on the claim of the lapsed bill's total, as this version's payments send it. */
  const onClaim = (deps: Awaited<ReturnType<typeof instanceOn>>, command: Parameters<typeof payableClaim.decide>[1]) =>
    handleCommand(deps, payableClaimStream(accountId, totalAmount), payableClaim, command, reservedAt);
  /** A newer payment of this version claiming the lapsed bill's total (code 5), for an hour. */
  const claimedBy = (paymentId: string) =>
    ({
      type: 'ClaimTotal',
      accountId,
      paymentId,
      amount: totalAmount - 5,
      uniqueCode: 5,
      expiresAt: new Date(tenMinutesIn.getTime() + 3_600_000),
      now: tenMinutesIn,
    }) as const;

  it('claims each bill once when two instances carry over at once, without the lock', async () => {
    const url = await restored();
    const [a, b] = [await instanceOn(url), await instanceOn(url)];
    const runs = await Promise.all([carryOverLegacyPayables(a), carryOverLegacyPayables(b)]);
    expect(runs.reduce((n, r) => n + r.claimed, 0)).toBe(2);
    expect(runs.reduce((n, r) => n + r.leftLapsed, 0)).toBe(0); // the one that came second found them carried
    for (const bill of [history.held, history.lapsed])
      expect((await claimOf(a.store, bill.totalAmount)).map(e => e.type)).toEqual(['PayableReserved']);
    expect(await carriedFrom(a.store)).toHaveLength(2);
  });

  it('leaves a lapsed bill lapsed when a newer claim holds its total, and releases it from the receiving stream', async () => {
    const deps = await instanceOn(await restored());
    const newer = randomUUID();
    await onClaim(deps, claimedBy(newer));
    expect(await carryOverLegacyPayables(deps)).toEqual({ accounts: 1, claimed: 1, leftLapsed: 1 });
    expect((await claimOf(deps.store, totalAmount)).map(e => e.data.paymentId)).toEqual([newer]);
    expect((await carriedFrom(deps.store)).sort()).toEqual([history.held.id, history.lapsed.id].sort());
  });

  it("claims a lapsed bill's total after all when its newer holder frees it while the carry-over decides", async () => {
    const deps = await instanceOn(await restored());
    const { id } = history.lapsed;
    const newer = randomUUID();
    await onClaim(deps, claimedBy(newer));
    // the newer payment completes between the carry-over's read of the claim and its append
    const racing: EventStore = Object.create(deps.store);
    let raced = false;
    racing.appendToStreams = async writes => {
      // the carry-over's append that leaves the bill lapsed, having read the claim held
      const releasing = writes.some(w => w.events.some(e => e.type === 'PayableReleased' && e.data.paymentId === id));
      const claiming = writes.some(
        w => w.streamId === payableClaimStream(accountId, totalAmount) && w.events.length > 0,
      );
      if (!raced && releasing && !claiming) {
        raced = true;
        await onClaim(deps, {
          type: 'ReleaseTotal',
          accountId,
          paymentId: newer,
          reason: 'completed',
          now: tenMinutesIn,
        });
      }
      return deps.store.appendToStreams(writes);
    };
    await carryOverLegacyPayables({ ...deps, store: racing });
    expect((await claimOf(deps.store, totalAmount)).map(e => [e.type, e.data.paymentId])).toEqual([
      ['PayableReserved', newer],
      ['PayableReleased', newer],
      ['PayableReserved', id],
    ]);
  });

  it('gives a total the receiving stream reserved twice (the older bill lapsed) to the newer bill', async () => {
    const deps = await instanceOn(await restored());
    const older = reservedBefore(history.lapsed.id) as unknown as Parameters<typeof PayableReserved>[0];
    // what the previous version appended when a lapsed bill's total came round again
    const again = PayableReserved({
      ...older,
      paymentId: randomUUID(),
      reservedAt: new Date(Date.parse(older.expiresAt) + 60_000).toISOString(),
      expiresAt: new Date(Date.parse(older.expiresAt) + 3_600_000).toISOString(),
    });
    await handleCommand(
      deps,
      receivingStream(accountId),
      { ...legacyReservations, decide: () => [again] },
      {},
      reservedAt,
    );
    expect(await carryOverLegacyPayables(deps)).toEqual({ accounts: 1, claimed: 2, leftLapsed: 1 });
    expect((await claimOf(deps.store, older.totalAmount)).map(e => e.data)).toEqual([again.data]);
  });
});
