import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream gateway-periods: the months of the gateway's books that finance closed, and reopened

/** A month of the books, written YYYY-MM (a WIB month: 00:00 WIB of its 1st to 00:00 WIB of the next month's). */
export const bookMonth = z.string().regex(/^(20\d\d|2100)-(0[1-9]|1[0-2])$/);

/** A position in the event log, as its two numbers written out (bigint does not survive JSON). */
export const logPosition = z.object({ commit: z.string().regex(/^\d+$/), prepare: z.string().regex(/^\d+$/) });

/**
 * The event-log fold's closing at a closed month's end (src/audit/ledger-fold-start.ts): where a later fold reads the
 * log from, each merchant with a ledger entry by then and its balances, each holding account with a posting by then
 * and its cash.
 */
export const ledgerClosing = z.object({
  from: logPosition,
  merchants: z.record(
    z.string(),
    z.object({ pending: z.number().int(), settled: z.number().int(), onHold: z.number().int() }),
  ),
  holdingAccounts: z.record(z.string(), z.number().int()),
});
export type LedgerClosing = z.infer<typeof ledgerClosing>;

/**
 * An admin closed a month: its reconciliation report as it stood (`report`, the JSON the route answers), `reportHash`
 * the sha256 of that report's canonical JSON (so the report is in the signed history, and a copy is checked by
 * hashing it), and `through` the last log position the report's ledger postings count: a posting after it whose
 * effective time is in the month is a prior-period item of the next open month.
 */
export const GatewayPeriodClosed = event(
  'GatewayPeriodClosed',
  1,
  z.object({
    period: bookMonth,
    reportHash: z.string().regex(/^[0-9a-f]{64}$/),
    report: z.record(z.string(), z.unknown()),
    through: logPosition,
    closedBy: z.uuid(),
    closedAt: isoDate,
    /**
     * the event-log fold's closing at the month's end, counting the log as far as `through`, and where a later fold
     * reads the log from (src/audit/ledger-fold-start.ts); absent in a close from before it was recorded
     */
    ledger: ledgerClosing.optional(),
  }),
);

/** An admin reopened the latest closed month, saying why: its report is computed live again until it is closed again. */
export const GatewayPeriodReopened = event(
  'GatewayPeriodReopened',
  1,
  z.object({
    period: bookMonth,
    reason: text,
    reopenedBy: z.uuid(),
    reopenedAt: isoDate,
  }),
);

export type GatewayPeriodEvent = EventOf<typeof GatewayPeriodClosed> | EventOf<typeof GatewayPeriodReopened>;
