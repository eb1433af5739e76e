/**
 * The event kinds sent to webhook endpoints (the interface document names the payment ones). `ledger.checkpoint`
 * (issue 24) goes only to admins' endpoints that ask for it: one a minute would flood everyone else.
 */
export const webhookEventTypes = [
  'payment.completed',
  'payment.expired',
  'transfer.completed',
  'transfer.failed',
  'withdrawal.paid',
  'withdrawal.rejected',
  'gateway.settled',
  'ledger.checkpoint',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** What an endpoint that chose nothing is sent. */
export const defaultWebhookEvents: readonly WebhookEventType[] = [
  'payment.completed',
  'payment.expired',
  'transfer.completed',
  'transfer.failed',
  'withdrawal.paid',
  'withdrawal.rejected',
  'gateway.settled',
];

/** Kinds only an admin's endpoint may ask for. */
export const adminOnlyWebhookEvents: readonly WebhookEventType[] = ['ledger.checkpoint'];
