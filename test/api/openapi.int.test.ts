import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

type Operation = { tags?: string[]; security?: Record<string, string[]>[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> }; parameters?: { name: string; in: string }[] };
type Document = { openapi: string; info: { version: string }; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

let service: TestService;
let doc: Document;
beforeAll(async () => {
  service = await startTestService();
  const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode, response.body).toBe(200);
  doc = response.json();
});
afterAll(async () => service?.close());

const operation = (method: string, path: string) => {
  const op = doc.paths[path]?.[method.toLowerCase()];
  expect(op, `${method} ${path} in /openapi.json`).toBeDefined();
  return op!;
};

describe('/openapi.json', () => {
  it('is OpenAPI 3.1 with every path of the interface, at the path the interface names', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    const interfacePaths = [
      ['POST', '/api/auth/register'], ['POST', '/api/auth/login'], ['GET', '/api/auth/me'], ['GET', '/api/auth/logout'], ['DELETE', '/api/auth/me'],
      ['GET', '/api/v1/accounts'], ['POST', '/api/v1/accounts'], ['GET', '/api/v1/accounts/{id}'], ['PATCH', '/api/v1/accounts/{id}'],
      ['DELETE', '/api/v1/accounts/{id}'], ['GET', '/api/v1/accounts/{id}/refresh'], ['POST', '/api/v1/accounts/{id}/transfer'],
      ['GET', '/api/v1/mutations'], ['POST', '/api/v1/payments'], ['GET', '/api/v1/payments/status/{paymentId}'], ['GET', '/api/v1/gateway'],
    ];
    for (const [method, path] of interfacePaths) operation(method!, path!);
    expect(Object.keys(doc.paths).filter(p => p.length > 1 && p.endsWith('/'))).toEqual([]);
    // the dashboard's pages are for people, not part of the API
    expect(Object.keys(doc.paths).filter(p => /^\/(dashboard|admin|login|register|logout)(\/|$)/.test(p))).toEqual([]);
  });

  it('says how each surface identifies its caller: x-api-key, the session cookie, or nothing', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'session']);
    expect(operation('POST', '/api/v1/payments').security).toEqual([{ apiKey: [] }]);
    expect(operation('GET', '/api/auth/me').security).toEqual([{ session: [] }]);
    expect(operation('GET', '/api/admin/gateway/reconciliation').security).toEqual([{ session: [] }]);
    expect(operation('POST', '/api/auth/login').security).toBeUndefined();
    expect(operation('POST', '/api/auth/register').security).toBeUndefined();
    expect(operation('GET', '/pay/{paymentId}').security).toBeUndefined();
  });

  it("describes requests from the routes' own schemas", () => {
    const body = operation('POST', '/api/v1/payments').requestBody?.content['application/json']?.schema;
    expect(body?.properties).toHaveProperty('amount');
    expect(body?.properties).toHaveProperty('walletAccountId');
    expect(operation('GET', '/api/v1/payments/status/{paymentId}').parameters).toContainEqual(expect.objectContaining({ name: 'paymentId', in: 'path' }));
    expect(operation('GET', '/api/v1/mutations').parameters?.map(p => p.name)).toEqual(expect.arrayContaining(['accountId', 'type']));
  });
});

describe('/docs', () => {
  it('serves the reference page and its assets from the service itself (no CDN)', async () => {
    const page = await service.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(m => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect(asset, 'no asset from another host').not.toMatch(/^(https?:)?\/\//);
    const script = assets.find(a => a.endsWith('.js'))!;
    const loaded = await service.app.inject({ method: 'GET', url: new URL(script, 'http://service/docs/').pathname });
    expect(loaded.statusCode).toBe(200);
  });
});
