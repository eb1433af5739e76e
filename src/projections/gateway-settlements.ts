import type pg from 'pg';
import { preparedQuery, type Queryable, type Statement } from '../db/pool.ts';
import { settlesAt, wibDate, type HolidayCalendar } from '../domain/working-days.ts';
import { perType, projection, type Stored } from './projection.ts';

type Credit = Stored<'GatewayPaymentCredited'> | Stored<'GatewaySuspenseAllocated'>;
const creditTypes = ['GatewayPaymentCredited', 'GatewaySuspenseAllocated'] as const;

/**
 * A credit as its own event booked it: fee and net are the event's fields, and gross is the sale they split (fee +
 * net), as the statement shows it: a unique code the buyer paid on top and the platform kept is no part of it, and a
 * credit booked before the platform kept codes has its whole payment as gross. An allocated suspense credit is
 * settled under its suspense id, as the ledger's credits keep it.
 */
function creditOf(e: Credit) {
  if (e.type === 'GatewayPaymentCredited') {
    const d = e.data;
    return {
      creditId: d.paymentId,
      merchantId: d.merchantId,
      kind: 'PAYMENT',
      paymentId: d.paymentId,
      gross: d.fee + d.net,
      fee: d.fee,
      net: d.net,
      creditedAt: d.completedAt,
    };
  }
  const d = e.data;
  return {
    creditId: d.suspenseId,
    merchantId: d.merchantId,
    kind: 'ADJUSTMENT',
    paymentId: d.paymentId,
    gross: d.fee + d.net,
    fee: d.fee,
    net: d.net,
    creditedAt: d.allocatedAt,
  };
}

/** Any run of credits as one statement; a credit written before (same id) is skipped. */
function creditsStatement(events: Credit[]): Statement {
  return {
    name: 'ProjectGatewaySettlementCredits',
    sql: `insert into gateway_settlement_credits (credit_id, merchant_id, kind, payment_id, gross, fee, net, credited_at)
      select "creditId", "merchantId", kind, "paymentId", gross, fee, net, "creditedAt"
      from jsonb_to_recordset($1::jsonb) as c("creditId" uuid, "merchantId" uuid, kind text, "paymentId" uuid, gross bigint,
        fee bigint, net bigint, "creditedAt" timestamptz)
      on conflict do nothing`,
    params: [JSON.stringify(events.map(creditOf))],
  };
}

/**
 * Each merchant's settlements and the credits each one paid out: a credit waits with no settlement until the
 * BalanceSettled that names it (events apply in order, so its credits are there first); the settlement's row then
 * holds the sums of exactly those credits. Its id is the BalanceSettled's event id, as the statement's SETTLEMENT entry.
 */
export const gatewaySettlementsProjection = projection({
  name: 'gateway-settlements',
  tables: ['gateway_settlements', 'gateway_settlement_credits'],
  schema: [
    `
    create table if not exists gateway_settlement_credits (
      credit_id uuid primary key,
      merchant_id uuid not null,
      kind text not null,
      payment_id uuid,
      gross bigint not null,
      fee bigint not null,
      net bigint not null,
      credited_at timestamptz not null,
      settlement_id uuid
    );
    create index if not exists gateway_settlement_credits_by_settlement
      on gateway_settlement_credits (settlement_id, credited_at, credit_id) where settlement_id is not null;
    create table if not exists gateway_settlements (
      id uuid primary key,
      merchant_id uuid not null,
      stream_revision bigint not null,
      cutoff timestamptz not null,
      settled_at timestamptz not null,
      payment_count int not null,
      gross bigint not null,
      fee bigint not null,
      net bigint not null,
      unique (merchant_id, stream_revision)
    );
    create index if not exists gateway_settlements_by_time on gateway_settlements (merchant_id, settled_at, id);`,
    // 2: each credit's own due day as its BalanceSettled recorded it (null: not recorded, due on the cutoff's day)
    `alter table gateway_settlement_credits add column if not exists due_date date;`,
  ],
  on: {
    ...perType(creditTypes, async (tx: pg.PoolClient, event: Credit) => {
      const statement = creditsStatement([event]);
      await preparedQuery(tx, statement.name, statement.sql, statement.params);
    }),
    async BalanceSettled(tx, e) {
      // the credits the event names, by id, each with its due day: whatever rule chose them, the settlement pays out
      // exactly these
      await preparedQuery(
        tx,
        'ProjectGatewaySettlement',
        `with named as (select * from unnest($3::uuid[], $8::date[]) as n(credit_id, due_date)),
         paid as (
           update gateway_settlement_credits c set settlement_id = $1, due_date = named.due_date
           from named where c.merchant_id = $2 and c.credit_id = named.credit_id and c.settlement_id is null
           returning c.gross, c.fee
         )
         insert into gateway_settlements (id, merchant_id, stream_revision, cutoff, settled_at, payment_count, gross, fee, net)
         select $1, $2, $4, $5, $6, count(*), coalesce(sum(gross), 0), coalesce(sum(fee), 0), $7 from paid
         on conflict do nothing`,
        [
          e.metadata.eventId,
          e.data.merchantId,
          e.data.paymentIds,
          e.revision,
          e.data.cutoff,
          e.data.settledAt,
          e.data.amount,
          e.data.dueDates ?? e.data.paymentIds.map(() => null),
        ],
      );
    },
  },
  // a busy hour credits many payments: a run is one statement
  applyRun: perType(creditTypes, creditsStatement),
});

export type SettlementRow = {
  id: string;
  merchant_id: string;
  cutoff: Date;
  settled_at: Date;
  payment_count: number;
  gross: number;
  fee: number;
  net: number;
};

/** A credit as a settlement report shows it. */
export type CreditRow = {
  kind: 'PAYMENT' | 'ADJUSTMENT';
  credit_id: string;
  payment_id: string | null;
  order_id: string | null;
  gross: number;
  fee: number;
  net: number;
  paid_at: Date;
  /** its own due day (YYYY-MM-DD) as its settlement recorded it; null: not recorded (or not settled yet) */
  due_date: string | null;
};
export type SettledCreditRow = CreditRow & { settlement_id: string };

export type SettlementFilter = {
  merchantId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  page: number;
  limit: number;
};

const settlementColumns = 'id, merchant_id, cutoff, settled_at, payment_count, gross, fee, net';

/** A page of a merchant's settlements, newest first, settled in [from, to), and how many the filter matches. */
export async function listSettlements(
  db: Queryable,
  f: SettlementFilter,
): Promise<{ rows: SettlementRow[]; total: number }> {
  const where = `merchant_id = $1 and ($2::timestamptz is null or settled_at >= $2) and ($3::timestamptz is null or settled_at < $3)`;
  const params = [f.merchantId, f.from ?? null, f.to ?? null];
  const [total, rows] = await Promise.all([
    preparedQuery<{ n: number }>(
      db,
      'CountGatewaySettlements',
      `select count(*)::int as n from gateway_settlements where ${where}`,
      params,
    ),
    preparedQuery<SettlementRow>(
      db,
      'ListGatewaySettlements',
      `select ${settlementColumns} from gateway_settlements where ${where} order by settled_at desc, id desc limit $4 offset $5`,
      [...params, f.limit, (f.page - 1) * f.limit],
    ),
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

/** One of the merchant's settlements (another merchant's is none). */
export async function findSettlement(db: Queryable, merchantId: string, id: string): Promise<SettlementRow | null> {
  const r = await preparedQuery<SettlementRow>(
    db,
    'FindGatewaySettlement',
    `select ${settlementColumns} from gateway_settlements where id = $1 and merchant_id = $2`,
    [id, merchantId],
  );
  return r.rows[0] ?? null;
}

/**
 * A credit's columns as a report shows it (`c` the credit). Paid at is when the money moved: the payment's own paidAt,
 * a suspense credit's receipt, else when it was credited.
 */
const creditColumns = `c.kind, c.credit_id, c.payment_id, p.order_id, c.gross, c.fee, c.net,
  coalesce(p.paid_at, g.received_at, c.credited_at) as paid_at, c.due_date::text as due_date`;
const creditJoins = `left join payments p on p.id = c.payment_id
  left join gateway_suspense g on c.kind = 'ADJUSTMENT' and g.id = c.credit_id`;

/** The paid-out credits of these settlements, in the order they were credited, at most `limit` of each from `offset`. */
export async function settledCredits(
  db: Queryable,
  settlementIds: readonly string[],
  window: { limit: number; offset?: number },
): Promise<SettledCreditRow[]> {
  if (settlementIds.length === 0) return [];
  const r = await preparedQuery<SettledCreditRow>(
    db,
    'ListGatewaySettledCredits',
    `select s.id as settlement_id, ${creditColumns}
     from unnest($1::uuid[]) as s(id)
     cross join lateral (
       select * from gateway_settlement_credits c where c.settlement_id = s.id
       order by c.credited_at, c.credit_id limit $2 offset $3
     ) c
     ${creditJoins}
     order by s.id, c.credited_at, c.credit_id`,
    [settlementIds, window.limit, window.offset ?? 0],
  );
  return r.rows;
}

/** The credits a settlement names, as its first `limit` payments, with how many of them are projected and their sums. */
export type CreditsNamed = { found: number; gross: number; fee: number; first: CreditRow[] };

/**
 * The credits `creditIds` of a merchant, read before or without the settlement's own row (they come from earlier
 * events): what the `gateway.settled` webhook sends, built from the BalanceSettled itself.
 */
export async function creditsNamed(
  db: Queryable,
  merchantId: string,
  creditIds: readonly string[],
  limit: number,
): Promise<CreditsNamed> {
  const [sums, first] = await Promise.all([
    preparedQuery<{ found: number; gross: number; fee: number }>(
      db,
      'SumGatewayCreditsNamed',
      `select count(*)::int as found, coalesce(sum(gross), 0)::bigint as gross, coalesce(sum(fee), 0)::bigint as fee
       from gateway_settlement_credits where merchant_id = $1 and credit_id = any($2::uuid[])`,
      [merchantId, creditIds],
    ),
    preparedQuery<CreditRow>(
      db,
      'ListGatewayCreditsNamed',
      `select ${creditColumns} from gateway_settlement_credits c ${creditJoins}
       where c.merchant_id = $1 and c.credit_id = any($2::uuid[])
       order by c.credited_at, c.credit_id limit $3`,
      [merchantId, creditIds, limit],
    ),
  ]);
  return { ...sums.rows[0]!, first: first.rows };
}

/** Pending money that settles together: the credits whose WIB days lead to one working day. */
export type PendingDue = { dueDate: string; settlesAt: Date; net: number; count: number };

/**
 * A merchant's pending credits by when they settle, soonest first: the settler's work list (the ledger's
 * gateway_unsettled, its credits by their WIB day) through the settler's own rule, `settlesAt` on the calendar in force.
 */
export async function pendingByDueDate(
  db: Queryable,
  merchantId: string,
  calendar: HolidayCalendar,
): Promise<PendingDue[]> {
  const r = await preparedQuery<{ day: string; net: number; count: number }>(
    db,
    'ListGatewayPendingByDay',
    `select to_char(completed_at at time zone 'Asia/Jakarta', 'YYYY-MM-DD') as day, sum(net)::bigint as net, count(*)::int as count
     from gateway_unsettled where merchant_id = $1 group by 1 order by 1`,
    [merchantId],
  );
  const due = new Map<string, PendingDue>();
  for (const { day, net, count } of r.rows) {
    const at = settlesAt(new Date(`${day}T00:00:00+07:00`), calendar);
    const dueDate = wibDate(at);
    const earlier = due.get(dueDate);
    due.set(dueDate, { dueDate, settlesAt: at, net: (earlier?.net ?? 0) + net, count: (earlier?.count ?? 0) + count });
  }
  return [...due.values()];
}
