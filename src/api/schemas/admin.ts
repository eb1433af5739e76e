import { z } from 'zod';
import { paymentType } from '../../events/payments.ts';
import { accessExample, businessExample, gatewayAccess, gatewayBusiness } from './gateway.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successList } from './payments.ts';

/**
 * The gateway's administration in the admin console as src/api/gateway-admin.ts and src/api/payout-account.ts answer
 * it: the access requests and their decisions, the holding accounts, the payout account.
 */

const instant = z.iso.datetime({ offset: true });
const merchantId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const accountId = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const adminId = '4d5e6f70-8192-4a3b-9c4d-5e6f708192a3';

/** A merchant's access as a decision leaves it (presentRequest over the read model's row): who, the access, the business. */
const decidedShape = {
  userId: z.uuid().describe('The merchant'),
  ...gatewayAccess.shape,
  business: gatewayBusiness.nullable().describe('The business data of its last access request; null: it never asked'),
};
const decidedExample = { userId: merchantId, ...accessExample, business: businessExample };

export const merchantGatewayAccess = z.object(decidedShape).meta({
  id: 'MerchantGatewayAccess',
  description: "A merchant's gateway access and business data, as the admin console decides on it",
  examples: [decidedExample],
});

/** In the list of requests, with who asked (null: the user is gone). */
export const merchantAccessRequest = z
  .object({
    ...decidedShape,
    name: z.string().nullable().describe("The merchant's name"),
    email: z.string().nullable().describe("The merchant's email"),
  })
  .meta({
    id: 'MerchantAccessRequest',
    description: "A gateway access request in the admin console's list, with who asked",
    examples: [
      {
        ...decidedExample,
        status: 'PENDING',
        processedAt: null,
        name: 'Siti Rahayu',
        email: 'siti@tokomaju.example.com',
      },
    ],
  });

/** A holding account: an admin's own linked account whose credits are the gateway's money. */
export const holdingAccount = z
  .object({
    accountId: z.uuid(),
    providerCode: z.string(),
    accountName: z.string().nullable().describe('null once the account is deleted'),
    methods: z.array(paymentType).describe('The gateway methods it serves'),
    isActive: z
      .boolean()
      .nullable()
      .describe('false while its provider session needs a relogin; null once the account is deleted'),
    markedAt: instant.describe("Since when it holds the gateway's money"),
  })
  .meta({
    id: 'HoldingAccount',
    description: 'A holding account of the gateway',
    examples: [
      {
        accountId,
        providerCode: 'WALLET-A-BUSINESS',
        accountName: 'Gateway QRIS',
        methods: ['QRIS-DYNAMIC'],
        isActive: true,
        markedAt: '2025-05-01T08:00:00.000Z',
      },
    ],
  });

const unmarked = z.object({ status: z.literal('success'), data: z.object({ accountId: z.uuid() }) }).meta({
  id: 'HoldingAccountUnmarkedResponse',
  description: 'The account, a holding account no more',
  examples: [{ status: 'success', data: { accountId } }],
});

const payoutExample = { accountId, ownerId: adminId, accountName: 'Payout WALLET-A', balance: 2500000, isActive: true };
/** The platform's WALLET-A account withdrawals are paid from. */
export const payoutAccount = z
  .object({
    accountId: z.uuid(),
    ownerId: z.uuid().describe('The admin whose linked account it is'),
    accountName: z.string().nullable().describe('null once the account is deleted'),
    balance: z
      .number()
      .nullable()
      .describe('The last synchronised balance, in rupiah; null once the account is deleted'),
    isActive: z
      .boolean()
      .nullable()
      .describe('false: its provider session needs a relogin before it can pay; null once the account is deleted'),
  })
  .meta({
    id: 'PayoutAccount',
    description: 'The account withdrawals are paid from',
    examples: [payoutExample],
  });

const payout = z
  .object({ status: z.literal('success'), data: payoutAccount.nullable().describe('null: none chosen yet') })
  .meta({
    id: 'PayoutAccountResponse',
    description: '{status, data}: the payout account, or null before one is chosen',
    examples: [{ status: 'success', data: payoutExample }],
  });

const decided = success('MerchantGatewayAccessResponse', merchantGatewayAccess);
const oneHoldingAccount = success('HoldingAccountResponse', holdingAccount);

export const adminOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/gateway/access-requests': {
    responses: { 200: successList('MerchantAccessRequestListResponse', merchantAccessRequest) },
  },
  'POST /api/admin/gateway/access-requests/{userId}/approve': { responses: { 200: decided } },
  'POST /api/admin/gateway/access-requests/{userId}/reject': { responses: { 200: decided } },
  'POST /api/admin/gateway/merchants/{userId}/deactivate': { responses: { 200: decided } },
  'GET /api/admin/gateway/holding-accounts': {
    responses: { 200: successList('HoldingAccountListResponse', holdingAccount) },
  },
  'POST /api/admin/gateway/holding-accounts': { responses: { 201: oneHoldingAccount } },
  'DELETE /api/admin/gateway/holding-accounts/{accountId}': { responses: { 200: unmarked } },
  'GET /api/admin/gateway/payout-account': { responses: { 200: payout } },
  'POST /api/admin/gateway/payout-account': { responses: { 200: payout } },
};
