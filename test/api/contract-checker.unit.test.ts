import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../support/contract.ts';

// The checker every test's answers go through (test/support/contract-inject.ts, contract-fetch.ts): each kind of breach fails.
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          503: {
            description: 'busy',
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'amount'],
        properties: { id: { type: 'string' }, amount: { type: 'integer' } },
        additionalProperties: false,
      },
    },
  },
};

const json = { 'content-type': 'application/json; charset=utf-8' };
const answer = (statusCode: number, body: unknown, headers: Record<string, string> = json) => ({
  statusCode,
  headers,
  body: JSON.stringify(body),
});
const checker = new ContractChecker(document as never);
const get = (url: string) => ({ method: 'GET', url });

describe('the contract checker', () => {
  it('given a documented answer, finds nothing', async () => {
    expect(await checker.breaches(get('/things/a?x=1'), answer(200, { id: 'a', amount: 5 }))).toEqual([]);
    expect(await checker.breaches(get('/things/a'), answer(503, {}, { ...json, 'retry-after': '1' }))).toEqual([]);
  });

  it('given a path or method the document does not have, checks nothing', async () => {
    expect(await checker.breaches(get('/dashboard'), answer(200, 'x', { 'content-type': 'text/html' }))).toEqual([]);
    expect(await checker.breaches({ method: 'DELETE', url: '/things/a' }, answer(405, {}))).toEqual([]);
  });

  it('given a status the operation does not list, fails', async () => {
    expect(await checker.breaches(get('/things/a'), answer(404, {}))).toEqual([
      expect.stringContaining('does not list this status'),
    ]);
  });

  it('given a body its schema refuses (a missing field, a field it does not name, a wrong type), fails', async () => {
    expect(await checker.breaches(get('/things/a'), answer(200, { id: 'a' }))).toHaveLength(1);
    expect(await checker.breaches(get('/things/a'), answer(200, { id: 'a', amount: 5, secret: 'x' }))).toHaveLength(1);
    expect(await checker.breaches(get('/things/a'), answer(200, { id: 'a', amount: '5' }))).toHaveLength(1);
  });

  it('given another content type, fails', async () => {
    expect(
      await checker.breaches(get('/things/a'), answer(200, { id: 'a', amount: 5 }, { 'content-type': 'text/plain' })),
    ).toEqual([expect.stringContaining('content type text/plain')]);
  });

  it('given a documented header missing, fails', async () => {
    expect(await checker.breaches(get('/things/a'), answer(503, {}))).toEqual([expect.stringContaining('header')]);
  });
});
