import { afterEach, describe, expect, it } from 'vitest';
import { digestSigner } from '../../src/audit/digest-signer.ts';
import { listDigests } from '../../src/audit/digests.ts';
import { verifyDigests } from '../../src/audit/verify-digests.ts';
import { inTransaction, query } from '../../src/db/pool.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { registerUser } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A statement run as an insider with the superuser's connection: the append-only triggers switched off first. */
const tamper = (s: TestService, sql: string, params: unknown[] = []) =>
  inTransaction(s.pool, async tx => {
    await query(tx, 'ReplicaRole', 'set local session_replication_role = replica');
    await query(tx, 'Tamper', sql, params);
  });

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** A service whose log has two days: users registered on Monday 5 January 2026 (WIB), one more on Tuesday. */
async function twoDays() {
  service = await startTestService();
  const s = service;
  s.clock.set('2026-01-05T03:00:00.000Z'); // Monday 10:00 WIB
  for (let i = 0; i < 3; i++) await registerUser(s);
  s.clock.set('2026-01-06T03:00:00.000Z'); // Tuesday
  await registerUser(s);
  expect(await s.ledger.waitFor(await s.store.headPosition(), 10_000)).toBe(true);
  const publicKey = digestSigner(s.config.digestSigningKey!).publicKey;
  const verify = (key = publicKey) => verifyDigests(s.deps, key);
  return { s, verify };
}

const monday = '2026-01-05';

describe('daily digests', () => {
  it('sign a day once a later day begins, and verify against the log', async () => {
    const { s, verify } = await twoDays();
    const digests = await listDigests(s.pool);
    expect(digests.map(d => [d.day, d.signature === null])).toEqual([
      [monday, false],
      ['2026-01-06', true],
    ]);
    const report = await verify();
    expect(report.clean).toBe(true);
    expect(report.days.map(d => [d.day, d.status])).toEqual([
      [monday, 'ok'],
      ['2026-01-06', 'open'],
    ]);
    expect(report.days[0]!.root).toBe(digests[0]!.root);
    expect(report.days[0]!.events).toBe(digests[0]!.events);
  });

  it('find an event changed behind the service', async () => {
    const { s, verify } = await twoDays();
    await tamper(
      s,
      `update es_events set data = '{"name":"someone else"}' where position = (select min(position) from es_events)`,
    );
    const report = await verify();
    expect(report.clean).toBe(false);
    expect(report.days[0]).toMatchObject({
      day: monday,
      status: 'tampered',
      problems: [expect.stringContaining('changed')],
    });
  });

  it('find an event removed', async () => {
    const { s, verify } = await twoDays();
    await tamper(s, 'delete from es_events where position = (select min(position) from es_events)');
    expect((await verify()).days[0]).toMatchObject({
      day: monday,
      status: 'tampered',
      problems: [expect.stringContaining('removed')],
    });
  });

  it('find an event inserted into a past day', async () => {
    const { s, verify } = await twoDays();
    // in the log's order right after Monday's first event (its transaction id), as a forger would place it
    const first = (
      await query<{ transaction_id: string }>(
        s.pool,
        'T',
        'select transaction_id::text from es_events order by transaction_id, position limit 1',
      )
    ).rows[0]!;
    await tamper(
      s,
      `insert into es_events (transaction_id, stream_id, revision, event_id, type, version, data, metadata)
       values ($1::xid8, $2, 0, $3, 'UserRegistered', 1, '{}', $4)`,
      [
        first.transaction_id,
        `user-${nextUuid()}`,
        nextUuid(),
        JSON.stringify({ occurredAt: '2026-01-05T04:00:00.000Z', actor: 'intruder' }),
      ],
    );
    expect((await verify()).days[0]).toMatchObject({
      day: monday,
      status: 'tampered',
      problems: [expect.stringContaining('inserted')],
    });
  });

  it("find a digest rewritten to match changed events, which only the service's key could sign", async () => {
    const { s, verify } = await twoDays();
    await tamper(
      s,
      `update es_events set data = '{"name":"someone else"}' where position = (select min(position) from es_events)`,
    );
    const recomputed = (await verify()).days[0]!;
    await tamper(s, 'update daily_digests set root = $1 where day = $2', [recomputed.root, monday]);
    expect((await verify()).days[0]).toMatchObject({
      status: 'tampered',
      problems: [expect.stringContaining('signature does not verify')],
    });
  });

  it('refuse the signatures with another public key', async () => {
    const { verify } = await twoDays();
    const other = digestSigner(
      (await import('node:crypto'))
        .generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'der', type: 'pkcs8' })
        .toString('base64'),
    );
    expect((await verify(other.publicKey)).days[0]).toMatchObject({
      status: 'tampered',
      problems: [expect.stringContaining('signature does not verify')],
    });
  });

  it('are shown to an admin with the public key that checks them, and to nobody else', async () => {
    const { s, verify } = await twoDays();
    const admin = await signedInAdmin(s);
    const shown = await admin.session('GET', '/api/admin/digests');
    expect(shown.statusCode, shown.body).toBe(200);
    const data = shown.json().data as {
      keyId: string;
      publicKey: string;
      days: { day: string; root: string; signature: string | null }[];
    };
    expect(data.publicKey).toBe(digestSigner(s.config.digestSigningKey!).publicKey);
    expect(data.days[0]).toMatchObject({
      day: monday,
      root: (await verify()).days[0]!.root,
      signature: expect.any(String),
    });
    expect((await verify(data.publicKey)).clean).toBe(true);
    const user = await registerUser(s);
    expect(
      (await s.app.inject({ method: 'GET', url: '/api/admin/digests', cookies: { svc_token: user.cookie } }))
        .statusCode,
    ).toBe(403);
    expect((await s.app.inject({ method: 'GET', url: '/api/admin/digests' })).statusCode).toBe(401);
  });
});
