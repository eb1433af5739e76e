import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncAccount } from '../../src/commands/sync-account.ts';
import { accountWebhooksSaga } from '../../src/sagas/account-webhooks.ts';
import { signedHeaders } from '../../src/security/webhook-signature.ts';
import { keyHolder } from '../support/http.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { shortSchedule, startReceiver } from './support.ts';

// What the dashboard shows of linked accounts, sent to the endpoints that ask: mutation.created (filtered by account
// and type), account.needs_relogin and account.sync_failed; signed like every webhook, published once.

let service: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: shortSchedule });
  receiver = await startReceiver();
});
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Sent = { id: string; type: string; createdAt: string; data: Record<string, unknown> };

let accountSeed = 0;
async function linkBank(caller: Caller, providerCode: string) {
  const accountNumber = `77${String(process.pid % 1000).padStart(3, '0')}${String(++accountSeed).padStart(5, '0')}`;
  const linked = await caller.call('POST', '/api/v1/accounts', {
    type: 'bank',
    providerCode,
    accountName: `Rekening ${accountSeed}`,
    intervalMinutes: 10,
    accountNumber,
    username: `user${accountSeed}`,
    password: 'rahasia',
  });
  expect(linked.statusCode, linked.body).toBe(200);
  return { id: linked.json().accountId as string, accountNumber, providerCode };
}
async function endpoint(caller: Caller, name: string, body: Record<string, unknown>) {
  const added = await caller.call('POST', '/api/v1/webhooks', { url: `${receiver.url}-${name}`, ...body });
  expect(added.statusCode, added.body).toBe(200);
  return added.json().data as { id: string; secret: string; events: string[]; filters: unknown };
}
const delivered = async (caller: Caller, endpointId: string) =>
  (
    (await caller.call('GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`)).json().data as {
      eventId: string;
      type: string;
      status: string;
    }[]
  ).filter(d => d.type !== 'webhook.test');
/** What the receiver got of the owner's events of `type`, by event id. */
const received = (type: string) =>
  receiver.received
    .map(r => ({ headers: r.headers, body: r.body, sent: JSON.parse(r.body) as Sent }))
    .filter(r => r.sent.type === type);

describe('mutation.created', () => {
  it('is sent for each synced mutation to the endpoints that ask, as the mutations list shows it, their filters honoured, signed', async () => {
    const owner = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const a = await linkBank(owner, 'BANK-BNI');
    const b = await linkBank(owner, 'BANK-BRI');
    const all = await endpoint(owner, 'all-mutations', { events: ['mutation.created'] });
    const aCredits = await endpoint(owner, 'a-credits', {
      events: ['mutation.created'],
      filters: { accountIds: [a.id], mutationTypes: ['CREDIT'] },
    });
    const debits = await endpoint(owner, 'debits', {
      events: ['mutation.created'],
      filters: { mutationTypes: ['DEBIT'] },
    });
    const byOmission = await endpoint(owner, 'default-kinds', {});
    expect(aCredits.filters).toEqual({ accountIds: [a.id], mutationTypes: ['CREDIT'] });
    expect(byOmission.events).not.toContain('mutation.created');
    const listed = (await owner.call('GET', '/api/v1/webhooks')).json().data as { id: string; filters: unknown }[];
    expect(listed.find(e => e.id === aCredits.id)!.filters).toEqual(aCredits.filters);
    expect(listed.find(e => e.id === all.id)!.filters).toBeNull();

    const add = (account: typeof a, type: 'CREDIT' | 'DEBIT', amount: number) =>
      sandbox.addTransaction({ providerCode: account.providerCode, accountRef: account.accountNumber, type, amount });
    await add(a, 'CREDIT', 42_017);
    await add(a, 'DEBIT', 10_013);
    await add(b, 'CREDIT', 5_011);
    for (const account of [a, b])
      expect((await owner.call('GET', `/api/v1/accounts/${account.id}/refresh`)).statusCode).toBe(200);

    // the first sync records what the provider shows of the accounts' recent history too: each is a new mutation
    type Mutation = { id: string; accountId: string; type: string; amount: number };
    await eventually(async () => {
      const rows = (await owner.call('GET', '/api/v1/mutations?limit=100')).json().data as Mutation[];
      return [42_017, 10_013, 5_011].every(n => rows.some(m => m.amount === n));
    });
    await service.projections.waitFor(await service.store.headPosition());
    const mutations = await eventually(async () => {
      const rows = (await owner.call('GET', '/api/v1/mutations?limit=100')).json().data as Mutation[];
      return [42_017, 10_013, 5_011].every(n => rows.some(m => m.amount === n)) ? rows : null;
    });
    const expected = (keep: (m: Mutation) => boolean) =>
      mutations
        .filter(keep)
        .map(m => m.id)
        .sort();
    const sentTo = async (endpointId: string) => {
      const ids = new Set((await delivered(owner, endpointId)).map(d => d.eventId));
      // the receiver is every endpoint's: an event sent to two endpoints came twice
      const sent = received('mutation.created').filter(r => ids.has(r.sent.id));
      return [...new Set(sent.map(r => r.sent.data.id as string))].sort();
    };
    const settled = async (endpointId: string, count: number) =>
      eventually(async () => (await sentTo(endpointId)).length >= count);
    await settled(all.id, mutations.length);
    expect(await sentTo(all.id)).toEqual(expected(() => true));
    const aCreditIds = expected(m => m.accountId === a.id && m.type === 'CREDIT');
    await settled(aCredits.id, aCreditIds.length);
    expect(await sentTo(aCredits.id)).toEqual(aCreditIds);
    const debitIds = expected(m => m.type === 'DEBIT');
    await settled(debits.id, debitIds.length);
    expect(await sentTo(debits.id)).toEqual(debitIds);
    await service.sagas.waitFor(await service.store.headPosition());
    expect(await delivered(owner, byOmission.id)).toEqual([]);

    // the payload is the mutation as GET /api/v1/mutations shows it, signed with the endpoint's secret
    const toA = received('mutation.created').find(r => r.sent.data.amount === 42_017)!;
    expect(mutations).toContainEqual(toA.sent.data);
    const at = new Date(Number(toA.headers['webhook-timestamp']) * 1000);
    const signedBy = (s: string) => signedHeaders(s, toA.sent.id, at, toA.body)['webhook-signature'];
    expect([all.secret, aCredits.secret].map(signedBy)).toContain(toA.headers['webhook-signature']);

    // the reaction handed the same events again (a replay) publishes nothing twice
    const saga = accountWebhooksSaga(service.deps);
    for (const recorded of await service.store.readStream(`account-${a.id}`))
      if (recorded.type === 'MutationRecorded') await saga.handle(recorded as never);
    expect(await delivered(owner, all.id)).toHaveLength(mutations.length);
  });

  it('refuses filters it cannot read (400): a misspelt filter, an account id that is no uuid, an empty list', async () => {
    const owner = await keyHolder(service);
    const refused = async (filters: unknown) => {
      const answer = await owner.call('POST', '/api/v1/webhooks', {
        url: `${receiver.url}-refused`,
        events: ['mutation.created'],
        filters,
      });
      expect(answer.statusCode, JSON.stringify(filters)).toBe(400);
    };
    await refused({ accountId: crypto.randomUUID() });
    await refused({ accountIds: ['x'] });
    await refused({ accountIds: [] });
    await refused({ mutationTypes: ['REFUND'] });
    expect((await owner.call('GET', '/api/v1/webhooks')).json().data).toEqual([]);
  });
});

describe('account.needs_relogin and account.sync_failed', () => {
  it('tells the endpoints that ask when the provider asks for a relogin, about the account, once', async () => {
    const owner = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const stopped = await linkBank(owner, 'BANK-MANDIRI');
    const elsewhere = await linkBank(owner, 'BANK-BCA');
    const asked = await endpoint(owner, 'relogin', { events: ['account.needs_relogin', 'account.sync_failed'] });
    const otherAccount = await endpoint(owner, 'relogin-other', {
      events: ['account.needs_relogin'],
      filters: { accountIds: [elsewhere.id] },
    });
    const byOmission = await endpoint(owner, 'relogin-default', {});
    await sandbox.faults({ providerCode: 'BANK-MANDIRI', expireSessions: true, refuseLogin: true });
    try {
      expect(await syncAccount(service.deps, stopped.id, null, { waitForReadModels: true })).toBe('session-expired');
    } finally {
      await sandbox.clearFaults();
    }
    await eventually(async () => (await delivered(owner, asked.id)).some(d => d.status === 'succeeded'));
    const sent = received('account.needs_relogin').filter(r => r.sent.data.accountId === stopped.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.sent.data).toEqual({
      accountId: stopped.id,
      accountType: 'bank',
      providerCode: 'BANK-MANDIRI',
      reason: 'session-expired',
      at: sent[0]!.sent.createdAt,
    });
    await service.sagas.waitFor(await service.store.headPosition());
    expect(await delivered(owner, otherAccount.id)).toEqual([]);
    expect(await delivered(owner, byOmission.id)).toEqual([]);
    expect((await owner.call('GET', `/api/v1/accounts/${stopped.id}`)).json().data.isActive).toBe(false);
  });

  it('tells them once a run of failed syncs when syncs keep failing, not at every retry', async () => {
    const owner = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const failing = await linkBank(owner, 'BANK-BRI');
    const asked = await endpoint(owner, 'sync-failed', { events: ['account.sync_failed'] });
    await sandbox.faults({ providerCode: 'BANK-BRI', outage: true });
    try {
      for (let n = 1; n <= 5; n++) expect(await syncAccount(service.deps, failing.id, null)).toBe('failed');
    } finally {
      await sandbox.clearFaults();
    }
    await eventually(async () => (await delivered(owner, asked.id)).some(d => d.status === 'succeeded'));
    await service.sagas.waitFor(await service.store.headPosition());
    expect(await delivered(owner, asked.id)).toHaveLength(1);
    const sent = received('account.sync_failed').filter(r => r.sent.data.accountId === failing.id);
    expect(sent.map(s => s.sent.data)).toEqual([
      expect.objectContaining({ accountId: failing.id, providerCode: 'BANK-BRI', consecutiveFailures: 3 }),
    ]);
  });
});
