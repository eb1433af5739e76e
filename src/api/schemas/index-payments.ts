import { apiKeyOperations } from './api-keys.ts';
import { gatewayOperations } from './gateway.ts';
import { settlementOperations } from './gateway-settlements.ts';
import { holdingTransferOperations } from './holding-transfers.ts';
import { gatewayPeriodOperations } from './gateway-periods.ts';
import { financeReportOperations } from './finance-reports.ts';
import { ledgerAdjustmentOperations } from './ledger-adjustments.ts';
import { mutationOperations } from './mutations.ts';
import { paymentOperations } from './payments.ts';
import type { DocumentedOperation } from './index-requests.ts';

/** Payments, mutations, the gateway (key surface, dashboard and admin console) and API keys, for index-requests.ts. */
export const paymentGatewayOperations: Record<string, DocumentedOperation> = {
  ...paymentOperations,
  ...mutationOperations,
  ...gatewayOperations,
  ...settlementOperations,
  ...holdingTransferOperations,
  ...gatewayPeriodOperations,
  ...financeReportOperations,
  ...ledgerAdjustmentOperations,
  ...apiKeyOperations,
};
