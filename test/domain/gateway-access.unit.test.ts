import { describe, it } from 'vitest';
import { gatewayAccess, type BusinessData } from '../../src/domain/gateway-access.ts';
import { holdingAccounts } from '../../src/domain/holding-accounts.ts';
import { HoldingAccountMarked, HoldingAccountUnmarked } from '../../src/events/holding-accounts.ts';
import {
  GatewayAccessApproved,
  GatewayAccessDeactivated,
  GatewayAccessRejected,
  GatewayAccessRequested,
  GatewayFeeModeChanged,
  UserRegistered,
} from '../../src/events/user.ts';
import { specification } from '../support/decider.ts';

const now = new Date('2026-03-02T03:00:00.000Z');
const at = now.toISOString();
const userId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const adminId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const accountId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const business: BusinessData = {
  businessName: 'Toko Maju',
  businessType: 'retail',
  phone: '081234567890',
  address: 'Bandung',
  website: null,
  description: null,
};

const registered = UserRegistered({
  userId,
  name: 'Siti',
  email: 'siti@example.com',
  passwordHash: 'h',
  role: 'USER',
  registeredAt: at,
});
const requested = GatewayAccessRequested({ userId, ...business, requestedAt: at });
const approved = GatewayAccessApproved({ userId, approvedBy: adminId, approvedAt: at });
const rejected = GatewayAccessRejected({ userId, note: 'incomplete', rejectedBy: adminId, rejectedAt: at });

describe('gateway access (NONE -> PENDING -> APPROVED | REJECTED, APPROVED -> REJECTED)', () => {
  const given = specification(gatewayAccess);

  it('a request with business data makes NONE pending', () =>
    given([registered]).when({ type: 'RequestGatewayAccess', business, now }).then([requested]));

  it('a rejected merchant may ask again', () =>
    given([registered, requested, rejected]).when({ type: 'RequestGatewayAccess', business, now }).then([requested]));

  it.each([
    ['pending', [registered, requested]],
    ['approved', [registered, requested, approved]],
  ])('a %s merchant cannot ask again (409)', (_case, history) =>
    given(history).when({ type: 'RequestGatewayAccess', business, now }).thenThrows('GATEWAY_ACCESS_CONFLICT'),
  );

  it('an admin approves a pending request', () =>
    given([registered, requested]).when({ type: 'ApproveGatewayAccess', adminId, now }).then([approved]));

  it('an admin rejects a pending request with a note', () =>
    given([registered, requested])
      .when({ type: 'RejectGatewayAccess', adminId, note: 'incomplete', now })
      .then([rejected]));

  describe.each([
    ['NONE', [registered]],
    ['APPROVED', [registered, requested, approved]],
    ['REJECTED', [registered, requested, rejected]],
  ])('only a PENDING request is reviewed: %s', (_case, history) => {
    it('is not approved', () =>
      given(history).when({ type: 'ApproveGatewayAccess', adminId, now }).thenThrows('GATEWAY_ACCESS_CONFLICT'));

    it('is not rejected', () =>
      given(history)
        .when({ type: 'RejectGatewayAccess', adminId, note: 'x', now })
        .thenThrows('GATEWAY_ACCESS_CONFLICT'));
  });

  it('an approved merchant is deactivated with a note', () =>
    given([registered, requested, approved])
      .when({ type: 'DeactivateGatewayAccess', adminId, note: 'fraud', now })
      .then([GatewayAccessDeactivated({ userId, note: 'fraud', deactivatedBy: adminId, deactivatedAt: at })]));

  it('a merchant not approved is not deactivated', () =>
    given([registered, requested])
      .when({ type: 'DeactivateGatewayAccess', adminId, note: 'fraud', now })
      .thenThrows('GATEWAY_ACCESS_CONFLICT'));

  it('a deactivated merchant may ask again', () =>
    given([
      registered,
      requested,
      approved,
      GatewayAccessDeactivated({ userId, note: 'fraud', deactivatedBy: adminId, deactivatedAt: at }),
    ])
      .when({ type: 'RequestGatewayAccess', business, now })
      .then([requested]));

  it('the fee mode changes', () =>
    given([registered])
      .when({ type: 'ChangeGatewayFeeMode', feeToCustomer: true, now })
      .then([GatewayFeeModeChanged({ userId, feeToCustomer: true, changedAt: at })]));

  it('the fee mode set as it is already changes nothing', () =>
    given([registered, GatewayFeeModeChanged({ userId, feeToCustomer: true, changedAt: at })])
      .when({ type: 'ChangeGatewayFeeMode', feeToCustomer: true, now })
      .then([]));

  it('an unknown user has no access to change', () =>
    given([]).when({ type: 'ApproveGatewayAccess', adminId, now }).thenThrows('NOT_FOUND'));
});

describe('holding accounts', () => {
  const given = specification(holdingAccounts);
  const marked = HoldingAccountMarked({
    accountId,
    providerCode: 'WALLET-D',
    methods: ['QRIS-DYNAMIC'],
    markedBy: adminId,
    markedAt: at,
  });
  const mark = {
    type: 'MarkHoldingAccount' as const,
    accountId,
    providerCode: 'WALLET-D',
    methods: ['QRIS-DYNAMIC' as const],
    adminId,
    now,
  };

  it('marks an account', () => given([]).when(mark).then([marked]));

  it('marks an account once: marking it again changes nothing', () => given([marked]).when(mark).then([]));

  it('unmarks a marked account', () =>
    given([marked])
      .when({ type: 'UnmarkHoldingAccount', accountId, adminId, now })
      .then([HoldingAccountUnmarked({ accountId, unmarkedBy: adminId, unmarkedAt: at })]));

  it('answers not-found for unmarking an account never marked', () =>
    given([]).when({ type: 'UnmarkHoldingAccount', accountId, adminId, now }).thenThrows('NOT_FOUND'));
});
