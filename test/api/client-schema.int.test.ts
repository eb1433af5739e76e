import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaSource } from '../../clients/typescript/generate.ts';
import { startTestService, type TestService } from '../support/service.ts';

const committed = path.resolve(import.meta.dirname, '../../clients/typescript/src/schema.d.ts');

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

describe('clients/typescript', () => {
  it('has the types of the document the service serves: a changed document without `npm run client:generate` fails here', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode, response.body).toBe(200);
    const regenerated = await schemaSource(response.json() as object);
    // a line-by-line comparison names the first operation that drifted
    expect(
      readFileSync(committed, 'utf8').split('\n'),
      'clients/typescript/src/schema.d.ts is stale: run npm run client:generate',
    ).toEqual(regenerated.split('\n'));
  });
});
