import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAdmin, type Admin } from '../support/gateway.ts';
import { limitsOutOfTheWay, percentEncoded, hostileText } from '../support/hostile-text.ts';
import { keyHolder, registerUser } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { valueOf, type JsonSchema, type Known } from '../support/schema-arbitrary.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The project's own contract fuzzer: for every operation of the OpenAPI document the service serves, fast-check
 * builds requests from what the document says (path ids real and made up, query parameters, JSON bodies valid or with a
 * field wrong or missing, credentials given or not) and sends them. Every answer is checked against the document by
 * the inject wrapper (test/support/contract-inject.ts): a status, media type, header or body the document does not
 * describe fails, and so does any 5xx.
 */
type Parameter = { name: string; in: string; required?: boolean; schema?: JsonSchema };
type Operation = {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  security: Record<string, string[]>[];
};
type Request = { method: string; url: string; headers: Record<string, string>; payload?: string; anonymous: boolean };

// ending the fuzzer's own sessions would only make every later request 401 (those operations have their own tests);
// a pending payment's event stream ends only with the payment, which an inject waits for (read over a connection in
// test/api/payment-stream.int.test.ts)
const skipped = new Set(['DELETE /api/auth/me', 'GET /api/auth/logout', 'GET /pay/{paymentId}/events']);

let service: TestService;
let document: Record<string, unknown>;
let caller: Awaited<ReturnType<typeof keyHolder>>;
let merchant: Awaited<ReturnType<typeof registerUser>>;
let admin: Admin;
const realIds: string[] = [];
let known: Known = {};

beforeAll(async () => {
  service = await startTestService({ ...limitsOutOfTheWay, WEBHOOK_ALLOW_PRIVATE: 'true' });
  caller = await keyHolder(service);
  merchant = await registerUser(service);
  admin = await signedInAdmin(service);
  const { accountId } = await linkServiceWallet(caller);
  const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
  const hook = await caller.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/in' });
  if (hook.statusCode !== 200) throw new Error(`webhook: ${hook.statusCode} ${hook.body}`);
  realIds.push(accountId, payment.id, hook.json().data.id, caller.id, merchant.id);
  // what a client that read the answers before would send: the ids it was given, amounts the service takes
  known = {
    walletAccountId: fc.constantFrom(accountId, 'GATEWAY'),
    accountId: fc.constant(accountId),
    paymentId: fc.constant(payment.id),
    userId: fc.constantFrom(caller.id, merchant.id),
    amount: fc.integer({ min: 10_000, max: 5_000_000 }),
    email: fc.constant(merchant.email),
    password: fc.constant(merchant.password),
  };
  document = service.app.swagger() as unknown as Record<string, unknown>;
}, 120_000);
afterAll(async () => service?.close());

function operationsOf(doc: Record<string, unknown>): Operation[] {
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  return Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const content = (op.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content;
        return {
          method: method.toUpperCase(),
          path,
          parameters: (op.parameters as Parameter[] | undefined) ?? [],
          body: content?.['application/json']?.schema,
          security: (op.security as Record<string, string[]>[] | undefined) ?? [],
        };
      }),
    )
    .filter(op => !skipped.has(`${op.method} ${op.path}`));
}

/** Every way in names a credential (no `{}` among the alternatives): the operator's /metrics, not /ready. */
const securedOnly = (op: Operation) => op.security.length > 0 && op.security.every(s => Object.keys(s).length > 0);

const pathId = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...realIds) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: hostileText.map(percentEncoded) },
  );

const asQueryText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function requestOf(op: Operation): fc.Arbitrary<Request> {
  const pathParams = op.parameters.filter(p => p.in === 'path').map(p => p.name);
  const queryParams = op.parameters.filter(p => p.in === 'query');
  return fc
    .record({
      ids: fc.tuple(...pathParams.map(() => pathId())),
      query: fc.tuple(...queryParams.map(p => fc.option(valueOf(p.schema ?? {}, document, known), { nil: undefined }))),
      body: op.body ? valueOf(op.body, document, known) : fc.constant(undefined),
      anonymous: fc.integer({ min: 0, max: 7 }).map(n => n === 0),
    })
    .map(({ ids, query, body, anonymous }) => {
      let url = op.path;
      pathParams.forEach((name, i) => (url = url.replace(`{${name}}`, ids[i] as string)));
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => query[i] !== undefined && search.set(p.name, asQueryText(query[i])));
      if (search.size > 0) url += `?${search}`;
      const headers: Record<string, string> = {};
      const kinds = op.security.flatMap(s => Object.keys(s));
      if (!anonymous && kinds.includes('apiKey')) headers['x-api-key'] = caller.key;
      if (!anonymous && kinds.includes('session'))
        headers.cookie = `svc_token=${op.path.startsWith('/api/admin/') ? admin.cookie : merchant.cookie}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return {
        method: op.method,
        url,
        headers,
        anonymous,
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      };
    });
}

describe('every operation of the document, fuzzed from the document', () => {
  it('answers what the document describes, and never a 5xx', async () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(60);
    const failures: string[] = [];
    for (const op of operations) {
      await fc
        .assert(
          fc.asyncProperty(requestOf(op), async request => {
            // the inject wrapper rejects an answer the document does not describe
            const { anonymous: _, ...sent } = request;
            const response = await service.app.inject({
              ...sent,
              method: sent.method as never,
              remoteAddress: '10.77.0.1',
            });
            expect(response.statusCode, `${op.method} ${request.url}: ${response.body.slice(0, 300)}`).toBeLessThan(
              500,
            );
            // an operation that names a credential never answers a request without one (a path the router refuses is a 400 first)
            if (request.anonymous && securedOnly(op))
              expect(response.statusCode, `${op.method} ${request.url} without a credential`).toBeGreaterThanOrEqual(
                400,
              );
          }),
          { numRuns: Number(process.env.CONTRACT_FUZZ_RUNS ?? 10) },
        )
        .catch(error => {
          failures.push(
            `${op.method} ${op.path}: ${(error as Error).message}\n${((error as Error).cause as Error | undefined)?.message ?? ''}`,
          );
        });
    }
    // every operation's counterexample at once
    expect(failures).toEqual([]);
  }, 600_000);
});
