import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncAccount } from '../../src/commands/sync-account.ts';
import { keyHolder } from '../support/http.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const minutes = (n: number) => n * 60_000;
const points = async (caller: Awaited<ReturnType<typeof keyHolder>>) =>
  (await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: caller.cookie } })).json()
    .points as number;

describe('scheduled sync', () => {
  it('runs on the clock: creation pays a day of syncs, then every interval a sync at a point each, new transactions once', async () => {
    const caller = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const atStart = await points(caller);
    const link = await caller.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-BNI',
      accountName: 'Jadwal',
      intervalMinutes: 10,
      accountNumber: '5500000001',
      username: 'jadwal',
      password: 'rahasia',
    });
    const id = link.json().accountId as string;
    const account = async () => (await caller.call('GET', `/api/v1/accounts/${id}`)).json().data;
    const before = await points(caller);
    expect(before).toBe(atStart - 144); // ceil(1440 / 10): the syncs of its first 24 hours

    await service.accountSync.tick();
    const first = await eventually(async () => ((await account()).lastSync ? account() : null));
    expect(await points(caller)).toBe(before);
    expect(first.nextSyncAt).toBe(new Date(service.clock.now().getTime() + minutes(10)).toISOString());

    // not due yet: nothing happens
    service.clock.advance(minutes(9));
    expect(await service.accountSync.tick()).toBe(0);

    service.clock.advance(minutes(1));
    await sandbox.addTransaction({
      providerCode: 'BANK-BNI',
      accountRef: '5500000001',
      type: 'CREDIT',
      amount: 42_000,
      senderName: 'JADWAL',
    });
    await service.accountSync.tick();
    await eventually(async () => (await account()).lastSync === service.clock.now().toISOString());
    expect(await points(caller)).toBe(before);
    const mutations = (await caller.call('GET', `/api/v1/mutations?accountId=${id}&limit=100`)).json().data as {
      senderName: string;
    }[];
    expect(mutations.filter(m => m.senderName === 'JADWAL')).toHaveLength(1);

    // past its first day: each scheduled sync costs a point
    service.clock.advance(minutes(24 * 60));
    await service.accountSync.tick();
    await eventually(async () => (await account()).lastSync === service.clock.now().toISOString());
    await eventually(async () => (await points(caller)) === before - 1);
  });

  it('records a slot once when two jobs for it run at the same time, and charges one point', async () => {
    const caller = await keyHolder(service);
    const link = await caller.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-BNI',
      accountName: 'Kembar',
      intervalMinutes: 60,
      accountNumber: '5500000002',
      username: 'kembar',
      password: 'rahasia',
    });
    const id = link.json().accountId as string;
    service.clock.advance(minutes(24 * 60)); // past the day its creation paid for
    const before = await points(caller);
    const slot = service.clock.now().toISOString();
    const outcomes = await Promise.all([
      syncAccount(service.deps, id, slot),
      syncAccount(service.deps, id, slot),
      syncAccount(service.deps, id, slot),
    ]);
    expect(outcomes.filter(o => o === 'synced')).toHaveLength(1);
    const events = await service.store.readStream(`account-${id}`);
    const recorded = events.filter(e => e.type === 'MutationRecorded').map(e => e.data.providerTransactionId);
    expect(new Set(recorded).size).toBe(recorded.length);
    expect(events.filter(e => e.type === 'AccountSynced')).toHaveLength(1);
    await service.projections.waitFor(await service.store.headPosition());
    expect(await points(caller)).toBe(before - 1);
  });

  it('marks an account inactive when its provider session expires and cannot be renewed, pauses it, and refuses refresh with 400', async () => {
    const caller = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const link = await caller.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-MANDIRI',
      accountName: 'Sesi',
      intervalMinutes: 5,
      accountNumber: '5500000009',
      username: 'sesi',
      password: 'rahasia',
    });
    const id = link.json().accountId as string;
    // the session ends and the bank now refuses the stored credentials
    await sandbox.faults({ providerCode: 'BANK-MANDIRI', expireSessions: true, refuseLogin: true });
    service.clock.advance(minutes(5));
    await service.accountSync.tick();
    await eventually(async () => (await caller.call('GET', `/api/v1/accounts/${id}`)).json().data.isActive === false);
    await sandbox.clearFaults();
    const refresh = await caller.call('GET', `/api/v1/accounts/${id}/refresh`);
    expect(refresh.statusCode).toBe(400);
    expect(refresh.json().code).toBe('ACCOUNT_INACTIVE');
    // paused: later ticks do not pick it up
    service.clock.advance(minutes(30));
    const due = await service.accountSync.tick();
    const afterTick = await service.store.readStream(`account-${id}`);
    expect(afterTick.filter(e => e.type === 'AccountSynced')).toHaveLength(0);
    expect(due).toBeGreaterThanOrEqual(0);
  });

  it('retries a failed sync with backoff, keeping the schedule', async () => {
    const caller = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const link = await caller.call('POST', '/api/v1/accounts', {
      type: 'bank',
      providerCode: 'BANK-BRI',
      accountName: 'Gagal',
      intervalMinutes: 60,
      accountNumber: '5500000003',
      username: 'gagal',
      password: 'rahasia',
    });
    const id = link.json().accountId as string;
    const account = async () => (await caller.call('GET', `/api/v1/accounts/${id}`)).json().data;
    await sandbox.faults({ providerCode: 'BANK-BRI', outage: true });
    try {
      const slot = service.clock.now().toISOString();
      expect(await syncAccount(service.deps, id, slot)).toBe('failed');
      await service.projections.waitFor(await service.store.headPosition());
      expect((await account()).nextSyncAt).toBe(new Date(service.clock.now().getTime() + minutes(1)).toISOString());
      expect(await syncAccount(service.deps, id, slot)).toBe('failed');
      await service.projections.waitFor(await service.store.headPosition());
      expect((await account()).nextSyncAt).toBe(new Date(service.clock.now().getTime() + minutes(2)).toISOString());
    } finally {
      await sandbox.clearFaults();
    }
    service.clock.advance(minutes(2));
    await service.accountSync.tick();
    await eventually(async () => ((await account()).lastSync ? true : null));
    expect((await account()).isActive).toBe(true);
  });
});
