import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { documentedOperations } from './schemas/index-requests.ts';

/** `GET /api/v1/accounts/:id/` as the operation tables key it: `GET /api/v1/accounts/{id}`. */
const operationKey = (method: string, url: string) =>
  `${method} ${(url.length > 1 ? url.replace(/\/$/, '') : url).replace(/:(\w+)/g, '{$1}')}`;

/**
 * The documented success bodies (src/api/schemas) are the routes' serialisers too: an answer is encoded by
 * its zod schema, so a field the document does not name is dropped, never sent. An answer its schema refuses is a bug:
 * with `strict` (the tests) it fails the request; in service it is logged and sent as the handler made it, so a client
 * is not refused over a documentation slip.
 */
export function serializeDocumentedResponses(app: FastifyInstance, log: FastifyBaseLogger, strict: boolean): void {
  app.setSerializerCompiler(({ schema, method, url }) => {
    const documented = schema as z.ZodType;
    return (data: unknown) => {
      const encoded = z.safeEncode(documented, data);
      if (encoded.success) return JSON.stringify(encoded.data);
      if (strict)
        throw new Error(
          `the answer of ${method} ${url} does not match its documented schema: ${encoded.error.message}`,
        );
      log.error(
        { method, url, issues: encoded.error.issues },
        'an answer does not match its documented schema: sent as made',
      );
      return JSON.stringify(data);
    };
  });
  app.addHook('onRoute', route => {
    const methods = [route.method].flat().filter(m => m !== 'HEAD');
    for (const method of methods) {
      const responses = documentedOperations[operationKey(method, route.url)]?.responses;
      if (!responses) continue;
      route.schema = { ...route.schema, response: { ...(route.schema?.response as object | undefined), ...responses } };
    }
  });
}
