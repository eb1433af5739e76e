import { decideGatewayAccess } from './gateway-access.ts';
import { type BusinessData } from '../domain/gateway-access.ts';
import type { CommandDeps } from './deps.ts';

/**
 * The decisions on a merchant's gateway access as the dashboard and the admin console make them, each through its
 * JSON route and its page alike: the merchant's own, recorded as the user's; an admin's, recorded as the admin's.
 */

/** The merchant asks for access with their business data (NONE or REJECTED -> PENDING). */
export const requestGatewayAccess = (deps: CommandDeps, merchantId: string, business: BusinessData) =>
  decideGatewayAccess(
    deps,
    merchantId,
    { type: 'RequestGatewayAccess', business, now: deps.clock.now() },
    `user:${merchantId}`,
  );

/** The merchant chooses who bears the fee of the payments to come. */
export const changeGatewayFeeMode = (deps: CommandDeps, merchantId: string, feeToCustomer: boolean) =>
  decideGatewayAccess(
    deps,
    merchantId,
    { type: 'ChangeGatewayFeeMode', feeToCustomer, now: deps.clock.now() },
    `user:${merchantId}`,
  );

export const approveGatewayAccess = (deps: CommandDeps, adminId: string, merchantId: string) =>
  decideGatewayAccess(
    deps,
    merchantId,
    { type: 'ApproveGatewayAccess', adminId, now: deps.clock.now() },
    `admin:${adminId}`,
  );

export const rejectGatewayAccess = (deps: CommandDeps, adminId: string, merchantId: string, note: string) =>
  decideGatewayAccess(
    deps,
    merchantId,
    { type: 'RejectGatewayAccess', adminId, note, now: deps.clock.now() },
    `admin:${adminId}`,
  );

/** An approved merchant loses access (-> REJECTED, with the admin's note). */
export const deactivateGatewayAccess = (deps: CommandDeps, adminId: string, merchantId: string, note: string) =>
  decideGatewayAccess(
    deps,
    merchantId,
    { type: 'DeactivateGatewayAccess', adminId, note, now: deps.clock.now() },
    `admin:${adminId}`,
  );
