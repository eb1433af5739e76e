/**
 * The event kinds sent to webhook endpoints (the interface document names the payment ones; the account kinds tell
 * what the dashboard shows of linked accounts: each new mutation, and an account that stopped syncing). `ledger.checkpoint`
 * and `ledger.integrity` go only to admins' endpoints that ask for them: one a minute would flood everyone
 * else, and the ledger's history is the operator's business.
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
  'ledger.integrity',
  'mutation.created',
  'account.needs_relogin',
  'account.sync_failed',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/**
 * The kind of a test event: sent to one endpoint when its owner asks (the dashboard's "Kirim event uji",
 * POST /api/v1/webhooks/{id}/test), whatever kinds the endpoint chose; never subscribed to.
 */
export const webhookTestEventType = 'webhook.test';

/**
 * What an endpoint that chose nothing is sent. The account kinds (`mutation.created`, `account.*`) are asked for by
 * name: an endpoint made for its payments would otherwise be sent every mutation of every linked account.
 */
export const defaultWebhookEvents: readonly WebhookEventType[] = [
  'payment.completed',
  'payment.expired',
  'transfer.completed',
  'transfer.failed',
  'withdrawal.paid',
  'withdrawal.rejected',
  'gateway.settled',
];

/** Kinds only an admin's endpoint may ask for: the ledger's checkpoints and what the service finds wrong with its history. */
export const adminOnlyWebhookEvents: readonly WebhookEventType[] = ['ledger.checkpoint', 'ledger.integrity'];
