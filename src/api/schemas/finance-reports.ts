import { z } from 'zod';
import type { BalanceHistory } from '../../audit/gateway-balance-history.ts';
import type { PayoutReport } from '../../audit/gateway-payout-report.ts';
import type { GatewayRevenue } from '../../audit/gateway-revenue.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, type NamesAll } from './payments.ts';

/**
 * The finance reports beside the reconciliation (src/api/finance-reports.ts): balance history, revenue by method and
 * merchant, the payouts. Names stand beside every id (null when the read models do not know the id).
 */

const instant = z.iso.datetime({ offset: true });
const rupiah = z.int();
const date = z.iso.date();
const uuid = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const accountId = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const period = z.object({
  from: date,
  to: date,
  timeZone: z.literal('Asia/Jakarta'),
  startsAt: instant,
  endsAt: instant,
});
const periodExample = {
  from: '2026-01-05',
  to: '2026-01-05',
  timeZone: 'Asia/Jakarta',
  startsAt: '2026-01-04T17:00:00.000Z',
  endsAt: '2026-01-05T17:00:00.000Z',
};
const merchantNames = {
  merchantName: z
    .string()
    .nullable()
    .describe("The merchant's business name (its own name when it never asked for gateway access)"),
  merchantEmail: z.string().nullable(),
};
const accountNames = { providerCode: z.string().nullable(), accountName: z.string().nullable() };

const historyFigures = {
  account: z.string().describe('The ledger account: merchant:<id>:pending|settled|onHold or holding:<accountId>'),
  balance: z.enum(['pending', 'settled', 'onHold', 'cash']),
  postings: z.int(),
  opening: rupiah.describe("The ledger's sign: debit positive, what the platform owes a merchant negative"),
  debits: rupiah,
  credits: rupiah.describe('As a positive number'),
  closing: rupiah.describe('opening + debits - credits: the next day’s opening'),
};
export const balanceHistory = z
  .object({
    period,
    subject: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('merchant'), merchantId: z.uuid(), ...merchantNames }),
      z.object({ kind: z.literal('holdingAccount'), holdingAccountId: z.uuid(), ...accountNames }),
    ]),
    accounts: z
      .array(z.object({ ...historyFigures, consistent: z.boolean() }))
      .describe('The whole period per account; consistent: the days carried end at the closing summed on its own'),
    days: z.array(z.object({ day: date, ...historyFigures })).describe('One row per WIB day and account'),
    consistent: z.boolean(),
  })
  .meta({
    id: 'GatewayBalanceHistory',
    description: "A merchant's or a holding account's balances day by day (WIB), placed by when the money moved",
    examples: [
      {
        period: periodExample,
        subject: {
          kind: 'holdingAccount',
          holdingAccountId: accountId,
          providerCode: 'WALLET-D',
          accountName: 'QRIS Toko',
        },
        accounts: [
          {
            account: `holding:${accountId}`,
            balance: 'cash',
            postings: 2,
            opening: 100_000,
            debits: 150_123,
            credits: 60_000,
            closing: 190_123,
            consistent: true,
          },
        ],
        days: [
          {
            day: '2026-01-05',
            account: `holding:${accountId}`,
            balance: 'cash',
            postings: 2,
            opening: 100_000,
            debits: 150_123,
            credits: 60_000,
            closing: 190_123,
          },
        ],
        consistent: true,
      },
    ],
  });

const revenueFigures = {
  payments: z.int().describe('Completed payments credited'),
  allocations: z.int().describe('Suspense credits allocated'),
  gross: rupiah.describe('What the buyers paid: fees + uniqueCodes + net'),
  fees: rupiah,
  uniqueCodes: rupiah.describe(
    'The unique codes the buyers paid on top of their bills: the platform’s, apart from fees',
  ),
  revenue: rupiah.describe('fees + uniqueCodes'),
  net: rupiah.describe('What the merchants were credited'),
};
const figuresExample = {
  payments: 1,
  allocations: 0,
  gross: 150_123,
  fees: 1_050,
  uniqueCodes: 123,
  revenue: 1_173,
  net: 148_950,
};
export const gatewayRevenue = z
  .object({
    period,
    byMethod: z.array(
      z.object({
        method: z.string().nullable().describe('QRIS-DYNAMIC, VA-BANK1, …; null: suspense allocated without a payment'),
        ...revenueFigures,
      }),
    ),
    byMerchant: z.array(z.object({ merchantId: z.uuid(), ...merchantNames, ...revenueFigures })),
    total: z.object(revenueFigures),
  })
  .meta({
    id: 'GatewayRevenue',
    description: "The platform's fees and unique-code income by payment method and by merchant",
    examples: [
      {
        period: periodExample,
        byMethod: [{ method: 'QRIS-DYNAMIC', ...figuresExample }],
        byMerchant: [
          { merchantId: uuid, merchantName: 'Toko Maju', merchantEmail: 'toko@example.com', ...figuresExample },
        ],
        total: figuresExample,
      },
    ],
  });

const channel = z.enum(['/pay', '/paid']);
const payoutAttempt = z.object({
  transferId: z.uuid(),
  accountId: z.uuid().nullable(),
  startedAt: instant.nullable(),
  startedBy: z.uuid().nullable(),
  outcome: z.enum(['PAID', 'FAILED', 'UNCONFIRMED', 'IN_FLIGHT']).describe('IN_FLIGHT: begun, no outcome recorded'),
  reason: z.string().nullable(),
  failedAt: instant.nullable(),
});
export const payoutReport = z
  .object({
    period,
    payouts: z.array(
      z.object({
        withdrawalId: z.uuid(),
        merchantId: z.uuid(),
        ...merchantNames,
        amount: rupiah,
        reference: z.string().nullable(),
        paidAt: instant.describe('When the money left the source account'),
        recordedAt: instant,
        paidBy: z.uuid().nullable(),
        channel: channel.describe(
          '/pay: a WALLET-A transfer made by the service; /paid: made elsewhere, recorded by an admin',
        ),
        sourceAccountId: z
          .uuid()
          .nullable()
          .describe('The platform account the money left (null: before the ledger named it)'),
        sourceProviderCode: z.string().nullable(),
        sourceAccountName: z.string().nullable(),
        bankCode: z.string(),
        accountNumber: z.string(),
        holderAsked: z.string(),
        holderAnswered: z
          .string()
          .nullable()
          .describe("The bank inquiry's holder the payout was made on (null: never asked)"),
        holderMatches: z.boolean().nullable(),
        holderOverride: z.object({ reason: z.string(), by: z.uuid() }).nullable(),
        attempts: z.array(payoutAttempt).describe('The WALLET-A transfers attempted, in order'),
      }),
    ),
    total: z.object({
      payouts: z.int(),
      amount: rupiah,
      byChannel: z.array(z.object({ channel, payouts: z.int(), amount: rupiah })),
    }),
  })
  .meta({
    id: 'GatewayPayoutReport',
    description: 'The payouts of a period with their source, destination, holder check, channel and attempts',
    examples: [
      {
        period: periodExample,
        payouts: [],
        total: {
          payouts: 0,
          amount: 0,
          byChannel: [
            { channel: '/pay', payouts: 0, amount: 0 },
            { channel: '/paid', payouts: 0, amount: 0 },
          ],
        },
      },
    ],
  });

const _history: NamesAll<BalanceHistory, z.output<typeof balanceHistory>> = true;
const _revenue: NamesAll<GatewayRevenue['byMerchant'][number], z.output<typeof gatewayRevenue>['byMerchant'][number]> =
  true;
const _payout: NamesAll<PayoutReport['payouts'][number], z.output<typeof payoutReport>['payouts'][number]> = true;

export const financeReportOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/gateway/balance-history': {
    responses: { 200: success('GatewayBalanceHistoryResponse', balanceHistory) },
  },
  'GET /api/admin/gateway/revenue': { responses: { 200: success('GatewayRevenueResponse', gatewayRevenue) } },
  'GET /api/admin/gateway/payout-report': {
    responses: { 200: success('GatewayPayoutReportResponse', payoutReport) },
  },
};
