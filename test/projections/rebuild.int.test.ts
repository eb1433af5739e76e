import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { projections } from '../../src/projections/all.ts';
import { rebuildProjection } from '../../src/projections/runner.ts';
import { createKey, registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const p of projections)
    for (const table of p.tables) tables[table] = (await query(service.pool, 'SnapshotTable', `select * from ${table} order by 1`)).rows;
  return tables;
}

describe('read models', () => {
  it('are rebuilt exactly from history after being dropped', async () => {
    for (let i = 0; i < 3; i++) {
      const user = await registerUser(service);
      const key = await createKey(service, user.cookie);
      await service.app.inject({ method: 'GET', url: '/api/v1/anything', headers: { 'x-api-key': key.key } });
      service.clock.advance(10 * 60_000);
      await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: user.cookie } });
      if (i === 1) await service.app.inject({ method: 'DELETE', url: `/api/dashboard/api-keys/${key.id}`, cookies: { svc_token: user.cookie } });
      if (i === 2) await service.app.inject({ method: 'GET', url: '/api/auth/logout', cookies: { svc_token: user.cookie } });
    }
    await service.projections.waitFor(await service.store.headPosition());
    const before = await snapshot();
    expect(before.users).toHaveLength(3);
    expect(before.api_keys).toHaveLength(3);

    await service.projections.stop();
    for (const p of projections) await query(service.pool, 'DropForTest', p.tables.map(t => `drop table ${t};`).join(''));
    for (const p of projections) await rebuildProjection(service, p);
    expect(await snapshot()).toEqual(before);
    await service.projections.start();
  });
});
