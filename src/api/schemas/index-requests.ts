import type { z } from 'zod';
import { accountOperations } from './accounts.ts';
import { adminOperations } from './admin.ts';
import { auditOperations } from './audit.ts';
import { auditLedgerOperations } from './audit-ledger.ts';
import { authOperations } from './auth.ts';
import { healthOperations } from './health.ts';
import { ledgerKeyOperations } from './ledger-keys.ts';
import { paymentGatewayOperations } from './index-payments.ts';
import { payOperations } from './pay.ts';
import { providerOperations } from './providers.ts';
import { providerNotificationOperations } from './provider-notifications.ts';
import { transferOperations } from './transfers.ts';
import { webhookOperations } from './webhooks.ts';

/**
 * What the document says of an operation whose handler checks its body by hand, or whose answer no route schema
 * names: the body as the handler checks it, by media type, and the success bodies by status (named components, so a
 * client gets one type per answer). Documentation only: the routes validate and answer as before, and a route schema
 * stays its own validator. Read by src/api/openapi.ts; keyed like src/api/schemas/operations.ts.
 */
export type DocumentedOperation = {
  body?: Partial<Record<'application/json' | 'multipart/form-data', z.ZodType>>;
  responses?: Partial<Record<number, z.ZodType>>;
  /** OpenAPI links of a success, by status and name: the operation (`METHOD /path`) a value of the answer feeds. */
  links?: Partial<Record<number, Record<string, OperationLink>>>;
};

/** A link: the target operation, its parameters as runtime expressions (`$response.body#/data/id`), and what it is for. */
export type OperationLink = { operation: string; parameters: Record<string, string>; description: string };

export const documentedOperations: Record<string, DocumentedOperation> = {
  ...healthOperations,
  ...authOperations,
  ...accountOperations,
  ...transferOperations,
  ...payOperations,
  ...webhookOperations,
  ...paymentGatewayOperations,
  ...providerOperations,
  ...providerNotificationOperations,
  ...adminOperations,
  ...auditOperations,
  ...auditLedgerOperations,
  ...ledgerKeyOperations,
};
