import type pg from 'pg';
import { settleDue } from '../commands/gateway-ledger.ts';
import type { CommandDeps } from '../commands/deps.ts';
import { missingYears, settlementCutoff, wibDate, type HolidayCalendar } from '../domain/working-days.ts';
import { gatewayLedgerProjection, merchantsWithDueCredits } from '../projections/gateway-ledger.ts';
import type { SagaDeps } from '../sagas/all.ts';
import type { Position } from '../store/event-store.ts';
import { comparePositions } from '../store/event-store.ts';
import { onTheClock } from './on-the-clock.ts';

export type GatewaySettlement = {
  /** Settles every merchant with credits due at the clock's now; answers how many merchants it settled. */
  tick(): Promise<number>;
  stop(): Promise<void>;
};

export type SettlementOptions = {
  /** The working-day calendar as it is now: what completed before its cutoff is due. */
  calendarAt: (now: Date) => Promise<HolidayCalendar>;
  tickMs?: number;
  /** merchants looked up at a time */
  batch?: number;
  /** merchant streams settled at once (16: group commit takes their appends together, and at most about half of the
   * pool's 30 connections read ledgers not cached, so the API keeps the rest at midnight) */
  parallel?: number;
};

/** Runs `work` over `items`, at most `parallel` at a time. */
async function inParallel<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

/**
 * Not a reaction (src/sagas/reaction.ts): the clock and the calendar drive it, not an event, and it settles merchants in
 * batches, 16 streams at once, waiting on the ledger's read model between batches.
 *
 * The settlement run: every second, the merchants with credits completed before the calendar's
 * cutoff are found in the read model (which only names their streams), and each merchant's ledger settles what it
 * holds due, in one BalanceSettled. A tick with nothing due costs the cutoff and one indexed look-up.
 */
export function startGatewaySettlement(
  deps: SagaDeps & { pool: pg.Pool; readModels: CommandDeps['readModels'] },
  options: SettlementOptions,
): GatewaySettlement {
  const batch = options.batch ?? 1000;
  const parallel = options.parallel ?? 16;

  const settleAll = async () => {
    const at = deps.clock.now();
    const calendar = await options.calendarAt(at);
    const cutoff = settlementCutoff(at, calendar);
    // a run judges days of this year and, for credits from before New Year, last year's: the entry names those without a decree
    const thisYear = Number(wibDate(at).slice(0, 4));
    const yearsWithoutDecree = missingYears(calendar, [thisYear - 1, thisYear]);
    const done = new Set<string>();
    let settled = 0;
    for (;;) {
      // the work list is the ledger's read model: let it catch up with what was written so far (and settled just now)
      await deps.readModels.waitFor(await deps.store.headPosition(), 5000, [gatewayLedgerProjection]);
      const merchants = (await merchantsWithDueCredits(deps.pool, cutoff, batch + done.size)).filter(m => !done.has(m));
      if (merchants.length === 0) return settled;
      let last: Position | null = null;
      await inParallel(merchants.slice(0, batch), parallel, async merchantId => {
        done.add(merchantId);
        const now = deps.clock.now();
        const context = {
          actor: 'system:gateway-settlement',
          now,
          correlationId: `settlement:${cutoff.toISOString()}`,
        };
        const result = await settleDue(deps, merchantId, cutoff, context, { calendar, yearsWithoutDecree });
        if (result.events.length > 0) settled++;
        if (result.position && (!last || comparePositions(result.position, last) > 0)) last = result.position;
      });
      if (last) await deps.readModels.waitFor(last, 30_000, [gatewayLedgerProjection]);
    }
  };

  return onTheClock(settleAll, options.tickMs ?? 1000, deps.log, 'gateway settlement tick');
}
