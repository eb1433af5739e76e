import { query, type Queryable } from '../db/pool.ts';
import { holderNamesMatch } from '../domain/holder-name.ts';
import { withdrawalPayoutStream } from '../domain/withdrawal-payout.ts';
import type { EventStore } from '../store/event-store.ts';
import type { ReconciliationPeriod } from './gateway-reconciliation.ts';
import { reportedAtSql } from './ledger-periods.ts';
import { accountNames, accountNamesOf, merchantNames, merchantNamesOf, type MerchantNames } from './report-names.ts';
import { streamEvents } from './stream-pages.ts';

/**
 * The payouts of a period as finance reconciles them with the banks: each withdrawal paid (placed by the reports' one
 * rule, ledger-periods.ts: when its money left), the platform account it left, the destination, the holder the merchant
 * asked for and the one the bank's inquiry answered (and an admin's override of a mismatch), the channel it was paid
 * through (`/pay`: a transfer through WALLET-A made by the service; `/paid`: a transfer made elsewhere and recorded by
 * an admin) and the WALLET-A transfers attempted for it, each with its outcome (the withdrawal's payout stream).
 */

export type PayoutChannel = '/pay' | '/paid';
export type PayoutAttempt = {
  transferId: string;
  accountId: string | null;
  startedAt: string | null;
  startedBy: string | null;
  /** IN_FLIGHT: begun, no outcome recorded (the payout of another transfer, or of `/paid`, came after) */
  outcome: 'PAID' | 'FAILED' | 'UNCONFIRMED' | 'IN_FLIGHT';
  reason: string | null;
  failedAt: string | null;
};
export type PayoutRow = {
  withdrawalId: string;
  merchantId: string;
  amount: number;
  reference: string | null;
  /** when the money left the source (the ledger's effective time), and when the payout was recorded */
  paidAt: string;
  recordedAt: string;
  paidBy: string | null;
  channel: PayoutChannel;
  /** the platform account the money left (null: a payout from before the ledger named it, `bank:payouts`) */
  sourceAccountId: string | null;
  sourceProviderCode: string | null;
  sourceAccountName: string | null;
  bankCode: string;
  accountNumber: string;
  holderAsked: string;
  /** the bank's answer the payout was made on, else the one at the request (null: never asked) */
  holderAnswered: string | null;
  holderMatches: boolean | null;
  holderOverride: { reason: string; by: string } | null;
  attempts: PayoutAttempt[];
} & MerchantNames;
export type PayoutReport = {
  period: { from: string; to: string; timeZone: 'Asia/Jakarta'; startsAt: string; endsAt: string };
  payouts: PayoutRow[];
  total: { payouts: number; amount: number; byChannel: { channel: PayoutChannel; payouts: number; amount: number }[] };
};

/** The WALLET-A transfers attempted for one withdrawal, from its payout stream, the one that paid it marked PAID. */
export async function payoutAttempts(
  store: EventStore,
  withdrawalId: string,
  paidWith: string | null,
): Promise<PayoutAttempt[]> {
  const attempts: PayoutAttempt[] = [];
  const of = (transferId: string) => {
    const found = [...attempts].reverse().find(a => a.transferId === transferId);
    if (found) return found;
    const added: PayoutAttempt = {
      transferId,
      accountId: null,
      startedAt: null,
      startedBy: null,
      outcome: 'IN_FLIGHT',
      reason: null,
      failedAt: null,
    };
    attempts.push(added);
    return added;
  };
  for await (const event of streamEvents(store, withdrawalPayoutStream(withdrawalId))) {
    const d = event.data as Record<string, string>;
    if (event.type === 'WithdrawalPayoutStarted') {
      const attempt = of(d.transferId!);
      Object.assign(attempt, { accountId: d.accountId, startedAt: d.startedAt, startedBy: d.startedBy });
    } else if (event.type === 'WithdrawalPayoutFailed') {
      Object.assign(of(d.transferId!), { outcome: d.outcome, reason: d.reason, failedAt: d.failedAt });
    }
  }
  // an unconfirmed transfer asked again may have paid after all: the payout names it as its reference
  for (const attempt of attempts)
    if (attempt.transferId === paidWith && attempt.outcome !== 'FAILED') attempt.outcome = 'PAID';
  return attempts;
}

const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const reading = 8; // payout streams read at once

export async function payoutReport(
  sources: { pool: Queryable; store: EventStore },
  period: ReconciliationPeriod,
): Promise<PayoutReport> {
  const at = reportedAtSql('g');
  const r = await query<
    Omit<
      PayoutRow,
      'channel' | 'sourceProviderCode' | 'sourceAccountName' | 'attempts' | 'holderMatches' | keyof MerchantNames
    >
  >(
    sources.pool,
    'ReportGatewayPayouts',
    `with paid as (
       select g.merchant_id, min(g.reference_id) as withdrawal_id, min(${at}) as at, min(g.recorded_at) as recorded_at,
         min(substr(g.account, 9)) filter (where g.account like 'holding:%') as source
       from gateway_postings g where g.event_type = 'WithdrawalPaid' and ${at} >= $1 and ${at} < $2
       group by g.merchant_id, g.stream_revision
     )
     select p.withdrawal_id as "withdrawalId", p.merchant_id::text as "merchantId", w.amount, w.reference,
       ${utc('p.at')} as "paidAt", ${utc('p.recorded_at')} as "recordedAt", w.processed_by::text as "paidBy",
       p.source as "sourceAccountId", w.bank_code as "bankCode", w.account_number as "accountNumber",
       w.account_holder_name as "holderAsked", coalesce(w.paid_holder_name, w.checked_holder_name) as "holderAnswered",
       w.holder_override as "holderOverride"
     from paid p join gateway_withdrawals w on w.id::text = p.withdrawal_id
     order by p.at, p.withdrawal_id`,
    [period.startsAt, period.endsAt],
  );
  const merchants = await merchantNames(
    sources.pool,
    r.rows.map(p => p.merchantId),
  );
  const accounts = await accountNames(
    sources.pool,
    r.rows.flatMap(p => (p.sourceAccountId ? [p.sourceAccountId] : [])),
  );
  const payouts: PayoutRow[] = [];
  const one = async (p: (typeof r.rows)[number]): Promise<PayoutRow> => {
    const attempts = await payoutAttempts(sources.store, p.withdrawalId, p.reference);
    const source = accountNamesOf(accounts, p.sourceAccountId);
    return {
      ...p,
      amount: Number(p.amount),
      ...merchantNamesOf(merchants, p.merchantId),
      channel: attempts.some(a => a.transferId === p.reference) ? '/pay' : '/paid',
      sourceProviderCode: source.providerCode,
      sourceAccountName: source.accountName,
      holderMatches: p.holderAnswered === null ? null : holderNamesMatch(p.holderAsked, p.holderAnswered),
      attempts,
    };
  };
  for (let i = 0; i < r.rows.length; i += reading)
    payouts.push(...(await Promise.all(r.rows.slice(i, i + reading).map(one))));
  const byChannel = (['/pay', '/paid'] as const).map(channel => {
    const of = payouts.filter(p => p.channel === channel);
    return { channel, payouts: of.length, amount: of.reduce((t, p) => t + p.amount, 0) };
  });
  return {
    period: {
      from: period.from,
      to: period.to,
      timeZone: 'Asia/Jakarta',
      startsAt: period.startsAt.toISOString(),
      endsAt: period.endsAt.toISOString(),
    },
    payouts,
    total: { payouts: payouts.length, amount: payouts.reduce((t, p) => t + p.amount, 0), byChannel },
  };
}
