import type pg from 'pg';
import { z } from 'zod';
import { account } from '../domain/account.ts';
import { gatewayLedger, merchantBalance } from '../domain/gateway-ledger.ts';
import type { Decider } from '../domain/decider.ts';
import { payment } from '../domain/payments.ts';
import { query } from '../db/pool.ts';
import { parseRecorded, type DomainEvent } from '../events/event.ts';
import { findGatewayBalance } from '../projections/gateway-ledger.ts';
import { findPayment } from '../projections/payments.ts';
import type { EventStore } from '../store/event-store.ts';
import { streamEvents } from './stream-pages.ts';

export type AuditFinding = { revision?: number; problem: string };

type Difference = { field: string; stream: unknown; readModel: unknown };

/** A kind of stream whose fold the audit compares with its read model's rows. */
type AuditedKind = {
  prefix: string;
  initialState(): unknown;
  evolve(state: unknown, event: DomainEvent): unknown;
  compare(pool: pg.Pool, id: string, state: unknown): Promise<Difference[]>;
};

/** A kind of stream: its id prefix, its decider, and how its fold is compared with the read model (typed here, erased in the list). */
function kind<S, C, E extends DomainEvent>(
  prefix: string,
  decider: Decider<S, C, E>,
  compare: (pool: pg.Pool, id: string, state: S) => Promise<Difference[]>,
): AuditedKind {
  return {
    prefix,
    initialState: decider.initialState,
    evolve: (state, event) => decider.evolve(state as S, event as E),
    compare: (pool, id, state) => compare(pool, id, state as S),
  };
}

const differences = (pairs: Record<string, [unknown, unknown]>): Difference[] =>
  Object.entries(pairs)
    .filter(([, [stream, readModel]]) => JSON.stringify(stream) !== JSON.stringify(readModel))
    .map(([field, [stream, readModel]]) => ({ field, stream, readModel }));

const audited: AuditedKind[] = [
  kind('gateway-', gatewayLedger, async (pool, merchantId, state) => {
    const folded = merchantBalance(state, merchantId);
    const read = await findGatewayBalance(pool, merchantId);
    return differences({
      'balance.settled': [folded.settled, read.settled],
      'balance.pending': [folded.pending, read.pending],
      'balance.onHold': [folded.onHold, read.onHold],
      'balance.available': [folded.available, read.available],
    });
  }),
  kind('account-', account, async (pool, accountId, state) => {
    const row = (
      await query<{ balance: number; is_active: boolean; interval_minutes: number }>(
        pool,
        'AuditAccountRow',
        'select balance, is_active, interval_minutes from accounts where id = $1',
        [accountId],
      )
    ).rows[0];
    if (state.status !== 'linked') return differences({ exists: [false, row !== undefined] });
    if (!row) return differences({ exists: [true, false] });
    return differences({
      balance: [state.balance ?? 0, row.balance],
      isActive: [state.isActive, row.is_active],
      intervalMinutes: [state.intervalMinutes, row.interval_minutes],
    });
  }),
  kind('payment-', payment, async (pool, paymentId, state) => {
    const row = await findPayment(pool, paymentId);
    return differences({ status: [state.status === 'NONE' ? null : state.status, row?.status ?? null] });
  }),
];

/**
 * `cli audit-stream <id>`: the stream's revisions run from 0 without a gap, every event is valid
 * against its schema after upcasting, and, for ledgers, accounts and payments, the decider's fold equals the read
 * model's rows. A difference can be a projection still catching up: it is named, and the audit can be run again.
 */
export async function auditStream(deps: { store: EventStore; pool: pg.Pool }, streamId: string) {
  // the prefix and a UUID: `gateway-holding-accounts` is no merchant's ledger
  const streamKind = audited.find(
    a => streamId.startsWith(a.prefix) && z.uuid().safeParse(streamId.slice(a.prefix.length)).success,
  );
  const findings: AuditFinding[] = [];
  let state = streamKind?.initialState();
  let events = 0;
  for await (const recorded of streamEvents(deps.store, streamId)) {
    if (recorded.revision !== events)
      findings.push({ revision: recorded.revision, problem: `revision ${recorded.revision} where ${events} was due` });
    events++;
    try {
      const event = parseRecorded(recorded);
      if (!event)
        findings.push({ revision: recorded.revision, problem: `${recorded.type}: no event of this type is declared` });
      else if (streamKind) state = streamKind.evolve(state, event as DomainEvent);
    } catch (err) {
      findings.push({
        revision: recorded.revision,
        problem: `${recorded.type} v${recorded.version} is not valid: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  if (events === 0) findings.push({ problem: 'the stream has no events' });
  else if (streamKind) {
    for (const d of await streamKind.compare(deps.pool, streamId.slice(streamKind.prefix.length), state))
      findings.push({
        problem: `read model differs from the fold at ${d.field}: stream ${JSON.stringify(d.stream)}, read model ${JSON.stringify(d.readModel)}`,
      });
  }
  return {
    streamId,
    events,
    readModelCompared: streamKind !== undefined && events > 0,
    findings,
    clean: findings.length === 0,
  };
}
