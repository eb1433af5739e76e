import { accountsProjection } from './accounts.ts';
import { apiKeysProjection } from './api-keys.ts';
import { auditorsProjection } from './auditors.ts';
import { gatewayAccessProjection } from './gateway-access.ts';
import { transfersProjection } from './transfers.ts';
import { gatewayLedgerProjection } from './gateway-ledger.ts';
import { gatewayPeriodsProjection } from './gateway-periods.ts';
import { gatewayStatementProjection } from './gateway-statement.ts';
import { gatewaySettlementsProjection } from './gateway-settlements.ts';
import { gatewaySuspenseProjection } from './gateway-suspense.ts';
import { holidayCalendarProjection } from './holiday-calendar.ts';
import { holdingTransfersProjection } from './holding-transfers.ts';
import { ledgerAdjustmentsProjection } from './ledger-adjustments.ts';
import { mutationsProjection } from './mutations.ts';
import { paymentsProjection } from './payments.ts';
import type { Projection } from './projection.ts';
import { sessionsProjection } from './sessions.ts';
import { usersProjection } from './users.ts';
import { webhookEndpointsProjection } from './webhook-endpoints.ts';
import { withdrawalPayoutsProjection } from './withdrawal-payouts.ts';

/** Every read model the service keeps. */
export const projections: Projection[] = [
  usersProjection,
  sessionsProjection,
  apiKeysProjection,
  auditorsProjection,
  accountsProjection,
  mutationsProjection,
  paymentsProjection,
  webhookEndpointsProjection,
  gatewayAccessProjection,
  holidayCalendarProjection,
  gatewayLedgerProjection,
  gatewayPeriodsProjection,
  gatewayStatementProjection,
  gatewaySettlementsProjection,
  gatewaySuspenseProjection,
  holdingTransfersProjection,
  ledgerAdjustmentsProjection,
  transfersProjection,
  withdrawalPayoutsProjection,
];
