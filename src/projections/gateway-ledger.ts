import type pg from 'pg';
import { ledgerAccount, type MerchantBalance, type WithdrawalStatus } from '../domain/gateway-ledger.ts';
import { preparedQuery, type Queryable, type Statement } from '../db/pool.ts';
import type { EventOf, StoredEvent } from '../events/event.ts';
import type { GatewayLedgerEvent } from '../events/gateway.ts';
import type { SuspenseCreditReceived, SuspenseCreditRefunded } from '../events/gateway-suspense.ts';
import type { HoldingTransferCreditReleased, HoldingTransferRecorded } from '../events/holding-transfers.ts';
import type { LedgerAdjustmentEvent } from '../events/ledger-adjustments.ts';
import { effectiveAt } from '../domain/ledger-time.ts';
import {
  ledgerClosesTable,
  placeClose,
  placementStep,
  recordReopening,
  reportedAtOnInsert,
} from './gateway-ledger-placement.ts';
import { perType, projection } from './projection.ts';

/** Postings of the merchants' ledgers (`gateway-<merchantId>`) and of the platform's suspense (`gateway-suspense`). */
type PostingEvent =
  | GatewayLedgerEvent
  | EventOf<typeof SuspenseCreditReceived>
  | EventOf<typeof SuspenseCreditRefunded>
  | EventOf<typeof HoldingTransferRecorded>
  | EventOf<typeof HoldingTransferCreditReleased>
  | LedgerAdjustmentEvent;
type LedgerEvent = StoredEvent<PostingEvent>;
/** an opening or an admin's correcting entry: dated by the event itself */
const isAdjustment = (e: LedgerEvent): e is StoredEvent<LedgerAdjustmentEvent> =>
  e.type === 'HoldingOpeningBooked' || e.type === 'LedgerAdjustmentBooked';

/** The merchant id the suspense's postings are kept under: the platform's own ledger, no merchant's balances. */
export const platformLedger = '00000000-0000-0000-0000-000000000000';
/** The merchant id the hand transfers' postings are kept under (their own stream, so their own revisions). */
export const platformTransfersLedger = '00000000-0000-0000-0000-000000000001';
/** The merchant id the openings' and correcting entries' postings are kept under (gateway-ledger-adjustments). */
export const platformAdjustmentsLedger = '00000000-0000-0000-0000-000000000002';

const ledgerTypes = [
  'GatewayPaymentCredited',
  'BalanceSettled',
  'WithdrawalRequested',
  'WithdrawalPaid',
  'WithdrawalRejected',
  'GatewaySuspenseAllocated',
  'SuspenseCreditReceived',
  'SuspenseCreditRefunded',
  'HoldingTransferRecorded',
  'HoldingTransferCreditReleased',
  'HoldingOpeningBooked',
  'LedgerAdjustmentBooked',
] as const;
const ownerOf = (e: LedgerEvent) =>
  'merchantId' in e.data
    ? e.data.merchantId
    : e.type === 'HoldingTransferRecorded' || e.type === 'HoldingTransferCreditReleased'
      ? platformTransfersLedger
      : isAdjustment(e)
        ? platformAdjustmentsLedger
        : platformLedger;

/** The event's own time: a credit is booked on the day its payment completed, the rest when they were decided. */
function occurredAt(e: LedgerEvent): string {
  switch (e.type) {
    case 'SuspenseCreditReceived':
      return e.data.receivedAt;
    case 'SuspenseCreditRefunded':
      return e.data.refundedAt;
    case 'HoldingTransferRecorded':
      return e.data.recordedAt;
    case 'HoldingTransferCreditReleased':
      return e.data.releasedAt;
    case 'GatewaySuspenseAllocated':
      return e.data.allocatedAt;
    case 'GatewayPaymentCredited':
      return e.data.completedAt;
    case 'BalanceSettled':
      return e.data.settledAt;
    case 'WithdrawalRequested':
      return e.data.requestedAt;
    case 'WithdrawalPaid':
      return e.data.paidAt;
    case 'WithdrawalRejected':
      return e.data.rejectedAt;
    case 'HoldingOpeningBooked':
    case 'LedgerAdjustmentBooked':
      return e.data.effectiveAt;
  }
}

/** The payment or withdrawal a posting is about; a settlement (many payments) is named by its event id. */
function referenceOf(e: LedgerEvent): string {
  if (e.type === 'HoldingTransferRecorded' || e.type === 'HoldingTransferCreditReleased') return e.data.transferId;
  if (isAdjustment(e)) return e.data.entryId;
  if (e.type === 'GatewayPaymentCredited') return e.data.paymentId;
  if (e.type === 'BalanceSettled') return e.metadata.eventId;
  if (
    e.type === 'GatewaySuspenseAllocated' ||
    e.type === 'SuspenseCreditReceived' ||
    e.type === 'SuspenseCreditRefunded'
  )
    return e.data.suspenseId;
  return e.data.withdrawalId;
}

/** Each merchant's change of pending, settled and onHold (positive: owed more), summed over the events. */
function balanceChanges(events: LedgerEvent[]) {
  const changes = new Map<string, { merchantId: string; pending: number; settled: number; onHold: number }>();
  for (const e of events) {
    if (!('merchantId' in e.data)) continue; // the platform's suspense: no merchant's balances
    const m = e.data.merchantId;
    const change = changes.get(m) ?? { merchantId: m, pending: 0, settled: 0, onHold: 0 };
    for (const p of e.data.postings) {
      if (p.account === ledgerAccount.pending(m)) change.pending -= p.amount;
      else if (p.account === ledgerAccount.settled(m)) change.settled -= p.amount;
      else if (p.account === ledgerAccount.onHold(m)) change.onHold -= p.amount;
    }
    changes.set(m, change);
  }
  return [...changes.values()];
}

// where the reports place a posting inserted: the closes projected so far (gateway-ledger-placement.ts)
const placedOnInsert = reportedAtOnInsert({
  effectiveAt: 'p."effectiveAt"',
  positionCommit: 'p.commit',
  positionPrepare: 'p.prepare',
});

/** What every type's statement does first: its postings, each merchant's balances, the holding accounts' cash. */
const common = `
    with posted as (
      insert into gateway_postings (position_commit, position_prepare, stream_revision, merchant_id, event_type, reference_id, account, amount, occurred_at,
        effective_at, recorded_at, reported_at)
      select commit, prepare, revision, "merchantId", type, reference, account, amount, "occurredAt", "effectiveAt", "recordedAt",
        ${placedOnInsert}
      from jsonb_to_recordset($1::jsonb) as p(commit bigint, prepare bigint, revision bigint, "merchantId" uuid, type text, reference text,
        account text, amount bigint, "occurredAt" timestamptz, "effectiveAt" timestamptz, "recordedAt" timestamptz)
      on conflict do nothing
    ), balanced as (
      insert into gateway_balances (merchant_id, pending, settled, on_hold)
      select "merchantId", pending, settled, "onHold" from jsonb_to_recordset($2::jsonb) as b("merchantId" uuid, pending bigint, settled bigint, "onHold" bigint)
      on conflict (merchant_id) do update set pending = gateway_balances.pending + excluded.pending,
        settled = gateway_balances.settled + excluded.settled, on_hold = gateway_balances.on_hold + excluded.on_hold
    ), cash as (
      insert into gateway_cash (account_id, balance)
      select substr(account, 9), sum(amount) from jsonb_to_recordset($1::jsonb) as p(account text, amount bigint)
      where account like 'holding:%' group by account
      on conflict (account_id) do update set balance = gateway_cash.balance + excluded.balance
    )`;

/** The events' postings as rows of gateway_postings, each with its event's place, owner and times. */
const postingRows = (events: LedgerEvent[]) =>
  events.flatMap(e =>
    e.data.postings.map(p => ({
      commit: String(e.position.commit),
      prepare: String(e.position.prepare),
      revision: e.revision,
      merchantId: ownerOf(e),
      type: e.type,
      reference: referenceOf(e),
      account: p.account,
      amount: p.amount,
      occurredAt: occurredAt(e),
      effectiveAt: isAdjustment(e) ? e.data.effectiveAt : effectiveAt(e),
      recordedAt: e.metadata.occurredAt,
    })),
  );

function settledStatement(events: LedgerEvent[], params: string[]): Statement {
  // a settlement takes every credit of its merchant completed before its cutoff, and the read model holds exactly
  // the credits its stream had before it (events apply in order): deleted by merchant and cutoff, an index range,
  // rather than by the payment ids the event lists (100,000 of them parsed at midnight)
  return {
    name: 'ProjectGatewayBalancesSettled',
    sql: `${common}
      delete from gateway_unsettled u using jsonb_to_recordset($3::jsonb) as s("merchantId" uuid, cutoff timestamptz)
      where u.merchant_id = s."merchantId" and u.completed_at < s.cutoff`,
    params: [
      ...params,
      JSON.stringify(
        events.flatMap(e =>
          e.type === 'BalanceSettled' ? [{ merchantId: e.data.merchantId, cutoff: e.data.cutoff }] : [],
        ),
      ),
    ],
  };
}

function withdrawalOutcomesStatement(
  type: 'WithdrawalPaid' | 'WithdrawalRejected',
  events: LedgerEvent[],
  params: string[],
): Statement {
  const outcomes = events.map(e =>
    e.type === 'WithdrawalPaid'
      ? {
          id: e.data.withdrawalId,
          status: 'PAID',
          by: e.data.paidBy,
          at: e.data.paidAt,
          reference: e.data.reference,
          note: null,
          holderName: e.data.holderName ?? null,
          holderOverride: e.data.holderOverride ?? null,
        }
      : e.type === 'WithdrawalRejected'
        ? {
            id: e.data.withdrawalId,
            status: 'REJECTED',
            by: e.data.rejectedBy,
            at: e.data.rejectedAt,
            reference: null,
            note: e.data.note,
            holderName: null,
            holderOverride: null,
          }
        : null,
  );
  return {
    name: type === 'WithdrawalPaid' ? 'ProjectGatewayWithdrawalsPaid' : 'ProjectGatewayWithdrawalsRejected',
    sql: `${common}
      update gateway_withdrawals w set status = o.status, processed_by = o.by, processed_at = o.at, reference = o.reference, note = o.note,
        paid_holder_name = o."holderName", holder_override = o."holderOverride"
      from jsonb_to_recordset($3::jsonb) as o(id uuid, status text, by uuid, at timestamptz, reference text, note text,
        "holderName" text, "holderOverride" jsonb)
      where w.id = o.id and w.status = 'REQUESTED'`,
    params: [...params, JSON.stringify(outcomes)],
  };
}

/**
 * Events of one type as one statement, whatever their number: their postings, each merchant's balances, and what the
 * type changes besides (a settlement deletes its payments' unsettled rows by id: one statement, not one per payment).
 */
function ledgerStatement(events: LedgerEvent[]): Statement {
  const type = events[0]!.type;
  const params = [JSON.stringify(postingRows(events)), JSON.stringify(balanceChanges(events))];
  const data = JSON.stringify(events.map(e => e.data));
  switch (type) {
    case 'SuspenseCreditReceived':
    case 'SuspenseCreditRefunded':
      // the postings (and the holding account's cash) only: the items are the gateway-suspense read model's
      return {
        name: type === 'SuspenseCreditReceived' ? 'ProjectSuspenseCreditsReceived' : 'ProjectSuspenseCreditsRefunded',
        sql: `${common} select 1`,
        params,
      };
    case 'HoldingTransferRecorded':
      // the postings (both accounts' cash) only: the transfers are the holding-transfers read model's
      return { name: 'ProjectHoldingTransfersRecorded', sql: `${common} select 1`, params };
    case 'HoldingTransferCreditReleased':
      // the postings (the destination's cash) only
      return { name: 'ProjectHoldingTransferCreditsReleased', sql: `${common} select 1`, params };
    case 'HoldingOpeningBooked':
    case 'LedgerAdjustmentBooked':
      // the postings (the account's cash) only: the entries are the ledger-adjustments read model's
      return { name: `Project${type}`, sql: `${common} select 1`, params };
    case 'GatewaySuspenseAllocated':
      return {
        name: 'ProjectGatewaySuspenseAllocated',
        sql: `${common}
          insert into gateway_unsettled (payment_id, merchant_id, net, completed_at)
          select "suspenseId", "merchantId", net, "allocatedAt" from jsonb_to_recordset($3::jsonb) as c("suspenseId" uuid, "merchantId" uuid, net bigint, "allocatedAt" timestamptz)
          on conflict do nothing`,
        params: [...params, data],
      };
    case 'GatewayPaymentCredited':
      // completed_at is the time the credit settles by: when its money moved, where the event says (as the ledger's Credits)
      return {
        name: 'ProjectGatewayPaymentsCredited',
        sql: `${common}
          insert into gateway_unsettled (payment_id, merchant_id, net, completed_at)
          select "paymentId", "merchantId", net, coalesce("paidAt", "completedAt") from jsonb_to_recordset($3::jsonb)
            as c("paymentId" uuid, "merchantId" uuid, net bigint, "completedAt" timestamptz, "paidAt" timestamptz)
          on conflict do nothing`,
        params: [...params, data],
      };
    case 'BalanceSettled':
      return settledStatement(events, params);
    case 'WithdrawalRequested':
      return {
        name: 'ProjectGatewayWithdrawalsRequested',
        sql: `${common}
          insert into gateway_withdrawals (id, merchant_id, amount, bank_code, account_number, account_holder_name, status, requested_by, requested_at, checked_holder_name)
          select "withdrawalId", "merchantId", amount, "bankCode", "accountNumber", "accountHolderName", 'REQUESTED', "requestedBy", "requestedAt", "holderName"
          from jsonb_to_recordset($3::jsonb) as w("withdrawalId" uuid, "merchantId" uuid, amount bigint, "bankCode" text, "accountNumber" text,
            "accountHolderName" text, "requestedBy" uuid, "requestedAt" timestamptz, "holderName" text)
          on conflict do nothing`,
        params: [...params, data],
      };
    case 'WithdrawalPaid':
    case 'WithdrawalRejected':
      return withdrawalOutcomesStatement(type, events, params);
  }
}

/**
 * The gateway's double-entry ledger as finance and the merchants read it: every posting (for trial balances by day
 * and per merchant), each merchant's balances, the credits waiting for settlement (the settler's work list) and the
 * withdrawals. Amounts owed are positive here; `settled` is the ledger's settled account, which is what is available.
 */
export const gatewayLedgerProjection = projection({
  name: 'gateway-ledger',
  tables: [
    'gateway_postings',
    'gateway_balances',
    'gateway_unsettled',
    'gateway_withdrawals',
    'gateway_cash',
    ledgerClosesTable,
  ],
  schema: [
    `
    create table if not exists gateway_postings (
      position_commit bigint not null,
      position_prepare bigint not null,
      stream_revision bigint not null,
      merchant_id uuid not null,
      event_type text not null,
      reference_id text not null,
      account text not null,
      amount bigint not null,
      occurred_at timestamptz not null,
      primary key (merchant_id, stream_revision, account)
    );
    create index if not exists gateway_postings_by_day on gateway_postings (occurred_at);
    create index if not exists gateway_postings_by_merchant on gateway_postings (merchant_id, occurred_at);
    create table if not exists gateway_balances (
      merchant_id uuid primary key,
      pending bigint not null,
      settled bigint not null,
      on_hold bigint not null
    );
    create table if not exists gateway_unsettled (
      payment_id uuid primary key,
      merchant_id uuid not null,
      net bigint not null,
      completed_at timestamptz not null
    );
    create index if not exists gateway_unsettled_due on gateway_unsettled (completed_at, merchant_id);
    create table if not exists gateway_withdrawals (
      id uuid primary key,
      merchant_id uuid not null,
      amount bigint not null,
      bank_code text not null,
      account_number text not null,
      account_holder_name text not null,
      status text not null,
      requested_by uuid not null,
      requested_at timestamptz not null,
      processed_by uuid,
      processed_at timestamptz,
      reference text,
      note text
    );
    create index if not exists gateway_withdrawals_by_merchant on gateway_withdrawals (merchant_id, requested_at);
    create index if not exists gateway_withdrawals_by_status on gateway_withdrawals (status, requested_at);`,
    // 2: the holder the provider's inquiry named when it was requested (null: not checked)
    `alter table gateway_withdrawals add column if not exists checked_holder_name text;`,
    // 3: each platform account's cash as the ledger has it: the sum of its holding:<id> postings
    `create table if not exists gateway_cash (
      account_id text primary key,
      balance bigint not null
    );
    -- read models from before the table: its rows from the postings, once (empty table, postings there)
    insert into gateway_cash (account_id, balance)
    select substr(account, 9), sum(amount) from gateway_postings
    where account like 'holding:%' and not exists (select 1 from gateway_cash) group by account
    on conflict do nothing;`,
    // 4: what a payout recorded of the holder: the bank's answer it was paid on, and an admin's override of a mismatch
    `alter table gateway_withdrawals add column if not exists paid_holder_name text;
    alter table gateway_withdrawals add column if not exists holder_override jsonb;`,
    // 5: each posting's effective time (when the money moved: src/domain/ledger-time.ts) and when it was recorded; rows
    // from before take their event's own time for both (what the events had), a settlement its WIB day's 00:00 (its
    // cutoff when it ran on time); rebuild-read-models gives every row its exact times
    `alter table gateway_postings add column if not exists effective_at timestamptz, add column if not exists recorded_at timestamptz;
    update gateway_postings set recorded_at = occurred_at,
      effective_at = case when event_type = 'BalanceSettled'
        then date_trunc('day', occurred_at at time zone 'Asia/Jakarta') at time zone 'Asia/Jakarta' else occurred_at end
    where effective_at is null;
    alter table gateway_postings alter column effective_at set not null, alter column recorded_at set not null;
    create index if not exists gateway_postings_by_effective on gateway_postings (effective_at);`,
    // 6: one account's postings up to a time (a merchant's or a holding account's balance history, the tie's ledger cash)
    `create index if not exists gateway_postings_by_account on gateway_postings (account, effective_at);`,
    // 7: where the reports place each posting (reported_at: its effective time, or the first open month a close sent it
    // to), kept with the closes as the ledger has projected them (gateway-ledger-placement.ts)
    placementStep,
    // 8: no query reads postings by occurred_at (the reports and balances read reported_at or effective_at): the two
    // indexes on it go (test/db/indexes.int.test.ts names the query of each index kept)
    `drop index if exists gateway_postings_by_day;
    drop index if exists gateway_postings_by_merchant;`,
    // 9: the reports and the balance histories place postings by reported_at (step 7's indexes): the effective-time
    // indexes serve no query
    `drop index if exists gateway_postings_by_effective;
    drop index if exists gateway_postings_by_account;`,
  ],
  on: {
    ...perType(ledgerTypes, async (tx: pg.PoolClient, event: LedgerEvent) => {
      const statement = ledgerStatement([event]);
      await preparedQuery(tx, statement.name, statement.sql, statement.params);
    }),
    GatewayPeriodClosed: (tx, { data, metadata }) =>
      placeClose(tx, { eventId: metadata.eventId, period: data.period, through: data.through }),
    GatewayPeriodReopened: (tx, { data, position }) => recordReopening(tx, data.period, position),
  },
  // the settler appends a run of BalanceSettled, a busy hour a run of credits: each run is one statement
  applyRun: perType(ledgerTypes, ledgerStatement),
});

/** The API's balance of a merchant (zeros before their first credit): settled counts what withdrawals hold. */
export async function findGatewayBalance(db: Queryable, merchantId: string): Promise<MerchantBalance> {
  const r = await preparedQuery<{ pending: number; settled: number; on_hold: number }>(
    db,
    'FindGatewayBalance',
    'select pending, settled, on_hold from gateway_balances where merchant_id = $1',
    [merchantId],
  );
  const row = r.rows[0] ?? { pending: 0, settled: 0, on_hold: 0 };
  return { settled: row.settled + row.on_hold, pending: row.pending, onHold: row.on_hold, available: row.settled };
}

export type GatewayWithdrawalRow = {
  id: string;
  merchant_id: string;
  amount: number;
  bank_code: string;
  account_number: string;
  account_holder_name: string;
  status: WithdrawalStatus;
  requested_by: string;
  requested_at: Date;
  processed_by: string | null;
  processed_at: Date | null;
  reference: string | null;
  note: string | null;
  checked_holder_name: string | null;
  /** the bank's answer the payout was made on (null: not paid, or never asked) */
  paid_holder_name: string | null;
  /** an admin paid although the bank named someone else */
  holder_override: { reason: string; by: string } | null;
};

export async function findGatewayWithdrawal(db: Queryable, withdrawalId: string): Promise<GatewayWithdrawalRow | null> {
  const r = await preparedQuery<GatewayWithdrawalRow>(
    db,
    'FindGatewayWithdrawal',
    'select * from gateway_withdrawals where id = $1',
    [withdrawalId],
  );
  return r.rows[0] ?? null;
}

/**
 * Another withdrawal paid with this reference (`normalised`: trimmed, upper case), from the read model: payouts
 * recorded before references were claimed on their own stream have no claim to refuse a reuse.
 */
export async function findWithdrawalPaidWith(
  db: Queryable,
  normalised: string,
  withdrawalId: string,
): Promise<string | null> {
  const r = await preparedQuery<{ id: string }>(
    db,
    'FindWithdrawalPaidWithReference',
    `select id from gateway_withdrawals where status = 'PAID' and upper(btrim(reference)) = $1 and id <> $2 limit 1`,
    [normalised, withdrawalId],
  );
  return r.rows[0]?.id ?? null;
}

/** Withdrawals newest first: one merchant's (the dashboard), or everyone's (the admin console), optionally of one status. */
export async function listGatewayWithdrawals(
  db: Queryable,
  filter: { merchantId?: string; status?: WithdrawalStatus },
): Promise<GatewayWithdrawalRow[]> {
  const r = await preparedQuery<GatewayWithdrawalRow>(
    db,
    'ListGatewayWithdrawals',
    `select * from gateway_withdrawals where ($1::uuid is null or merchant_id = $1) and ($2::text is null or status = $2)
     order by requested_at desc, id desc limit 500`,
    [filter.merchantId ?? null, filter.status ?? null],
  );
  return r.rows;
}

/** A platform account's cash as the ledger has it (0: it never received gateway money). */
export async function findHoldingCash(db: Queryable, accountId: string): Promise<number> {
  const r = await preparedQuery<{ balance: number }>(
    db,
    'FindHoldingCash',
    'select balance from gateway_cash where account_id = $1',
    [accountId],
  );
  return r.rows[0]?.balance ?? 0;
}

/** The platform account with the most cash in the ledger (none: null). */
export async function richestHoldingAccount(db: Queryable): Promise<string | null> {
  const r = await preparedQuery<{ account_id: string }>(
    db,
    'FindRichestHoldingAccount',
    'select account_id from gateway_cash order by balance desc, account_id limit 1',
    [],
  );
  return r.rows[0]?.account_id ?? null;
}

/** Merchants with credits completed before `cutoff` still unsettled (the settler's work list: it only names streams). */
export async function merchantsWithDueCredits(db: Queryable, cutoff: Date, limit: number): Promise<string[]> {
  const r = await preparedQuery<{ merchant_id: string }>(
    db,
    'FindMerchantsWithDueCredits',
    'select distinct merchant_id from gateway_unsettled where completed_at < $1 limit $2',
    [cutoff, limit],
  );
  return r.rows.map(row => row.merchant_id);
}

/** Every platform account's cash as the ledger has it, by account id. */
export async function holdingCashByAccount(db: Queryable): Promise<Map<string, number>> {
  const r = await preparedQuery<{ account_id: string; balance: number }>(
    db,
    'ListHoldingCash',
    'select account_id, balance from gateway_cash',
    [],
  );
  return new Map(r.rows.map(row => [row.account_id, row.balance]));
}
