import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/pool.ts';
import type { DatabaseWatch } from '../db/watch.ts';
import { DomainError, refuse, type ErrorCode } from '../errors.ts';
import { WrongExpectedRevision } from '../store/event-store.ts';
import { sendErrorPage } from './pages/error-page.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Session surface: the message for a body that is not what the route needs (the interface's own text). */
    invalidBodyMessage?: string;
    /**
     * Which surface's error shape the route answers in; set on its routes by the session surface's plugin
     * (src/api/auth.ts) and by the pages' (src/api/pages/page-surface.ts), whose refusals are pages.
     */
    surface?: 'session' | 'page';
  }
}

/** The route says, not the URL's text: a path the router decodes to a session route is the session surface too. */
const isSessionSurface = (request: FastifyRequest) => request.routeOptions.config?.surface === 'session';

const isPageSurface = (request: FastifyRequest) => request.routeOptions.config?.surface === 'page';

/** The body of a refusal in the route's surface's shape, with its code's status. */
function send(request: FastifyRequest, reply: FastifyReply, error: DomainError, session = isSessionSurface(request)) {
  // every 503 says when to ask again (a refusal's own 503, as no holding account free, too)
  if (error.status === 503 && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(unavailableRetryAfterSeconds));
  if (isPageSurface(request)) return sendErrorPage(request, reply, error);
  if (session) return reply.code(error.status).send({ ok: false, message: error.message });
  return reply
    .code(error.status)
    .send({ status: 'error', code: error.code, message: error.message, errors: error.errors });
}

/** The registry's code for fastify's own 4xx errors (a body too large, a content type it cannot parse, ...). */
const codeForStatus: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
};

/** What a client waits before trying again while the database is away (the embedded one restarts within seconds). */
const databaseRetryAfterSeconds = 5;

/** What a client waits before trying again after a refusal of its own 503 (no holding account free, an amount lapsed). */
const unavailableRetryAfterSeconds = 5;

/** What a client waits before trying again after losing a race: the writer that won is done by then. */
const busyRetryAfterSeconds = 1;

// PostgreSQL's "try again": serialization_failure, deadlock_detected
const retryableCodes = new Set(['40001', '40P01']);

/**
 * A conflict the command could not resolve by itself: another writer (in this process or another instance) kept
 * moving its stream through every retry, or PostgreSQL gave up a transaction to let another through. Its transaction
 * rolled back: nothing was written, and the same request may be sent again. A command that turns a conflict into a
 * refusal of its own (a 409) has caught it before.
 */
function isContention(error: unknown): boolean {
  if (error instanceof WrongExpectedRevision) return true;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && retryableCodes.has(code);
}

/**
 * The one place where errors become responses: refusals keep their code's status, an unreachable database and a lost
 * race are 503s with Retry-After, the unexpected a bare 500.
 */
export function registerErrorHandling(app: FastifyInstance, database?: DatabaseWatch) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) return send(request, reply, error);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.map(v => ({
        path: [
          error.validationContext,
          ...String(v.instancePath ?? '')
            .split('/')
            .filter(Boolean),
        ]
          .filter(Boolean)
          .join('.'),
        message: v.message ?? 'invalid',
      }));
      const message = request.routeOptions.config.invalidBodyMessage ?? 'Invalid request';
      return send(request, reply, refuse('VALIDATION_ERROR', { message, errors }));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        status === 400 ? (request.routeOptions.config.invalidBodyMessage ?? error.message) : error.message;
      const code = codeForStatus[status];
      // a 4xx the registry has no code for keeps its status
      if (!code)
        return reply
          .code(status)
          .send(
            isSessionSurface(request)
              ? { ok: false, message }
              : { status: 'error', code: 'BAD_REQUEST', message, errors: [] },
          );
      return send(request, reply, refuse(code, { message }));
    }
    if (isDatabaseUnavailable(error)) {
      // said once in the log by the database watch, not once per request; the client may simply try again
      database?.refused(error);
      reply.header('retry-after', String(databaseRetryAfterSeconds));
      return send(
        request,
        reply,
        refuse(isSessionSurface(request) ? 'SESSION_DATABASE_UNAVAILABLE' : 'DATABASE_UNAVAILABLE'),
      );
    }
    if (isContention(error)) {
      request.log.warn({ err: error }, 'request lost a race with a concurrent write: answered BUSY');
      reply.header('retry-after', String(busyRetryAfterSeconds));
      return send(request, reply, refuse(isSessionSurface(request) ? 'SESSION_BUSY' : 'BUSY'));
    }
    request.log.error({ err: error }, 'request failed');
    return send(request, reply, refuse('INTERNAL_ERROR'));
  });
  app.setNotFoundHandler(answerNotFound);
}

/** What the router itself refuses before any route runs: a path that is not URL text, a path id longer than it takes. */
const frameworkRefusals: Record<string, string> = {
  FST_ERR_BAD_URL: 'The path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is longer than the service takes',
  FST_ERR_ASYNC_CONSTRAINT: 'The request matches no route',
};

/**
 * fastify's `frameworkErrors`: the router's refusals in the error envelope, never its own shape (which echoes the
 * path). A 400 BAD_REQUEST; nothing ran.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const message = frameworkRefusals[error.code] ?? 'Bad request';
  return send(request, reply, refuse('BAD_REQUEST', { message, errors: [{ path: 'params', message }] }), false);
}

/** The methods a route can be declared with; HEAD is there wherever GET is (fastify adds it). */
const routeMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The methods the router has a route for at the request's path, other than the request's own. */
function allowedMethods(request: FastifyRequest): string[] {
  const path = request.raw.url?.split('?')[0] ?? '';
  // findRoute matches a concrete path as the router does (params, decoding); it answers null where nothing matches
  return routeMethods.filter(
    method => method !== request.method && request.server.findRoute({ method, url: path }) != null,
  );
}

/**
 * No route for this method and path: a 405 with `Allow` when the path has routes for other methods, else a 404.
 * Each surface's plugin sets it for its prefix too, so its guard runs first.
 */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply) {
  return send(request, reply, notFoundOrNotAllowed(request, reply));
}

/** The same under the session surface's prefix, in its shape. */
export function answerSessionNotFound(request: FastifyRequest, reply: FastifyReply) {
  return send(request, reply, notFoundOrNotAllowed(request, reply), true);
}

function notFoundOrNotAllowed(request: FastifyRequest, reply: FastifyReply): DomainError {
  const allowed = allowedMethods(request);
  if (allowed.length === 0) return refuse('NOT_FOUND');
  reply.header('allow', allowed.join(', '));
  return refuse('METHOD_NOT_ALLOWED');
}
