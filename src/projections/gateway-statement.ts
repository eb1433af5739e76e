import type pg from 'pg';
import { ledgerAccount } from '../domain/gateway-ledger.ts';
import { preparedQuery, type Queryable, type Statement } from '../db/pool.ts';
import type { StoredEvent } from '../events/event.ts';
import type { GatewayLedgerEvent } from '../events/gateway.ts';
import { effectiveAt } from '../domain/ledger-time.ts';
import { perType, projection } from './projection.ts';

type LedgerEvent = StoredEvent<GatewayLedgerEvent>;

export const statementTypes = [
  'PAYMENT',
  'SETTLEMENT',
  'WITHDRAWAL_REQUESTED',
  'WITHDRAWAL_PAID',
  'WITHDRAWAL_REJECTED',
  'ADJUSTMENT',
] as const;
export type StatementType = (typeof statementTypes)[number];

const ledgerTypes = [
  'GatewayPaymentCredited',
  'BalanceSettled',
  'WithdrawalRequested',
  'WithdrawalPaid',
  'WithdrawalRejected',
  'GatewaySuspenseAllocated',
] as const;

/** What an event changes of its merchant's balances, with the entry's identity. */
function changesOf(e: LedgerEvent) {
  const m = e.data.merchantId;
  // what the platform owes is a credit balance: the merchant's balances move opposite to the postings
  const change = (account: string) =>
    e.data.postings.reduce((sum, p) => (p.account === account ? sum - p.amount : sum), 0);
  const pending = change(ledgerAccount.pending(m));
  const available = change(ledgerAccount.settled(m));
  const onHold = change(ledgerAccount.onHold(m));
  return { merchantId: m, revision: e.revision, id: e.metadata.eventId, pending, available, onHold };
}

/** A movement of the merchant's money that no sale made: a settlement or a withdrawal's step. */
const noSale = (withdrawalId: string | null) => ({ gross: null, fee: null, net: null, paymentId: null, withdrawalId });

/** One entry as the projection writes it, before its running balances (added in SQL from the merchant's last row). */
function entryOf(e: LedgerEvent) {
  const common = changesOf(e);
  const { pending, available, onHold } = common;
  switch (e.type) {
    case 'GatewayPaymentCredited':
      // gross is the sale as the merchant billed it: the unique code the buyer paid on top is the platform's (a credit
      // booked before it was kept carries no code: its gross is all that was paid), so gross - fee = net either way
      return {
        ...common,
        type: 'PAYMENT',
        // when the money moved (the provider's time of the credit), however late the service saw it
        at: effectiveAt(e),
        amount: pending,
        gross: e.data.totalAmount - (e.data.uniqueCode ?? 0),
        fee: e.data.fee,
        net: e.data.net,
        paymentId: e.data.paymentId,
        withdrawalId: null,
      };
    case 'BalanceSettled':
      return { ...common, type: 'SETTLEMENT', at: e.data.settledAt, amount: available, ...noSale(null) };
    case 'WithdrawalRequested': {
      const { requestedAt: at, withdrawalId } = e.data;
      return { ...common, type: 'WITHDRAWAL_REQUESTED', at, amount: available, ...noSale(withdrawalId) };
    }
    case 'WithdrawalPaid':
      // available is untouched (it was held already): the amount is what left the held money, when the transfer left
      return { ...common, type: 'WITHDRAWAL_PAID', at: effectiveAt(e), amount: onHold, ...noSale(e.data.withdrawalId) };
    case 'GatewaySuspenseAllocated':
      // money that matched no payment, given to the merchant by an admin: gross, fee and net as a payment's
      return {
        ...common,
        type: 'ADJUSTMENT',
        at: e.data.allocatedAt,
        amount: pending,
        gross: e.data.amount - (e.data.uniqueCode ?? 0),
        fee: e.data.fee,
        net: e.data.net,
        paymentId: e.data.paymentId,
        withdrawalId: null,
      };
    case 'WithdrawalRejected': {
      const { rejectedAt: at, withdrawalId } = e.data;
      return { ...common, type: 'WITHDRAWAL_REJECTED', at, amount: available, ...noSale(withdrawalId) };
    }
    default: {
      const unknown: never = e;
      throw new Error(`unhandled ledger event ${String(unknown)}`);
    }
  }
}

/**
 * Any run of ledger events as one statement: each merchant's entries are numbered after their last row and their
 * balances are that row's plus the running sum of the changes (events apply in stream order, so the sum is exact).
 * An event already written (same stream revision) is skipped, so a repeated batch changes nothing.
 */
function statementOf(events: LedgerEvent[]): Statement {
  return {
    name: 'ProjectGatewayStatement',
    sql: `
      insert into gateway_statement (merchant_id, seq, stream_revision, id, type, type_seq, at, at_max, amount, gross, fee, net, payment_id, withdrawal_id,
        pending, available, on_hold)
      select b."merchantId", coalesce(l.seq, 0) + row_number() over w, b.revision, b.id, b.type, coalesce(t.type_seq, 0) + row_number() over wt,
        b.at, greatest(l.at_max, max(b.at) over w), b.amount, b.gross, b.fee, b.net, b."paymentId", b."withdrawalId",
        coalesce(l.pending, 0) + sum(b.pending) over w, coalesce(l.available, 0) + sum(b.available) over w, coalesce(l.on_hold, 0) + sum(b."onHold") over w
      from jsonb_to_recordset($1::jsonb) as b("merchantId" uuid, revision bigint, id uuid, type text, at timestamptz, amount bigint, gross bigint, fee bigint,
        net bigint, "paymentId" uuid, "withdrawalId" uuid, pending bigint, available bigint, "onHold" bigint)
      left join lateral (
        select s.seq, s.stream_revision, s.at_max, s.pending, s.available, s.on_hold from gateway_statement s where s.merchant_id = b."merchantId" order by s.seq desc limit 1
      ) l on true
      left join lateral (
        select s.type_seq from gateway_statement s where s.merchant_id = b."merchantId" and s.type = b.type order by s.seq desc limit 1
      ) t on true
      where b.revision > coalesce(l.stream_revision, -1)
      window w as (partition by b."merchantId" order by b.revision rows between unbounded preceding and current row),
        wt as (partition by b."merchantId", b.type order by b.revision rows between unbounded preceding and current row)
      on conflict do nothing`,
    params: [JSON.stringify(events.map(entryOf))],
  };
}

/**
 * Each gateway merchant's statement: one row per ledger entry with the balances after it, numbered per merchant
 * (`seq`, dense from 1) so that a page of a long statement is an index range. The balances are folded from the same
 * postings as gateway_balances, so the last row equals them.
 */
export const gatewayStatementProjection = projection({
  name: 'gateway-statement',
  tables: ['gateway_statement'],
  schema: [
    `
    create table if not exists gateway_statement (
      merchant_id uuid not null,
      seq bigint not null,
      stream_revision bigint not null,
      id uuid not null,
      type text not null,
      type_seq bigint not null,
      at timestamptz not null,
      at_max timestamptz not null,
      amount bigint not null,
      gross bigint,
      fee bigint,
      net bigint,
      payment_id uuid,
      withdrawal_id uuid,
      pending bigint not null,
      available bigint not null,
      on_hold bigint not null,
      primary key (merchant_id, seq),
      unique (merchant_id, stream_revision)
    );`,
    // 2: tables made before type_seq and at_max: numbered once from their rows
    `do $$ begin
      if not exists (select 1 from pg_attribute where attrelid = to_regclass('gateway_statement') and attname = 'type_seq' and not attisdropped) then
        alter table gateway_statement add column type_seq bigint, add column at_max timestamptz;
        update gateway_statement s set type_seq = n.type_seq, at_max = n.at_max
          from (select merchant_id, seq, row_number() over (partition by merchant_id, type order by seq) as type_seq,
                  max(at) over (partition by merchant_id order by seq rows between unbounded preceding and current row) as at_max
                from gateway_statement) n
         where n.merchant_id = s.merchant_id and n.seq = s.seq;
        alter table gateway_statement alter column type_seq set not null, alter column at_max set not null;
      end if;
    end $$;
    create index if not exists gateway_statement_by_type on gateway_statement (merchant_id, type, seq);
    create index if not exists gateway_statement_by_type_seq on gateway_statement (merchant_id, type, type_seq);
    create index if not exists gateway_statement_by_time on gateway_statement (merchant_id, at, seq);
    create index if not exists gateway_statement_late on gateway_statement (merchant_id, seq) where at < at_max;`,
  ],
  on: perType(ledgerTypes, async (tx: pg.PoolClient, event: LedgerEvent) => {
    const statement = statementOf([event]);
    await preparedQuery(tx, statement.name, statement.sql, statement.params);
  }),
  // every ledger type writes the same row: a run of any one type is one statement
  applyRun: perType(ledgerTypes, statementOf),
});

export type StatementRow = {
  seq: number;
  id: string;
  type: StatementType;
  at: Date;
  amount: number;
  gross: number | null;
  fee: number | null;
  net: number | null;
  payment_id: string | null;
  order_id: string | null;
  withdrawal_id: string | null;
  pending: number;
  available: number;
  on_hold: number;
};

export type StatementFilter = {
  merchantId: string;
  type?: StatementType | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  page: number;
  limit: number;
};

const columns = `s.seq, s.id, s.type, s.at, s.amount, s.gross, s.fee, s.net, s.payment_id, p.order_id, s.withdrawal_id, s.pending, s.available, s.on_hold`;
const withOrder = 'left join payments p on p.id = s.payment_id';

/**
 * A page of a merchant's statement, newest first, and how many entries the filter matches. Every filter is a range of
 * `seq` (or of `type_seq` within a type): from/to are the first and the last entry of that time (one index probe each),
 * exact as long as no entry from the first on was recorded late; otherwise the filter is counted and paged row by row.
 */
export async function listStatement(
  db: Queryable,
  f: StatementFilter,
): Promise<{ rows: StatementRow[]; total: number }> {
  if (!f.type && !f.from && !f.to) {
    const last = await preparedQuery<{ seq: number | null }>(
      db,
      'FindGatewayStatementLast',
      'select max(seq)::int as seq from gateway_statement where merchant_id = $1',
      [f.merchantId],
    );
    const total = last.rows[0]?.seq ?? 0;
    const rows = await preparedQuery<StatementRow>(
      db,
      'ListGatewayStatement',
      `select ${columns} from gateway_statement s ${withOrder} where s.merchant_id = $1 and s.seq <= $2 order by s.seq desc limit $3`,
      [f.merchantId, total - (f.page - 1) * f.limit, f.limit],
    );
    return { rows: rows.rows, total };
  }
  const range = await statementRange(db, f);
  if (!range) return listStatementRowByRow(db, f);
  const total = Math.max(0, range.last - range.first + 1);
  const top = range.last - (f.page - 1) * f.limit;
  if (total === 0 || top < range.first) return { rows: [], total };
  const rows = f.type
    ? await preparedQuery<StatementRow>(
        db,
        'ListGatewayStatementOfType',
        `select ${columns} from gateway_statement s ${withOrder}
         where s.merchant_id = $1 and s.type = $2 and s.type_seq >= $3 and s.type_seq <= $4 order by s.type_seq desc limit $5`,
        [f.merchantId, f.type, range.first, top, f.limit],
      )
    : await preparedQuery<StatementRow>(
        db,
        'ListGatewayStatementRange',
        `select ${columns} from gateway_statement s ${withOrder} where s.merchant_id = $1 and s.seq >= $2 and s.seq <= $3 order by s.seq desc limit $4`,
        [f.merchantId, range.first, top, f.limit],
      );
  return { rows: rows.rows, total };
}

/**
 * The filter's entries as a range: of `seq`, or of `type_seq` with a type (first > last: none). Null when an entry from
 * the first one in the period on was recorded late (its `at` below `at_max`), where the range could miss or add one.
 */
async function statementRange(db: Queryable, f: StatementFilter): Promise<{ first: number; last: number } | null> {
  const params: unknown[] = [f.merchantId];
  const param = (value: unknown) => `$${params.push(value)}`;
  // with from alone or to alone, the other end is the statement's own
  const first = f.from
    ? `(select seq from gateway_statement where merchant_id = $1 and at >= ${param(f.from)} order by at, seq limit 1)`
    : '1::bigint';
  const last = f.to
    ? `(select seq from gateway_statement where merchant_id = $1 and at < ${param(f.to)} order by at desc, seq desc limit 1)`
    : '(select max(seq) from gateway_statement where merchant_id = $1)';
  const late =
    f.from || f.to
      ? 'exists (select 1 from gateway_statement where merchant_id = $1 and seq >= b.first and at < at_max)'
      : 'false';
  const type = f.type ? param(f.type) : null;
  const ends = type
    ? `(select type_seq from gateway_statement where merchant_id = $1 and type = ${type} and seq >= b.first and seq <= b.last order by seq limit 1),
       (select type_seq from gateway_statement where merchant_id = $1 and type = ${type} and seq >= b.first and seq <= b.last order by seq desc limit 1)`
    : 'b.first, b.last';
  const r = await preparedQuery<{ first: string | null; last: string | null; late: boolean | null }>(
    db,
    'FindGatewayStatementRange',
    `select x.first, x.last, x.late from (select ${first} as first, ${last} as last) b,
       lateral (select ${ends}, ${late}) as x(first, last, late)`,
    params,
  );
  const row = r.rows[0];
  if (!row || row.late) return row?.late ? null : { first: 1, last: 0 };
  if (row.first === null || row.last === null) return { first: 1, last: 0 };
  return { first: Number(row.first), last: Number(row.last) };
}

/** The filter counted and paged over every matching row: for a statement with an entry recorded late. */
async function listStatementRowByRow(
  db: Queryable,
  f: StatementFilter,
): Promise<{ rows: StatementRow[]; total: number }> {
  const where = ['s.merchant_id = $1'];
  const params: unknown[] = [f.merchantId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (f.type) add('s.type = ?', f.type);
  if (f.from) add('s.at >= ?', f.from);
  if (f.to) add('s.at < ?', f.to);
  const clause = where.join(' and ');
  const [total, rows] = await Promise.all([
    preparedQuery<{ n: number }>(
      db,
      'CountGatewayStatement',
      `select count(*)::int as n from gateway_statement s where ${clause}`,
      params,
    ),
    preparedQuery<StatementRow>(
      db,
      'ListGatewayStatementFiltered',
      `select ${columns} from gateway_statement s ${withOrder} where ${clause} order by s.seq desc limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, f.limit, (f.page - 1) * f.limit],
    ),
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

/** An entry as the API, the page and the CSV show it: `settled` counts what withdrawals hold, as in /api/v1/gateway. */
export function presentStatementEntry(r: StatementRow) {
  return {
    id: r.id,
    type: r.type,
    at: r.at.toISOString(),
    amount: r.amount,
    ...(r.type === 'PAYMENT'
      ? { gross: r.gross, fee: r.fee, net: r.net, paymentId: r.payment_id, orderId: r.order_id }
      : {}),
    // an allocated suspense credit: its gross, fee and net, and the payment it was for when the admin named one
    ...(r.type === 'ADJUSTMENT' ? { gross: r.gross, fee: r.fee, net: r.net, paymentId: r.payment_id } : {}),
    ...(r.withdrawal_id ? { withdrawalId: r.withdrawal_id } : {}),
    balance: { settled: r.available + r.on_hold, pending: r.pending, onHold: r.on_hold, available: r.available },
  };
}

/** One WIB day of the statement's chart: the net credited by payments that day and the available balance at its end. */
export type StatementDay = { day: string; net: number; available: number };

/** Each WIB day from `firstDay` to `lastDay` (YYYY-MM-DD, inclusive); a day without entries carries the balance before it. */
export async function statementDays(
  db: Queryable,
  merchantId: string,
  firstDay: string,
  lastDay: string,
): Promise<StatementDay[]> {
  const rows = await preparedQuery<StatementDay>(
    db,
    'ListGatewayStatementDays',
    `select to_char(d.day, 'YYYY-MM-DD') as day,
       coalesce((select sum(s.net) from gateway_statement s where s.merchant_id = $1 and s.type in ('PAYMENT', 'ADJUSTMENT')
         and s.at >= d.day::timestamp at time zone 'Asia/Jakarta' and s.at < (d.day + 1)::timestamp at time zone 'Asia/Jakarta'), 0)::bigint as net,
       coalesce((select s.available from gateway_statement s where s.merchant_id = $1
         and s.at < (d.day + 1)::timestamp at time zone 'Asia/Jakarta' order by s.at desc, s.seq desc limit 1), 0)::bigint as available
     from generate_series($2::date, $3::date, interval '1 day') as g(t), lateral (select g.t::date as day) d
     order by d.day`,
    [merchantId, firstDay, lastDay],
  );
  return rows.rows;
}
