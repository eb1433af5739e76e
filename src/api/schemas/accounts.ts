import { z } from 'zod';
import { createBody } from '../accounts.ts';
import { sendActions, sendBody, verifyActions, verifyBody } from '../otp-flows.ts';
import type { DocumentedOperation } from './index-requests.ts';

/**
 * POST /api/v1/accounts in the schemas src/api/accounts.ts and src/api/otp-flows.ts check it with (the route parses the
 * body once `action` says which it is), and what the account routes answer (src/api/presenters.ts's presentAccount).
 */

const isoTime = z.iso.datetime();
const accountId = z.uuid();

// the routes' own schemas (src/api/accounts.ts, src/api/otp-flows.ts), with what a client reads beside each field
const create = createBody
  .extend({
    providerCode: createBody.shape.providerCode.describe('From GET /api/v1/providers'),
    accountName: createBody.shape.accountName.describe('The label chosen by the user'),
    intervalMinutes: createBody.shape.intervalMinutes.describe('Sync interval in minutes'),
    accountNumber: createBody.shape.accountNumber.describe('Required for a bank'),
    username: createBody.shape.username.describe('Internet-banking username, required for a bank'),
    password: createBody.shape.password.describe('Internet-banking password, required for a bank'),
    phoneNumber: createBody.shape.phoneNumber.describe('Required for an e-wallet'),
    pin: createBody.shape.pin.describe('6 digits, required for WALLET-A'),
  })
  .meta({ title: 'Create an account (no action)' });

const sendOtp = (action: keyof typeof sendActions) =>
  z
    .object({ action: z.literal(action) })
    .extend(sendBody.shape)
    .extend({
      phoneNumber: sendBody.shape.phoneNumber.describe('The phone number registered with the provider'),
      // WALLET-A's login takes the PIN with the phone number (the flow refuses its absence by hand)
      pin: (sendActions[action] === 'WALLET-A' ? sendBody.shape.pin.unwrap() : sendBody.shape.pin).describe('6 digits'),
      providerCode: sendBody.shape.providerCode.describe('Required for a new account'),
      accountName: sendBody.shape.accountName.describe('Required for a new account'),
      intervalMinutes: sendBody.shape.intervalMinutes.describe('Required for a new account'),
      accountId: sendBody.shape.accountId.describe(
        'The account to log in again (a relogin): instead of providerCode, accountName and intervalMinutes',
      ),
    })
    .meta({ title: `Send the OTP (${action})` });

const verifyOtp = (action: keyof typeof verifyActions) => {
  const body = verifyBody(verifyActions[action]);
  return z
    .object({ action: z.literal(action) })
    .extend(body.shape)
    .extend({
      sessionId: body.shape.sessionId.describe('The sessionId of the previous step'),
      otp: body.shape.otp.describe('The code the provider sent'),
      pin: body.shape.pin.describe('6 digits'),
      accountId: body.shape.accountId.describe('For a relogin'),
    })
    .meta({ title: `Verify the OTP (${action})` });
};

const postRequest = z
  .union([
    create,
    ...(Object.keys(sendActions) as (keyof typeof sendActions)[]).map(sendOtp),
    ...(Object.keys(verifyActions) as (keyof typeof verifyActions)[]).map(verifyOtp),
  ])
  .describe('Without action: create an account. With action: one step of an e-wallet OTP login');

const accountExample = {
  id: '3f6c2a9e-8b1d-4e57-a0c4-2d9b7e1f5a36',
  type: 'bank',
  providerCode: 'BANK-BCA',
  providerName: 'Bank Central Asia',
  accountName: 'Rekening toko',
  accountNumber: '1234567890',
  balance: 1500000,
  lastSync: '2026-01-05T03:00:00.000Z',
  intervalMinutes: 15,
  isActive: true,
  createdAt: '2026-01-01T02:00:00.000Z',
  nextSyncAt: '2026-01-05T03:15:00.000Z',
};

export const account = z
  .object({
    id: accountId,
    type: z.enum(['bank', 'ewallet']),
    providerCode: z.string(),
    providerName: z.string(),
    accountName: z.string(),
    accountNumber: z.string().optional().describe('Bank accounts'),
    phoneNumber: z.string().optional().describe('E-wallet accounts'),
    balance: z.number().describe('The last synchronised balance, in rupiah'),
    lastSync: isoTime.nullable(),
    intervalMinutes: z.int(),
    isActive: z.boolean().describe('false: the provider session expired, a relogin is needed'),
    createdAt: isoTime,
    nextSyncAt: isoTime.nullable(),
  })
  .meta({ id: 'Account', description: 'A linked bank or e-wallet account', examples: [accountExample] });

export const pagination = z
  .object({
    total: z.int(),
    page: z.int(),
    limit: z.int(),
    totalPages: z.int(),
    hasMore: z.boolean(),
  })
  .meta({
    id: 'Pagination',
    description: 'Where a page lies in the list',
    examples: [{ total: 1, page: 1, limit: 10, totalPages: 1, hasMore: false }],
  });

const success = z.literal('success');

const accountResponse = z
  .object({ status: success, data: account })
  .meta({ id: 'AccountResponse', description: 'An account', examples: [{ status: 'success', data: accountExample }] });
const accountList = z.object({ status: success, data: z.array(account), pagination }).meta({
  id: 'AccountListResponse',
  description: 'A page of accounts',
  examples: [
    {
      status: 'success',
      data: [accountExample],
      pagination: { total: 1, page: 1, limit: 10, totalPages: 1, hasMore: false },
    },
  ],
});
const accountDeleted = z.object({ status: success, data: z.object({ id: accountId, deleted: z.literal(true) }) }).meta({
  id: 'AccountDeletedResponse',
  description: 'The account and its mutations, deleted',
  examples: [{ status: 'success', data: { id: accountExample.id, deleted: true } }],
});
const accountRefreshed = z
  .object({ status: success, outcome: z.enum(['synced', 'skipped']).describe('How the sync went'), data: account })
  .meta({
    id: 'AccountRefreshResponse',
    description: 'The account after the sync',
    examples: [{ status: 'success', outcome: 'synced', data: accountExample }],
  });

const linked = z.object({ status: success, accountId, data: account }).meta({
  id: 'AccountCreatedResponse',
  description: 'The account, created',
  examples: [{ status: 'success', accountId: accountExample.id, data: accountExample }],
});
const specialFlow = z
  .object({
    status: z.literal('special_flow'),
    nextAction: z.object({ action: z.string(), message: z.string(), fields: z.array(z.string()) }),
  })
  .meta({
    id: 'AccountSpecialFlowResponse',
    description: 'WALLET-B and WALLET-C are linked by OTP: continue with nextAction',
    examples: [
      {
        status: 'special_flow',
        nextAction: {
          action: 'wallet-b-send-otp',
          message:
            'Wallet B is linked by OTP: POST /api/v1/accounts with action wallet-b-send-otp, then wallet-b-verify-otp',
          fields: ['phoneNumber', 'providerCode', 'accountName', 'intervalMinutes'],
        },
      },
    ],
  });
const otpSent = z.object({ success: z.literal(true), sessionId: z.uuid(), message: z.string() }).meta({
  id: 'OtpSentResponse',
  description: 'Step 1: the OTP is sent; verify it with this sessionId',
  examples: [
    {
      success: true,
      sessionId: '9a4e1c2b-7d3f-4b8a-b6e5-0c1d2e3f4a5b',
      message: 'OTP sent to ********7890 by MESSENGER; it is valid until 2026-01-05T03:05:00.000Z',
    },
  ],
});
const otpVerified = z.object({ success: z.literal(true), accountId }).meta({
  id: 'OtpVerifiedResponse',
  description: 'Verified: the account is linked (or logged in again)',
  examples: [{ success: true, accountId: accountExample.id }],
});
const secondOtp = z
  .object({ success: z.literal(false), requireSecondOTP: z.literal(true), sessionId: z.uuid(), message: z.string() })
  .meta({
    id: 'SecondOtpRequiredResponse',
    description: 'WALLET-C sent a second OTP: verify it with action wallet-c-verify-second-otp and this sessionId',
    examples: [
      {
        success: false,
        requireSecondOTP: true,
        sessionId: '1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b',
        message: 'The provider sent a second OTP: verify it with action wallet-c-verify-second-otp and this sessionId',
      },
    ],
  });

// oneOf without a discriminator: no field is common to all five (the request's action says which answers), but each
// has a const or a required field the others do not allow, so exactly one matches
const postResponse = z.xor([linked, specialFlow, otpSent, otpVerified, secondOtp]).meta({
  id: 'AccountStepResponse',
  description:
    "By the request's action, exactly one of: the created account, the OTP flow to follow (status special_flow), the OTP sent, the account verified, or a second OTP required",
  examples: [{ status: 'success', accountId: accountExample.id, data: accountExample }],
});

/** What one does next with an account's id: sync it, change it, delete it. */
const accountLinks = (id: string, when = '') => ({
  RefreshAccount: {
    operation: 'GET /api/v1/accounts/{id}/refresh',
    parameters: { id },
    description: `Sync the account now${when}`,
  },
  UpdateAccount: {
    operation: 'PATCH /api/v1/accounts/{id}',
    parameters: { id },
    description: `Change its label, sync interval or bank credentials${when}`,
  },
  DeleteAccount: {
    operation: 'DELETE /api/v1/accounts/{id}',
    parameters: { id },
    description: `Delete it and its mutations${when}`,
  },
});

export const accountOperations: Record<string, DocumentedOperation> = {
  'POST /api/v1/accounts': {
    body: { 'application/json': postRequest },
    responses: { 200: postResponse },
    // accountId: the account created, or linked by the last OTP step (the other answers have none)
    links: { 200: accountLinks('$response.body#/accountId', ' (answers with accountId: created, or linked by OTP)') },
  },
  'GET /api/v1/accounts': { responses: { 200: accountList } },
  'GET /api/v1/accounts/{id}': {
    responses: { 200: accountResponse },
    links: { 200: accountLinks('$response.body#/data/id') },
  },
  'PATCH /api/v1/accounts/{id}': { responses: { 200: accountResponse } },
  'DELETE /api/v1/accounts/{id}': { responses: { 200: accountDeleted } },
  'GET /api/v1/accounts/{id}/refresh': { responses: { 200: accountRefreshed } },
};
