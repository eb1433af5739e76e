import { z } from 'zod';
import type { DocumentedOperation } from './index-requests.ts';

/** GET /health and GET /ready as src/api/health.ts answers them: readiness says the same body at 200 and at 503. */

const health = z
  .object({ status: z.literal('ok') })
  .meta({ id: 'Health', description: 'The process answers', examples: [{ status: 'ok' }] });

const subscriberProblem = z
  .object({
    subscriber: z.string(),
    state: z.enum(['stuck', 'waiting']),
    error: z.string(),
    since: z.string(),
    attempts: z.number().int(),
    event: z
      .object({ streamId: z.string(), revision: z.number().int(), type: z.string(), position: z.string() })
      .optional()
      .describe('The event it is stuck at: its stream, revision, type and position in the log'),
  })
  .meta({ id: 'SubscriberProblem', description: 'A projection, saga or subscriber that is stuck or waiting' });

const readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.record(z.string(), z.boolean()).optional().describe('For the operator: each check, true when fine'),
    subscribers: z.array(subscriberProblem).optional().describe('For the operator: the subscribers that are not fine'),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("For the operator: the holiday calendar's coverage and the like"),
  })
  .meta({
    id: 'Readiness',
    description: 'Ready or not for anyone; what is wrong only for the operator',
    examples: [{ status: 'ready' }],
  });

export const healthOperations: Record<string, DocumentedOperation> = {
  'GET /health': { responses: { 200: health } },
  'GET /ready': { responses: { 200: readiness, 503: readiness } },
};
