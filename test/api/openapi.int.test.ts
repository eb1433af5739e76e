import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accountOperations } from '../../src/api/schemas/accounts.ts';
import { authOperations } from '../../src/api/schemas/auth.ts';
import { payOperations } from '../../src/api/schemas/pay.ts';
import { transferOperations } from '../../src/api/schemas/transfers.ts';
import { webhookOperations } from '../../src/api/schemas/webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses?: Record<
    string,
    { content?: Record<string, { schema?: { $ref?: string } }>; headers?: Record<string, unknown> }
  >;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  parameters?: { name: string; in: string }[];
};
type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
  };
};

let service: TestService;
let doc: Document;
beforeAll(async () => {
  service = await startTestService();
  const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode, response.body).toBe(200);
  doc = response.json();
});
afterAll(async () => service?.close());

const allOperations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );

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
      ['POST', '/api/auth/register'],
      ['POST', '/api/auth/login'],
      ['GET', '/api/auth/me'],
      ['GET', '/api/auth/logout'],
      ['DELETE', '/api/auth/me'],
      ['GET', '/api/v1/accounts'],
      ['POST', '/api/v1/accounts'],
      ['GET', '/api/v1/accounts/{id}'],
      ['PATCH', '/api/v1/accounts/{id}'],
      ['DELETE', '/api/v1/accounts/{id}'],
      ['GET', '/api/v1/accounts/{id}/refresh'],
      ['POST', '/api/v1/accounts/{id}/transfer'],
      ['GET', '/api/v1/mutations'],
      ['POST', '/api/v1/payments'],
      ['GET', '/api/v1/payments/status/{paymentId}'],
      ['GET', '/api/v1/gateway'],
    ];
    for (const [method, path] of interfacePaths) operation(method!, path!);
    expect(Object.keys(doc.paths).filter(p => p.length > 1 && p.endsWith('/'))).toEqual([]);
    // the dashboard's pages are for people, not part of the API
    expect(Object.keys(doc.paths).filter(p => /^\/(dashboard|admin|login|register|logout)(\/|$)/.test(p))).toEqual([]);
  });

  it('says how each surface identifies its caller: x-api-key, the session cookie, or nothing', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'apiKey',
      'auditorToken',
      'operatorToken',
      'session',
    ]);
    expect(operation('GET', '/api/audit/ledger/events').security).toEqual([{ auditorToken: [] }]);
    expect(operation('POST', '/api/v1/payments').security).toEqual([{ apiKey: [] }]);
    expect(operation('GET', '/api/auth/me').security).toEqual([{ session: [] }]);
    expect(operation('GET', '/api/admin/gateway/reconciliation').security).toEqual([{ session: [] }]);
    expect(operation('GET', '/metrics').security).toEqual([{ operatorToken: [] }]);
    expect(operation('GET', '/ready').security).toEqual([{}, { operatorToken: [] }]);
    for (const [method, path] of [
      ['POST', '/api/auth/login'],
      ['POST', '/api/auth/register'],
      ['GET', '/pay/{paymentId}'],
      ['POST', '/pay/{paymentId}/method'],
      ['GET', '/health'],
      ['GET', '/openapi.json'],
    ])
      expect(operation(method!, path!).security, `${method} ${path} is public`).toEqual([]);
  });

  it('gives every operation a unique operationId, a summary, one tag and its security', () => {
    const ops = allOperations();
    expect(ops.length).toBeGreaterThan(60);
    const missing = ops
      .filter(({ op }) => !op.operationId || !op.summary || op.tags?.length !== 1 || !Array.isArray(op.security))
      .map(o => o.name);
    expect(missing, 'operations without operationId, summary, tag or security (src/api/schemas/operations.ts)').toEqual(
      [],
    );
    expect(new Set(ops.map(({ op }) => op.operationId)).size).toBe(ops.length);
    expect(operation('GET', '/api/v1/accounts/{id}/refresh').operationId).toBe('getApiV1AccountsByIdRefresh');
  });

  it('names the error envelope once, with the codes of the catalogue, and every operation refers to it for its refusals', () => {
    const codes = doc.components.schemas.ErrorResponse?.properties?.code?.enum;
    expect(codes).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'INVALID_API_KEY', 'METHOD_NOT_ALLOWED', 'PAYMENT_NOT_FOUND']),
    );
    expect(codes).not.toContain('EMAIL_TAKEN'); // the session surface answers {ok:false, message}
    const payments = operation('POST', '/api/v1/payments').responses!;
    for (const status of ['400', '401', '403', '404', '409', '503'].filter(s => s !== '404'))
      expect(payments[status]?.content?.['application/json']?.schema?.$ref, `POST /api/v1/payments ${status}`).toBe(
        '#/components/schemas/ErrorResponse',
      );
    expect(payments['503']?.headers).toHaveProperty('retry-after');
    expect(operation('POST', '/api/auth/login').responses!['401']?.content?.['application/json']?.schema?.$ref).toBe(
      '#/components/schemas/SessionErrorResponse',
    );
    expect(operation('GET', '/api/admin/gateway/calendar').responses).toHaveProperty('403');
    const withoutRefusal = allOperations()
      .filter(({ op }) => !Object.keys(op.responses ?? {}).some(s => /^[45]\d\d$/.test(s)))
      .map(o => o.name);
    expect(withoutRefusal).toEqual([]);
  });

  it('documents successes that are not a 200 JSON body: 201, the logout redirect, CSV and PNG', () => {
    expect(operation('POST', '/api/auth/register').responses).toHaveProperty('201');
    expect(operation('GET', '/api/auth/logout').responses?.['302']?.headers).toHaveProperty('location');
    expect(operation('GET', '/api/admin/gateway/reconciliation.csv').responses?.['200']?.content).toHaveProperty([
      'text/csv',
    ]);
    expect(operation('GET', '/pay/{paymentId}/qris.png').responses?.['200']?.content).toHaveProperty(['image/png']);
  });

  it("describes requests from the routes' own schemas", () => {
    const body = operation('POST', '/api/v1/payments').requestBody?.content['application/json']?.schema;
    expect(body?.properties).toHaveProperty('amount');
    expect(body?.properties).toHaveProperty('walletAccountId');
    expect(operation('GET', '/api/v1/payments/status/{paymentId}').parameters).toContainEqual(
      expect.objectContaining({ name: 'paymentId', in: 'path' }),
    );
    expect(operation('GET', '/api/v1/mutations').parameters?.map(p => p.name)).toEqual(
      expect.arrayContaining(['accountId', 'type']),
    );
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

describe('/openapi.json: requests checked by hand and the successes of accounts, session, transfers, payment page and webhooks', () => {
  type Body = {
    anyOf?: Body[];
    properties?: Record<
      string,
      { enum?: string[]; format?: string; pattern?: string; minLength?: number; contentMediaType?: string }
    >;
    required?: string[];
  };
  const bodyOf = (method: string, path: string, mediaType = 'application/json') => {
    const body = operation(method, path).requestBody?.content[mediaType]?.schema as Body | undefined;
    expect(body, `${method} ${path} documents a ${mediaType} body`).toBeDefined();
    return body!;
  };
  const documented = {
    ...authOperations,
    ...accountOperations,
    ...transferOperations,
    ...payOperations,
    ...webhookOperations,
  };
  const variant = (body: Body, action: string) => body.anyOf?.find(v => v.properties?.action?.enum?.[0] === action);

  it('documents the bodies the handlers check by hand, with their required fields and formats', () => {
    const register = bodyOf('POST', '/api/auth/register');
    expect(register.required).toEqual(['name', 'email', 'password']);
    expect(register.properties?.password?.minLength).toBe(8);
    expect(register.properties?.email?.format).toBe('email');
    expect(bodyOf('POST', '/api/auth/login').required).toEqual(['email', 'password']);

    const accounts = bodyOf('POST', '/api/v1/accounts');
    const create = accounts.anyOf?.find(v => !v.properties?.action);
    expect(create?.required).toEqual(['type', 'providerCode', 'accountName', 'intervalMinutes']);
    expect(variant(accounts, 'wallet-a-send-otp')?.required).toEqual(
      expect.arrayContaining(['action', 'phoneNumber', 'pin']),
    );
    expect(variant(accounts, 'wallet-b-verify-otp')?.required).toEqual(
      expect.arrayContaining(['action', 'sessionId', 'otp', 'pin']),
    );
    expect(variant(accounts, 'wallet-c-verify-second-otp')?.required).toEqual(
      expect.arrayContaining(['action', 'sessionId', 'otp']),
    );

    const transfer = bodyOf('POST', '/api/v1/accounts/{id}/transfer');
    expect(variant(transfer, 'wallet-a-bank-init')?.required).toEqual(
      expect.arrayContaining([
        'action',
        'accountNumber',
        'amount',
        'instId',
        'instLocalName',
        'payMethod',
        'payOption',
      ]),
    );
    expect(variant(transfer, 'wallet-a-bank-create')?.required).toEqual(
      expect.arrayContaining(['action', 'bankAccountIndexNo', 'amount']),
    );
    const qris = bodyOf('POST', '/api/v1/accounts/{id}/transfer', 'multipart/form-data');
    expect(qris.required).toEqual(expect.arrayContaining(['action', 'qrImage']));
    expect(qris.properties?.qrImage?.contentMediaType).toBeDefined();

    expect(bodyOf('POST', '/pay/{paymentId}/method').properties?.type?.enum).toContain('QRIS-DYNAMIC');
    for (const path of ['/api/v1/webhooks', '/api/dashboard/webhooks']) {
      const url = bodyOf('POST', path).properties?.url;
      expect(url, `${path}: url is an http(s) URL`).toMatchObject({ format: 'uri', pattern: '^https?://' });
    }
  });

  it('names the schema of every success these routes answer, as a component with an example', () => {
    const names = Object.entries(documented).flatMap(([key, { responses }]) => {
      const [method, path] = key.split(' ');
      return Object.keys(responses ?? {}).map(status => {
        const ref = operation(method!, path!).responses?.[status]?.content?.['application/json']?.schema?.$ref;
        expect(ref ?? 'no $ref', `${key} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
        const name = ref!.split('/').pop()!;
        expect(doc.components.schemas, `${key} ${status}`).toHaveProperty([name, 'examples']);
        return name;
      });
    });
    expect(names).toEqual(
      expect.arrayContaining([
        'RegisterResponse',
        'SessionUser',
        'AccountStepResponse',
        'AccountListResponse',
        'TransferResponse',
        'PaymentPageStatusResponse',
        'WebhookDeliveryResponse',
      ]),
    );
    expect(doc.components.schemas).toHaveProperty(['Account', 'properties', 'isActive']);
  });

  it('gives examples that the schemas themselves accept', () => {
    const named = Object.values(documented).flatMap(({ responses }) => Object.values(responses ?? {})) as z.ZodType[];
    for (const id of ['Account', 'Pagination', 'WebhookEndpoint', 'WebhookDelivery', 'PaymentPageStatus'])
      named.push(z.globalRegistry._idmap.get(id)! as z.ZodType);
    for (const schema of named) {
      const { id, examples } = z.globalRegistry.get(schema) as { id: string; examples: unknown[] };
      for (const example of examples) expect(schema.safeParse(example).error, `the example of ${id}`).toBeUndefined();
    }
  });
});

describe('/openapi.json: payments, mutations, the gateway and API keys', () => {
  type Envelope = { properties?: Record<string, { $ref?: string; items?: { $ref?: string } }>; required?: string[] };
  const envelopeOf = (method: string, path: string, status = '200') => {
    const ref = operation(method, path).responses?.[status]?.content?.['application/json']?.schema?.$ref;
    expect(ref, `${method} ${path} ${status}: a named envelope`).toMatch(/^#\/components\/schemas\/\w+Response$/);
    return doc.components.schemas[ref!.split('/').pop()!] as Envelope;
  };
  const dataRef = (method: string, path: string, status = '200') => {
    const data = envelopeOf(method, path, status)?.properties?.data;
    return data?.$ref ?? (data?.items?.$ref ? `[${data.items.$ref}]` : undefined);
  };
  const component = (name: string) => `#/components/schemas/${name}`;

  it('documents each 2xx body as the envelope around a named component', () => {
    const expected: [string, string, string, string][] = [
      ['POST', '/api/v1/payments', '200', component('Payment')],
      ['GET', '/api/v1/payments/status/{paymentId}', '200', component('Payment')],
      ['GET', '/api/v1/mutations', '200', `[${component('Mutation')}]`],
      ['GET', '/api/v1/gateway', '200', component('GatewayOverview')],
      ['GET', '/api/v1/gateway/transactions', '200', `[${component('StatementEntry')}]`],
      ['GET', '/api/dashboard/gateway', '200', component('DashboardGateway')],
      ['POST', '/api/dashboard/gateway/access-request', '201', component('GatewayAccess')],
      ['PATCH', '/api/dashboard/gateway/settings', '200', component('GatewayAccess')],
      ['POST', '/api/dashboard/gateway/withdrawals', '201', component('RequestedWithdrawal')],
      ['GET', '/api/dashboard/gateway/withdrawals', '200', `[${component('Withdrawal')}]`],
      ['GET', '/api/dashboard/gateway/withdrawals/{id}', '200', component('Withdrawal')],
      ['GET', '/api/admin/gateway/withdrawals', '200', `[${component('AdminWithdrawal')}]`],
      ['POST', '/api/admin/gateway/withdrawals/{id}/pay', '200', component('AdminWithdrawal')],
      ['POST', '/api/admin/gateway/withdrawals/{id}/paid', '200', component('AdminWithdrawal')],
      ['POST', '/api/admin/gateway/withdrawals/{id}/reject', '200', component('AdminWithdrawal')],
      ['GET', '/api/admin/gateway/suspense', '200', `[${component('SuspenseCredit')}]`],
      ['POST', '/api/admin/gateway/suspense/{id}/allocate', '200', component('SuspenseCredit')],
      ['POST', '/api/admin/gateway/suspense/{id}/refund', '200', component('SuspenseCredit')],
      ['GET', '/api/admin/gateway/calendar', '200', component('HolidayCalendar')],
      ['PUT', '/api/admin/gateway/calendar/{year}', '200', component('HolidayCalendar')],
      ['POST', '/api/dashboard/api-keys', '201', component('NewApiKey')],
      ['GET', '/api/dashboard/api-keys', '200', `[${component('ApiKey')}]`],
      ['DELETE', '/api/dashboard/api-keys/{id}', '200', component('RevokedApiKey')],
    ];
    for (const [method, path, status, ref] of expected)
      expect(dataRef(method, path, status), `${method} ${path} ${status}`).toBe(ref);
    expect(envelopeOf('GET', '/api/v1/mutations').required).toContain('pagination');
    expect(envelopeOf('GET', '/api/v1/gateway/transactions').required).toContain('pagination');
    for (const name of new Set(
      expected.map(([, , , ref]) =>
        ref
          .replace(/^\[|\]$/g, '')
          .split('/')
          .pop()!,
      ),
    ))
      expect(
        (doc.components.schemas[name] as { examples?: unknown[] }).examples,
        `${name} has an example`,
      ).toHaveLength(1);
    // the CSV of the reconciliation stays documented
    expect(operation('GET', '/api/admin/gateway/reconciliation').responses?.['200']?.content).toHaveProperty([
      'text/csv',
    ]);
  });

  it('documents the payment request as the service checks it: http(s) redirectUrl, the payment types, uuid or GATEWAY', () => {
    type Property = {
      format?: string;
      pattern?: string;
      enum?: string[];
      anyOf?: { enum?: string[]; format?: string }[];
    };
    const body = operation('POST', '/api/v1/payments').requestBody?.content['application/json']?.schema as {
      properties: Record<string, Property>;
      required: string[];
    };
    expect(body.required).toEqual(expect.arrayContaining(['amount', 'walletAccountId', 'redirectUrl', 'orderId']));
    expect(body.properties.redirectUrl).toMatchObject({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });
    expect(body.properties.type?.enum).toEqual(['QRIS-DYNAMIC', 'DIRECT', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3']);
    expect(body.properties.walletAccountId?.anyOf).toEqual([
      expect.objectContaining({ enum: ['GATEWAY'] }),
      expect.objectContaining({ format: 'uuid' }),
    ]);
    expect(operation('POST', '/api/v1/payments').parameters).toContainEqual(
      expect.objectContaining({ name: 'idempotency-key', in: 'header' }),
    );
  });

  it('documents the other bodies and parameters checked by hand: the website URL, calendar and reconciliation dates', () => {
    type Schema = { properties: Record<string, { anyOf?: { format?: string }[]; items?: Schema }> };
    const access = operation('POST', '/api/dashboard/gateway/access-request').requestBody?.content['application/json']
      ?.schema as Schema;
    expect(access.properties.website?.anyOf?.[0]).toMatchObject({ format: 'uri' });
    const calendar = operation('PUT', '/api/admin/gateway/calendar/{year}').requestBody?.content['application/json']
      ?.schema as Schema;
    expect(calendar.properties.days?.items?.properties.date).toMatchObject({ format: 'date' });
    for (const path of ['/api/admin/gateway/reconciliation', '/api/admin/gateway/reconciliation.csv']) {
      const parameters = operation('GET', path).parameters as unknown as {
        name: string;
        schema: { format?: string; enum?: string[] };
      }[];
      expect(parameters.find(p => p.name === 'from')?.schema).toMatchObject({ format: 'date' });
      expect(parameters.find(p => p.name === 'table')?.schema.enum).toContain('merchants');
    }
  });
});
