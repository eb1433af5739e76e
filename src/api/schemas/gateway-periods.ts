import { z } from 'zod';
import type { presentClosure } from '../gateway-periods.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successList, type NamesAll } from './payments.ts';

const instant = z.iso.datetime({ offset: true });

/** A close of a month of the gateway's books (src/api/gateway-periods.ts). */
export const gatewayPeriodClosure = z
  .object({
    period: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .describe('The month, YYYY-MM (WIB)'),
    status: z.enum(['CLOSED', 'REOPENED']).describe('CLOSED while in force; REOPENED once an admin reopened it'),
    reportHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("The sha256 of the frozen report's canonical JSON (keys sorted), as GatewayPeriodClosed records it"),
    closedBy: z.uuid(),
    closedAt: instant,
    reopenedBy: z.uuid().nullable(),
    reopenedAt: instant.nullable(),
    reason: z.string().nullable().describe('Why it was reopened'),
  })
  .meta({
    id: 'GatewayPeriodClosure',
    description:
      "A month of the gateway's books closed: its reconciliation frozen in the audited log; the latest closed month may be reopened with a reason",
    examples: [
      {
        period: '2026-11',
        status: 'CLOSED',
        reportHash: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a',
        closedBy: '4d9e3f6a-7b8c-4d0e-9f2a-3b4c5d6e7f8a',
        closedAt: '2026-12-02T03:00:00.000Z',
        reopenedBy: null,
        reopenedAt: null,
        reason: null,
      },
    ],
  });

/** Who closed a month, when, and its report's hash (null: the report is computed now). */
export const closedMark = z
  .object({ at: instant, by: z.uuid(), hash: z.string().regex(/^[0-9a-f]{64}$/) })
  .nullable()
  .describe(
    'Exactly a closed month: the report is the one frozen when it was closed (hash: sha256 of its canonical JSON, without this field); null: computed now',
  );

/** Postings of closed months recorded after they closed, reported in this period and listed apart. */
export const priorPeriod = z
  .object({
    count: z.int(),
    items: z.array(
      z.object({
        merchantId: z.uuid(),
        streamRevision: z.int(),
        eventType: z.string(),
        referenceId: z.string(),
        effectiveAt: instant.describe('When the money moved'),
        recordedAt: instant.describe('When the service recorded it, after its month was closed'),
        reportedOn: z.iso.date().describe('The WIB day it is reported on: the first of the month it moved to'),
        postings: z.array(z.object({ account: z.string(), amount: z.int() })),
      }),
    ),
  })
  .describe(
    "Prior-period items: at most 1,000 (count counts all), in the days' totals on the day they are reported on",
  );

const _closure: NamesAll<ReturnType<typeof presentClosure>, z.output<typeof gatewayPeriodClosure>> = true;

const oneClosure = success('GatewayPeriodClosureResponse', gatewayPeriodClosure);

export const gatewayPeriodOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/gateway/periods': {
    responses: { 200: successList('GatewayPeriodClosureListResponse', gatewayPeriodClosure) },
  },
  'POST /api/admin/gateway/periods/{period}/close': { responses: { 201: oneClosure } },
  'POST /api/admin/gateway/periods/{period}/reopen': { responses: { 200: oneClosure } },
};
