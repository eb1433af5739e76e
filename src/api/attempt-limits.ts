import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AttemptLimit } from '../config.ts';
import { refuse, type DomainError, type ErrorCode } from '../errors.ts';

/** The client's address as the limits count it: an IPv6 client by its /64, as @fastify/rate-limit does. */
export const clientAddress = (request: FastifyRequest) => normalizeIP(request.ip);

/**
 * One fixed-window counter per key, in @fastify/rate-limit's store: PostgreSQL's attempt_counts table
 * (src/db/attempt-counts.ts), so every instance on the database counts together.
 */
export type AttemptCounter = {
  /** Seconds until the window ends when its attempts are spent, without counting this one; else null. */
  spent(request: FastifyRequest): Promise<number | null>;
  /** Counts this attempt: the seconds until the window ends when it is one too many, else null. */
  take(request: FastifyRequest): Promise<number | null>;
};

/** A counter named `name`: its keys are its own in the store every limit shares (login and sign-up both count by address). */
export function attemptCounter(
  app: FastifyInstance,
  name: string,
  limit: AttemptLimit,
  key: (request: FastifyRequest) => string,
): AttemptCounter {
  const check = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMinutes * 60_000,
    keyGenerator: request => `${name}:${key(request)}`,
  });
  return {
    async spent(request) {
      const state = await check(request, { increment: false });
      return !state.isAllowed && state.remaining === 0 ? Math.max(state.ttlInSeconds, 1) : null;
    },
    async take(request) {
      const state = await check(request);
      return !state.isAllowed && state.isExceeded ? Math.max(state.ttlInSeconds, 1) : null;
    },
  };
}

/** 429 with Retry-After: the session surface's TOO_MANY_ATTEMPTS, RATE_LIMITED with what was limited, or a busy QR decoder. */
export function tooMany(
  reply: FastifyReply,
  seconds: number,
  code: Extract<ErrorCode, 'TOO_MANY_ATTEMPTS' | 'RATE_LIMITED' | 'QR_DECODER_BUSY'>,
  message?: string,
  scope?: string,
): DomainError {
  reply.header('retry-after', String(seconds));
  return refuse(code, { message, params: { seconds, ...(scope ? { scope } : {}) } });
}
