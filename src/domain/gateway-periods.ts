import { refuse } from '../errors.ts';
import {
  GatewayPeriodClosed,
  GatewayPeriodReopened,
  type GatewayPeriodEvent,
  type LedgerClosing,
} from '../events/gateway-periods.ts';
import type { Decider } from './decider.ts';

/** The months of the gateway's books finance closed (docs/decisions.md, "Closing a period"). */
export const gatewayPeriodsStream = 'gateway-periods';

const wibOffsetMs = 7 * 3_600_000;

/** A month YYYY-MM as its WIB bounds: 00:00 WIB of its 1st, and of the next month's 1st. */
export function monthBounds(period: string): { startsAt: Date; endsAt: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return {
    startsAt: new Date(Date.UTC(year, month - 1, 1) - wibOffsetMs),
    endsAt: new Date(Date.UTC(year, month, 1) - wibOffsetMs),
  };
}

/** The month after (or, with -1, before) a month YYYY-MM. */
export function monthAfter(period: string, step = 1): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1 + step, 1)).toISOString().slice(0, 7);
}

/** The month YYYY-MM a from..to of WIB days is, exactly (its 1st to its last day), or null. */
export function monthOfDays(from: string, to: string): string | null {
  const period = from.slice(0, 7);
  if (!/^\d{4}-\d{2}$/.test(period) || from !== `${period}-01`) return null;
  const last = new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)), 0)).toISOString();
  return to === last.slice(0, 10) ? period : null;
}

/** Each month ever closed: its latest close's hash, and whether it is closed now. */
export type GatewayPeriods = { months: Record<string, { closed: boolean; reportHash: string }> };

/** The month closed now that is the latest of them (months close in order, so the closed ones follow each other). */
export function latestClosed(state: GatewayPeriods): string | null {
  const closed = Object.entries(state.months)
    .filter(([, m]) => m.closed)
    .map(([period]) => period)
    .sort();
  return closed.at(-1) ?? null;
}

export type ClosePeriod = {
  type: 'ClosePeriod';
  period: string;
  report: Record<string, unknown>;
  reportHash: string;
  through: { commit: string; prepare: string };
  /** the event-log fold's closing at the month's end (GatewayPeriodClosed.ledger) */
  ledger?: LedgerClosing;
  closedBy: string;
  now: Date;
};
export type ReopenPeriod = { type: 'ReopenPeriod'; period: string; reason: string; reopenedBy: string; now: Date };
export type GatewayPeriodCommand = ClosePeriod | ReopenPeriod;

/**
 * Why `period` cannot be closed at `now`, else nothing: it must have ended (WIB), not be closed already, and be the
 * month after the latest closed one when one is closed (so each closed month's closing is the next one's opening).
 * The close workflow asks this before it computes the report; the decider asks again when it appends.
 */
export function closeRefusal(state: GatewayPeriods, period: string, now: Date) {
  if (monthBounds(period).endsAt.getTime() > now.getTime())
    return refuse('PERIOD_NOT_ENDED', {
      message: `${period} has not ended (WIB); a month is closed once its last day is over`,
      params: { period },
    });
  if (state.months[period]?.closed)
    return refuse('PERIOD_ALREADY_CLOSED', { message: `${period} is closed already`, params: { period } });
  const latest = latestClosed(state);
  if (latest !== null && period !== monthAfter(latest))
    return refuse('PERIOD_OUT_OF_ORDER', {
      message: `Months close in order: the next to close is ${monthAfter(latest)}`,
      params: { period, next: monthAfter(latest), case: 'close' },
    });
  return null;
}

/** Only the latest closed month reopens: an earlier one's closing is the frozen opening of the month after it. */
function reopenRefusal(state: GatewayPeriods, c: ReopenPeriod) {
  if (!state.months[c.period]?.closed)
    return refuse('PERIOD_NOT_CLOSED', { message: `${c.period} is not closed`, params: { period: c.period } });
  const latest = latestClosed(state)!;
  if (c.period !== latest)
    return refuse('PERIOD_OUT_OF_ORDER', {
      message: `Only the latest closed month reopens: ${latest}`,
      params: { period: c.period, next: latest, case: 'reopen' },
    });
  if (c.reason.trim() === '') return refuse('INVALID_INPUT', { message: 'A reopening needs its reason' });
  return null;
}

function evolve(state: GatewayPeriods, event: GatewayPeriodEvent): GatewayPeriods {
  switch (event.type) {
    case 'GatewayPeriodClosed': {
      const { period, reportHash } = event.data;
      return { months: { ...state.months, [period]: { closed: true, reportHash } } };
    }
    case 'GatewayPeriodReopened': {
      const month = state.months[event.data.period];
      return month ? { months: { ...state.months, [event.data.period]: { ...month, closed: false } } } : state;
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const gatewayPeriods: Decider<GatewayPeriods, GatewayPeriodCommand, GatewayPeriodEvent> = {
  cached: true,
  initialState: () => ({ months: {} }),
  evolve,
  decide(state, c) {
    switch (c.type) {
      case 'ClosePeriod': {
        const refused = closeRefusal(state, c.period, c.now);
        if (refused) throw refused;
        const { period, report, reportHash, through, ledger, closedBy } = c;
        const closedAt = c.now.toISOString();
        return [
          GatewayPeriodClosed({ period, report, reportHash, through, closedBy, closedAt, ...(ledger && { ledger }) }),
        ];
      }
      case 'ReopenPeriod': {
        const refused = reopenRefusal(state, c);
        if (refused) throw refused;
        const { period, reopenedBy } = c;
        return [
          GatewayPeriodReopened({ period, reason: c.reason.trim(), reopenedBy, reopenedAt: c.now.toISOString() }),
        ];
      }
      default: {
        const never: never = c;
        return never;
      }
    }
  },
};
