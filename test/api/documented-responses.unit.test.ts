import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { serializeDocumentedResponses } from '../../src/api/documented-responses.ts';

// The documented success bodies are the routes' serialisers: GET /health is documented as { status: 'ok' }.
async function appAnswering(body: unknown, strict: boolean) {
  const logged: unknown[] = [];
  const log = { error: (details: unknown) => logged.push(details) } as never;
  const app = Fastify();
  serializeDocumentedResponses(app, log, strict);
  app.get('/health', async () => body);
  app.get('/undocumented', async () => body);
  await app.ready();
  return { app, logged };
}

describe('documented responses as serialisers', () => {
  it('given a field the document does not name, drops it from the answer', async () => {
    const { app } = await appAnswering({ status: 'ok', secret: 'pin 123456' }, false);
    const answer = await app.inject('/health');
    expect(answer.json()).toEqual({ status: 'ok' });
    // a route the document does not describe keeps its body
    expect((await app.inject('/undocumented')).json()).toEqual({ status: 'ok', secret: 'pin 123456' });
  });

  it('given an answer its schema refuses, fails the request when strict (the tests), else logs it and sends it as made', async () => {
    const strict = await appAnswering({ status: 'fine' }, true);
    expect((await strict.app.inject('/health')).statusCode).toBe(500);
    const lenient = await appAnswering({ status: 'fine' }, false);
    const answer = await lenient.app.inject('/health');
    expect([answer.statusCode, answer.json()]).toEqual([200, { status: 'fine' }]);
    expect(lenient.logged).toHaveLength(1);
  });
});
