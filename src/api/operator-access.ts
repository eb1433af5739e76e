import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isLoopbackAddress } from '../security/address-guard.ts';

/**
 * Who may read the operator's views (/metrics, /ready's details): the bearer of METRICS_TOKEN when one is set; else a
 * client on this machine whose request no proxy forwarded (a proxy on loopback would make everyone local).
 */
export function isOperator(request: FastifyRequest, token: string | undefined): boolean {
  if (token) return bearerIs(request, token);
  const forwarded = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  return !forwarded && isLoopbackAddress(request.socket.remoteAddress ?? '');
}

function bearerIs(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const given = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
