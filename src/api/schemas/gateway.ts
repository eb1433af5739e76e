import { z } from 'zod';
import { tiedHoldingAccounts } from './provider-tie.ts';
import { holiday, holidayCalendarYear } from '../../domain/working-days.ts';
import type { presentStatementEntry } from '../../projections/gateway-statement.ts';
import { statementTypes } from '../../projections/gateway-statement.ts';
import type { presentWithdrawal } from '../../projections/withdrawal-presenter.ts';
import { accessRequestBody } from '../gateway.ts';
import type { presentSuspense } from '../gateway-suspense.ts';
import { closedMark, priorPeriod } from './gateway-periods.ts';
import { carriedTrialBalance, suspenseAgeing } from './carried-balances.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successCursorPage, successList, successPage, type NamesAll } from './payments.ts';

const instant = z.iso.datetime({ offset: true });
const date = z.string().meta({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
const uuid = '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
const merchant = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const balanceOf = () =>
  z.object({
    settled: z.int().describe('Past H+1 working day (includes onHold)'),
    pending: z.int().describe('Paid, waiting for settlement'),
    onHold: z.int().describe('Locked by withdrawals in progress'),
    available: z.int().describe('Withdrawable now: settled minus onHold'),
  });
const balanceExample = { settled: 500000, pending: 148750, onHold: 100000, available: 400000 };

/** A merchant's gateway access (src/api/gateway.ts presentAccess). */
export const gatewayAccess = z.object({
  status: z.enum(['NONE', 'PENDING', 'APPROVED', 'REJECTED']),
  note: z.string().nullable().describe('Why, when rejected or deactivated'),
  createdAt: instant
    .nullable()
    .describe(
      'When the access was first requested: its creation, kept when a rejected merchant asks again. null while no request was ever made (status NONE), where the interface names no time',
    ),
  requestedAt: instant
    .nullable()
    .describe('When the access was last requested (the request under review while PENDING); null with status NONE'),
  processedAt: instant
    .nullable()
    .describe(
      'When an admin last approved, rejected or deactivated it; null until then, and again while a new request is PENDING',
    ),
  feeToCustomer: z.boolean().describe("true: the fee is added to the buyer's bill"),
});
export const accessExample = {
  status: 'APPROVED',
  note: null,
  createdAt: '2025-05-01T08:00:00.000Z',
  requestedAt: '2025-05-01T08:00:00.000Z',
  processedAt: '2025-05-02T09:00:00.000Z',
  feeToCustomer: false,
};
export const gatewayAccessComponent = gatewayAccess.meta({
  id: 'GatewayAccess',
  description: 'Gateway access of a merchant',
  examples: [accessExample],
});

const overviewShape = {
  access: gatewayAccess,
  walletAccountId: z.literal('GATEWAY'),
  methods: z
    .array(z.object({ value: z.string(), label: z.string() }))
    .describe('Methods the gateway serves now; empty unless approved'),
  balance: balanceOf(),
  fee: z.int().describe('Flat fee per virtual-account payment, rupiah'),
  qrisFee: z
    .object({ rate: z.number(), flat: z.int() })
    .describe('QRIS fee = rate x amount + flat, rounded to a rupiah'),
  minWithdrawal: z.int(),
};
const overviewExample = {
  access: accessExample,
  walletAccountId: 'GATEWAY',
  methods: [
    { value: 'QRIS-DYNAMIC', label: 'QRIS' },
    { value: 'VA-BANK1', label: 'Virtual account BCA (VA-BANK1)' },
  ],
  balance: balanceExample,
  fee: 3000,
  qrisFee: { rate: 0.007, flat: 200 },
  minWithdrawal: 50000,
};
/** The interface's Gateway information (GET /api/v1/gateway). */
export const gatewayOverview = z
  .object(overviewShape)
  .meta({ id: 'GatewayOverview', description: "The interface's Gateway information", examples: [overviewExample] });

export const businessExample = {
  businessName: 'Toko Maju',
  businessType: 'retail',
  phone: '+62 812-3456-7890',
  address: 'Jl. Merdeka 1, Bandung',
  website: 'https://tokomaju.example.com',
  description: null,
};
/** The business data of a merchant's last access request (src/projections/gateway-access.ts, column business). */
export const gatewayBusiness = z
  .object({
    businessName: z.string(),
    businessType: z.string(),
    phone: z.string(),
    address: z.string(),
    website: z.string().nullable(),
    description: z.string().nullable(),
  })
  .meta({
    id: 'GatewayBusiness',
    description: 'The business data a merchant gave with its access request',
    examples: [businessExample],
  });
/** The dashboard's view: the same, with the business data of the last access request. */
export const dashboardGateway = z
  .object({
    ...overviewShape,
    request: gatewayBusiness.nullable().describe('The business data of the last access request; null: none'),
  })
  .meta({
    id: 'DashboardGateway',
    description: "Gateway information with the access request's business data",
    examples: [{ ...overviewExample, request: businessExample }],
  });

/** The access request as the service checks it: the website is an http(s) URL (empty: none). */
const accessRequest = accessRequestBody.extend({
  website: z
    .union([
      z
        .url({ protocol: /^https?$/ })
        .max(2000)
        .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' }),
      z.literal(''),
    ])
    .optional()
    .describe('An http or https URL; empty or absent: none'),
});

/** One entry of the gateway statement (src/projections/gateway-statement.ts presentStatementEntry). */
export const statementEntry = z
  .object({
    id: z.uuid(),
    type: z.enum(statementTypes),
    at: instant,
    amount: z.int().describe('How the entry moved the balance it touched'),
    gross: z
      .int()
      .nullable()
      .optional()
      .describe("A payment's billed amount before its fee (the unique code the buyer paid on top is the platform's)"),
    fee: z.int().nullable().optional(),
    net: z.int().nullable().optional().describe('What the merchant is owed: gross - fee'),
    paymentId: z.uuid().nullable().optional(),
    orderId: z.string().nullable().optional(),
    withdrawalId: z.uuid().optional(),
    balance: balanceOf().describe('The balances after this entry'),
  })
  .meta({
    id: 'StatementEntry',
    description: 'An entry of the gateway statement, with the balances after it',
    examples: [
      {
        id: uuid,
        type: 'PAYMENT',
        at: '2025-06-02T10:05:03.000Z',
        amount: 148750,
        gross: 150000,
        fee: 1250,
        net: 148750,
        paymentId: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
        orderId: 'INV-1001',
        balance: balanceExample,
      },
    ],
  });

const withdrawalShape = {
  id: z.uuid(),
  amount: z.int(),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountHolderName: z.string(),
  status: z.enum(['REQUESTED', 'PAID', 'REJECTED']),
  requestedAt: instant,
  processedAt: instant.nullable(),
  reference: z.string().nullable().describe("The transfer's reference, once paid"),
  note: z.string().nullable().describe('Why, when rejected'),
  holderName: z
    .string()
    .nullable()
    .describe(
      "The destination's holder as the bank named it (at the payout once paid, else at the request); null: not checked",
    ),
  holderMatches: z
    .boolean()
    .nullable()
    .describe(
      'The bank named the requested holder (case, spacing, punctuation, titles and legal forms ignored); false: an admin pays it only with an override; null: not checked',
    ),
};
const withdrawalExample = {
  id: uuid,
  amount: 100000,
  bankCode: 'BCA',
  accountNumber: '1234567890',
  accountHolderName: 'TOKO MAJU',
  status: 'REQUESTED',
  requestedAt: '2025-06-03T08:00:00.000Z',
  processedAt: null,
  reference: null,
  note: null,
  holderName: 'TOKO MAJU',
  holderMatches: true,
};
/** A merchant's withdrawal (src/projections/withdrawal-presenter.ts). */
export const withdrawal = z
  .object(withdrawalShape)
  .meta({ id: 'Withdrawal', description: 'A withdrawal of gateway balance', examples: [withdrawalExample] });

export const requestedWithdrawal = z
  .object({
    id: z.uuid(),
    status: z.literal('REQUESTED'),
    holderName: z.string().nullable().describe('The holder the provider named for the destination; null: not checked'),
    destinationChecked: z.boolean(),
    holderMatches: z
      .boolean()
      .nullable()
      .describe(
        "The bank named the holder asked for (case, spacing, punctuation, titles and legal forms ignored); false: not paid without an admin's override; null: not checked",
      ),
  })
  .meta({
    id: 'RequestedWithdrawal',
    description: 'A withdrawal as requested',
    examples: [
      { id: uuid, status: 'REQUESTED', holderName: 'TOKO MAJU', destinationChecked: true, holderMatches: true },
    ],
  });

/** A withdrawal in the admin console: whose, who processed it, the destination check and the last failed payout. */
export const adminWithdrawal = z
  .object({
    ...withdrawalShape,
    merchantId: z.uuid(),
    processedBy: z.string().nullable(),
    destinationChecked: z.boolean(),
    holderOverride: z
      .object({ reason: z.string(), by: z.uuid() })
      .nullable()
      .describe('Paid although the bank named someone else: the admin and their reason'),
    payoutFailure: z
      .object({ transferId: z.string(), outcome: z.string(), reason: z.string().nullable(), at: instant })
      .nullable(),
  })
  .meta({
    id: 'AdminWithdrawal',
    description: 'A withdrawal as the admin console shows it',
    examples: [
      {
        ...withdrawalExample,
        merchantId: merchant,
        processedBy: null,
        destinationChecked: true,
        holderOverride: null,
        payoutFailure: null,
      },
    ],
  });

/** Money on a holding account no payment claimed (src/api/gateway-suspense.ts presentSuspense). */
export const suspenseCredit = z
  .object({
    id: z.uuid(),
    mutationId: z.uuid(),
    holdingAccountId: z.uuid(),
    amount: z.int(),
    senderName: z.string(),
    reference: z.string().nullable(),
    receivedAt: instant,
    status: z
      .enum(['OPEN', 'ALLOCATED', 'REFUNDED', 'TRANSFERRED'])
      .describe(
        "TRANSFERRED: the destination's side of a hand transfer recorded after the credit arrived (an admin may give it back: OPEN again)",
      ),
    suggestion: z
      .object({
        paymentId: z.uuid(),
        merchantId: z.uuid(),
        reason: z.enum(['VA_NUMBER_IN_REFERENCE', 'LATE_EXACT_PAYMENT']),
      })
      .nullable()
      .describe('While open: the payment it likely was for'),
    allocation: z
      .object({
        merchantId: z.uuid().nullable(),
        paymentId: z.uuid().nullable(),
        fee: z.int().nullable(),
        net: z.int().nullable(),
      })
      .nullable(),
    refundReference: z.string().nullable(),
    note: z.string().nullable(),
    resolvedBy: z.string().nullable(),
    resolvedAt: instant.nullable(),
    untransferred: z
      .object({
        transferId: z.uuid().describe('The hand transfer that had taken it as its destination side'),
        reason: z.string(),
        by: z.uuid(),
        at: instant,
      })
      .nullable()
      .describe('The last time an admin gave it back from a hand transfer (null: never)'),
  })
  .meta({
    id: 'SuspenseCredit',
    description: 'A credit on a holding account that no payment claimed',
    examples: [
      {
        id: uuid,
        mutationId: '0b9e5c3a-6f1d-4e2a-8c7b-1d2e3f4a5b6c',
        holdingAccountId: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
        amount: 150001,
        senderName: 'BUDI SANTOSO',
        reference: '8881012345678',
        receivedAt: '2025-06-02T11:00:00.000Z',
        status: 'OPEN',
        suggestion: {
          paymentId: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
          merchantId: merchant,
          reason: 'VA_NUMBER_IN_REFERENCE',
        },
        allocation: null,
        refundReference: null,
        note: null,
        resolvedBy: null,
        resolvedAt: null,
        untransferred: null,
      },
    ],
  });

/** Finance's reconciliation of a period (src/projections/gateway-reconciliation.ts): its sections, not their rows. */
export const reconciliation = z
  .looseObject({
    period: z.object({ from: date, to: date, timeZone: z.literal('Asia/Jakarta'), startsAt: instant, endsAt: instant }),
    balanced: z.boolean().describe('Every check passed'),
    trialBalance: carriedTrialBalance,
    merchants: z.looseObject({ balanced: z.boolean() }),
    holdingAccounts: tiedHoldingAccounts,
    suspense: z.looseObject({
      open: z.int(),
      allocated: z.int(),
      refunded: z.int(),
      transferred: z
        .int()
        .optional()
        .describe(
          "Credits received in the period taken as a hand transfer's destination side (TRANSFERRED); absent from the reports of months closed before it was counted",
        ),
      ageing: suspenseAgeing,
    }),
    payouts: z.array(z.looseObject({})),
    holdingCredits: z.looseObject({ balanced: z.boolean() }),
    unmatchedCredits: z.array(z.looseObject({})),
    fees: z.looseObject({ balanced: z.boolean() }),
    holidayCalendar: z
      .object({
        missingYears: z
          .array(z.int())
          .describe(
            "Years without a holiday decree that the period's settlements counted (as weekends and every-year holidays only)",
          ),
        warning: z.string().nullable().describe('Says so when a year is missing; null when every decree was in force'),
      })
      .describe("The holiday calendar behind the period's settlements"),
    priorPeriod,
    closed: closedMark,
  })
  .meta({
    id: 'Reconciliation',
    description: "The reconciliation of a period of WIB days (the sections' rows are not detailed here)",
    examples: [
      {
        period: {
          from: '2025-06-01',
          to: '2025-06-30',
          timeZone: 'Asia/Jakarta',
          startsAt: '2025-05-31T17:00:00.000Z',
          endsAt: '2025-06-30T17:00:00.000Z',
        },
        balanced: true,
        trialBalance: {
          balanced: true,
          accounts: [
            {
              account: 'platform:suspense',
              kind: 'suspense',
              opening: -77_777,
              debits: 0,
              credits: 0,
              closing: -77_777,
              consistent: true,
            },
          ],
          kinds: [{ kind: 'suspense', accounts: 1, opening: -77_777, debits: 0, credits: 0, closing: -77_777 }],
        },
        merchants: { balanced: true },
        holdingAccounts: { balanced: true, tied: true, accounts: [] },
        suspense: {
          open: 0,
          allocated: 0,
          refunded: 0,
          transferred: 0,
          ageing: {
            asAt: '2025-06-30T17:00:00.000Z',
            asOfDay: '2025-06-30',
            buckets: [
              { bucket: '0-7', items: 0, amount: 0 },
              { bucket: '8-30', items: 0, amount: 0 },
              { bucket: 'over-30', items: 1, amount: 77_777 },
            ],
            total: { items: 1, amount: 77_777 },
            items: [
              {
                id: '9b2f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
                accountId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
                amount: 77_777,
                senderName: 'BUDI SANTOSO',
                reference: null,
                receivedAt: '2025-05-02T04:00:00.000Z',
                ageDays: 59,
                bucket: 'over-30',
              },
            ],
          },
        },
        payouts: [],
        holdingCredits: { balanced: true },
        unmatchedCredits: [],
        fees: { balanced: true },
        holidayCalendar: { missingYears: [], warning: null },
        priorPeriod: { count: 0, items: [] },
        closed: null,
      },
    ],
  });

/** The settlement calendar in force (src/api/gateway-calendar.ts). */
export const holidayCalendar = z
  .object({
    years: z.array(
      z.object({
        year: z.int(),
        source: z.string(),
        days: z.array(z.object({ date, name: z.string(), kind: holiday.shape.kind })),
        setBy: z.enum(['shipped', 'admin']),
        setAt: instant.nullable(),
      }),
    ),
    missingYears: z
      .array(z.int())
      .describe('Years due without a calendar: counted as weekends and every-year holidays only'),
  })
  .meta({
    id: 'HolidayCalendar',
    description: "The settlement calendar's years in force and the years due that are missing",
    examples: [
      {
        years: [
          {
            year: 2025,
            source: 'SKB 3 Menteri 2025',
            days: [{ date: '2025-08-17', name: 'Hari Kemerdekaan', kind: 'libur-nasional' }],
            setBy: 'shipped',
            setAt: null,
          },
        ],
        missingYears: [2026],
      },
    ],
  });

/** A year's holidays as the service checks them: dates written YYYY-MM-DD (in that year, each once). */
const calendarYearRequest = holidayCalendarYear.extend({ days: z.array(holiday.extend({ date })).max(366) });

const _statement: NamesAll<ReturnType<typeof presentStatementEntry>, z.output<typeof statementEntry>> = true;
const _withdrawal: NamesAll<ReturnType<typeof presentWithdrawal>, z.output<typeof withdrawal>> = true;
const _suspense: NamesAll<ReturnType<typeof presentSuspense>, z.output<typeof suspenseCredit>> = true;

const access = success('GatewayAccessResponse', gatewayAccessComponent);
const oneWithdrawal = success('WithdrawalResponse', withdrawal);
const oneAdminWithdrawal = success('AdminWithdrawalResponse', adminWithdrawal);
const withdrawalRequested = success('RequestedWithdrawalResponse', requestedWithdrawal);
const oneSuspenseCredit = success('SuspenseCreditResponse', suspenseCredit);
const calendar = success('HolidayCalendarResponse', holidayCalendar);

export const gatewayOperations: Record<string, DocumentedOperation> = {
  'GET /api/v1/gateway': { responses: { 200: success('GatewayOverviewResponse', gatewayOverview) } },
  'GET /api/v1/gateway/transactions': { responses: { 200: successPage('StatementEntryListResponse', statementEntry) } },
  'GET /api/dashboard/gateway': { responses: { 200: success('DashboardGatewayResponse', dashboardGateway) } },
  'POST /api/dashboard/gateway/access-request': {
    body: { 'application/json': accessRequest },
    responses: { 201: access },
  },
  'PATCH /api/dashboard/gateway/settings': { responses: { 200: access } },
  'POST /api/dashboard/gateway/withdrawals': {
    responses: { 201: withdrawalRequested },
    links: {
      201: {
        Withdrawal: {
          operation: 'GET /api/dashboard/gateway/withdrawals/{id}',
          parameters: { id: '$response.body#/data/id' },
          description: 'The withdrawal, until it is paid or rejected',
        },
      },
    },
  },
  'GET /api/v1/gateway/withdrawals': { responses: { 200: successCursorPage('WithdrawalPageResponse', withdrawal) } },
  'GET /api/dashboard/gateway/withdrawals': { responses: { 200: successList('WithdrawalListResponse', withdrawal) } },
  'GET /api/dashboard/gateway/withdrawals/{id}': { responses: { 200: oneWithdrawal } },
  'GET /api/admin/gateway/withdrawals': {
    responses: { 200: successList('AdminWithdrawalListResponse', adminWithdrawal) },
  },
  'POST /api/admin/gateway/withdrawals/{id}/pay': { responses: { 200: oneAdminWithdrawal } },
  'POST /api/admin/gateway/withdrawals/{id}/paid': { responses: { 200: oneAdminWithdrawal } },
  'POST /api/admin/gateway/withdrawals/{id}/reject': { responses: { 200: oneAdminWithdrawal } },
  'GET /api/admin/gateway/suspense': { responses: { 200: successList('SuspenseCreditListResponse', suspenseCredit) } },
  'POST /api/admin/gateway/suspense/{id}/allocate': { responses: { 200: oneSuspenseCredit } },
  'POST /api/admin/gateway/suspense/{id}/refund': { responses: { 200: oneSuspenseCredit } },
  'POST /api/admin/gateway/suspense/{id}/untransfer': { responses: { 200: oneSuspenseCredit } },
  'GET /api/admin/gateway/reconciliation': { responses: { 200: success('ReconciliationResponse', reconciliation) } },
  'GET /api/admin/gateway/calendar': { responses: { 200: calendar } },
  'PUT /api/admin/gateway/calendar/{year}': {
    body: { 'application/json': calendarYearRequest },
    responses: { 200: calendar },
  },
};
