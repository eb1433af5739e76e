import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { findSandboxProvider, type SandboxProvider } from './catalogue.ts';

/** An answer the sandbox gives on purpose: `{error: code, message}` with its status. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function providerOrThrow(providerCode: string): SandboxProvider {
  const provider = findSandboxProvider(providerCode);
  if (!provider) throw new SandboxError(404, 'UNKNOWN_PROVIDER', `No provider ${providerCode} in the sandbox`);
  return provider;
}

const codeForStatus: Record<number, string> = {
  400: 'INVALID_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** The one place where errors become `{error, message}` bodies, the shape a provider answers with. */
export function registerSandboxErrors(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof SandboxError)
      return reply.code(error.status).send({ error: error.code, message: error.message });
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map(v => {
        const where = [
          error.validationContext,
          ...String(v.instancePath ?? '')
            .split('/')
            .filter(Boolean),
        ].join('.');
        return `${where}: ${v.message ?? 'invalid'}`;
      });
      return reply.code(400).send({ error: 'INVALID_REQUEST', message: issues.join('; ') });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return reply.code(status).send({ error: codeForStatus[status] ?? 'INVALID_REQUEST', message: error.message });
    request.log.error({ err: error }, 'sandbox request failed');
    return reply.code(500).send({ error: 'INTERNAL_ERROR', message: 'Internal sandbox error' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'NOT_FOUND', message: `No route ${request.method} ${request.url}` }),
  );
}
