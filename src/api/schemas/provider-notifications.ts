import { z } from 'zod';
import { providerNotificationBody } from '../../providers/notification-signature.ts';
import type { DocumentedOperation } from './index-requests.ts';

/** POST /api/providers/{providerCode}/notifications as src/api/provider-notifications.ts reads and answers it. */

const notificationRequest = providerNotificationBody.meta({
  id: 'ProviderNotification',
  description:
    "A provider's hint that money landed in one of its accounts, signed in the webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks, the provider's secret); the account is checked at the provider, nothing in the body is credited",
  examples: [{ accountRef: '081234567890', transactionId: 'TX-000123' }],
});

const notificationAnswer = z
  .object({
    status: z.literal('success'),
    data: z.object({
      notificationId: z.string().describe('The webhook-id of the notification'),
      checking: z
        .boolean()
        .describe('true: the account is checked now (202); false: this notification was heard already (200)'),
    }),
  })
  .meta({
    id: 'ProviderNotificationAnswer',
    description: 'The notification heard: the linked account is checked at the provider once per notification id',
    examples: [{ status: 'success', data: { notificationId: 'ntf_TX-000123', checking: true } }],
  });

export const providerNotificationOperations: Record<string, DocumentedOperation> = {
  'POST /api/providers/{providerCode}/notifications': {
    body: { 'application/json': notificationRequest },
    responses: { 200: notificationAnswer, 202: notificationAnswer },
  },
};
