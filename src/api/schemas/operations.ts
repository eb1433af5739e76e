/**
 * What the OpenAPI document says of each operation beyond the route's own schema (src/api/openapi.ts): its summary,
 * the statuses its handler answers besides those every route of its kind can (validation, credentials, a missing path
 * id, an unavailable database), and a success that is not a 200 JSON body. Keyed by method and OpenAPI path; a route
 * missing here fails test/api/openapi.int.test.ts.
 */
export type Success = {
  status: number;
  description: string;
  mediaType?: string;
  headers?: Record<string, { description: string; type: string } | { description: string; anyOf: object[] }>;
};
export type OperationNotes = { summary: string; errors?: number[]; success?: Success };

const created = (description: string): Success => ({ status: 201, description });
/** Set-Cookie: one header, or several (under https the session's cookie comes with its companion __Host-svc_bind). */
const setCookies = {
  description:
    'The session cookie svc_token (under https with its companion __Host-svc_bind), and the device cookie svc_device (__Host-svc_device under https) that keeps this browser apart from strangers when wrong passwords slow the account down',
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
};
const accepted = (description: string): Success => ({ status: 202, description });

export const operations: Record<string, OperationNotes> = {
  'GET /health': { summary: 'Liveness: the process answers' },
  'GET /.well-known/ledger-keys': {
    summary: "The ledger's public keys, every one its chain has used, in order (for anyone; cacheable for a minute)",
  },
  'GET /ready': {
    summary: 'Readiness of the database, the event store and the background work (details for the operator)',
  },
  'GET /metrics': {
    summary: 'Prometheus metrics (operator only)',
    errors: [403],
    success: { status: 200, description: 'Metrics in the Prometheus text format', mediaType: 'text/plain' },
  },
  'GET /openapi.json': { summary: 'This OpenAPI document' },
  // only with TEST_CLOCK=true, and only to the operator (loopback unforwarded, or METRICS_TOKEN)
  'GET /api/test-clock': { summary: "The test clock's now (TEST_CLOCK=true; operator only)", errors: [403] },
  'POST /api/test-clock': {
    summary: 'Move the test clock forward (TEST_CLOCK=true; operator only)',
    errors: [403],
  },

  'POST /api/auth/register': {
    summary: 'Register a dashboard user and start a session',
    errors: [409, 429],
    success: {
      ...created('Registered and signed in: the svc_token cookie is set'),
      headers: { 'set-cookie': setCookies },
    },
  },
  'POST /api/auth/login': {
    summary: 'Sign in with email and password',
    errors: [401, 429],
    success: {
      status: 200,
      description: 'Signed in: the svc_token cookie is set',
      headers: { 'set-cookie': setCookies },
    },
  },
  'GET /api/auth/me': { summary: 'The signed-in user, with subscription and devices' },
  'POST /api/auth/password': {
    summary: "Change the signed-in user's password (their other sessions end)",
    errors: [429],
    success: {
      status: 200,
      description: 'Changed: every other session of the user has ended, this one goes on',
      headers: { 'set-cookie': { description: 'The device cookie svc_device, issued anew', type: 'string' } },
    },
  },
  'DELETE /api/auth/me': { summary: 'Sign out without a redirect (for API clients)' },
  'GET /api/auth/logout': {
    summary: 'Sign out and go to the login page',
    success: {
      status: 302,
      description:
        "Signed out, to the login page (/login), when the request is the user's own top-level navigation " +
        '(Sec-Fetch-Site same-origin or none, Sec-Fetch-Dest document, or no such headers); from another site, or as ' +
        'anything but a document (an image), nothing is signed out: to /logout, a page that asks to confirm with a form',
      headers: { location: { description: 'The login page, or the page that asks to confirm', type: 'string' } },
    },
  },

  'GET /api/v1/providers': { summary: 'List the bank and e-wallet providers (source of providerCode)' },
  'POST /api/v1/accounts': {
    summary: 'Create an account, or run a step of an e-wallet OTP login (by action)',
    errors: [404, 409, 429],
  },
  'GET /api/v1/accounts': { summary: 'List bank and e-wallet accounts' },
  'GET /api/v1/accounts/{id}': { summary: 'Get an account' },
  'PATCH /api/v1/accounts/{id}': { summary: "Change an account's label, sync interval or bank credentials" },
  'DELETE /api/v1/accounts/{id}': { summary: 'Delete an account and all its mutations' },
  'GET /api/v1/accounts/{id}/refresh': { summary: "Sync an account's balance and mutations now" },
  'POST /api/v1/accounts/{id}/transfer': {
    summary: 'Transfer out of a WALLET-A account: QRIS or bank transfer steps (by action)',
    errors: [429],
  },
  'GET /api/v1/mutations': { summary: 'List mutations (transactions) of the accounts' },
  'POST /api/v1/webhooks': {
    summary: 'Register a webhook endpoint',
    errors: [403, 409],
    success: { status: 200, description: 'The endpoint, with its signing secret (shown once)' },
  },
  'GET /api/v1/webhooks': { summary: 'List webhook endpoints' },
  'DELETE /api/v1/webhooks/{id}': { summary: 'Remove a webhook endpoint' },
  'GET /api/v1/webhooks/{id}/deliveries': { summary: 'List deliveries of a webhook endpoint' },
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    summary: 'Deliver a webhook event again',
    errors: [409],
    success: accepted('The delivery, queued'),
  },
  'POST /api/v1/webhooks/{id}/test': {
    summary: 'Send a test event (webhook.test) to the endpoint, signed and logged like every event',
    errors: [409],
    success: accepted('The test delivery, queued'),
  },
  'POST /api/v1/payments': { summary: 'Create a payment request', errors: [403, 404, 409, 422] },
  'GET /api/v1/payments/status/{paymentId}': { summary: "Get a payment's status" },
  'GET /api/v1/payments': {
    summary: "The key owner's payments, newest first, a page at a time (cursor), by status, type, order id and time",
  },
  'GET /api/v1/gateway': { summary: 'Gateway access, methods, balance and fees' },
  'GET /api/v1/gateway/transactions': { summary: 'The gateway statement: payments, fees, settlements and withdrawals' },
  'GET /api/v1/gateway/settlements': {
    summary: 'Settlements of the gateway balance, newest first, with their payments',
  },
  'GET /api/v1/gateway/settlements/{id}': { summary: 'A settlement with a page of the payments it paid out' },
  'GET /api/v1/gateway/withdrawals': {
    summary: "The key owner's withdrawals, newest first, a page at a time (cursor), by status",
  },

  'POST /api/dashboard/api-keys': { summary: 'Create an API key (the key is shown once)', success: created('The key') },
  'GET /api/dashboard/api-keys': { summary: 'List API keys' },
  'DELETE /api/dashboard/api-keys/{id}': { summary: 'Revoke an API key' },
  'POST /api/dashboard/webhooks': {
    summary: 'Register a webhook endpoint (dashboard)',
    errors: [409],
    success: { status: 200, description: 'The endpoint, with its signing secret (shown once)' },
  },
  'GET /api/dashboard/webhooks': { summary: 'List webhook endpoints (dashboard)' },
  'DELETE /api/dashboard/webhooks/{id}': { summary: 'Remove a webhook endpoint (dashboard)' },
  'GET /api/dashboard/webhooks/{id}/deliveries': { summary: 'List deliveries of a webhook endpoint (dashboard)' },
  'POST /api/dashboard/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    summary: 'Deliver a webhook event again (dashboard)',
    errors: [409],
    success: accepted('The delivery, queued'),
  },
  'POST /api/dashboard/webhooks/{id}/test': {
    summary: 'Send a test event (webhook.test) to the endpoint (dashboard)',
    errors: [409],
    success: accepted('The test delivery, queued'),
  },
  'GET /api/dashboard/gateway': { summary: 'Gateway access, methods, balance and fees (dashboard)' },
  'POST /api/dashboard/gateway/access-request': {
    summary: 'Request gateway access with business data',
    errors: [409],
    success: created('The access request'),
  },
  'PATCH /api/dashboard/gateway/settings': { summary: 'Change gateway settings (feeToCustomer)', errors: [409] },
  'POST /api/dashboard/gateway/withdrawals': {
    summary: 'Request a withdrawal of the available gateway balance',
    errors: [409, 422],
    success: created('The withdrawal, requested'),
  },
  'GET /api/dashboard/gateway/withdrawals': { summary: 'List withdrawals' },
  'GET /api/dashboard/gateway/withdrawals/{id}': { summary: 'Get a withdrawal' },

  'GET /api/admin/gateway/access-requests': { summary: 'List gateway access requests' },
  'POST /api/admin/gateway/access-requests/{userId}/approve': {
    summary: 'Approve a gateway access request',
    errors: [409],
  },
  'POST /api/admin/gateway/access-requests/{userId}/reject': {
    summary: 'Reject a gateway access request',
    errors: [409],
  },
  'POST /api/admin/gateway/merchants/{userId}/deactivate': { summary: 'Deactivate a gateway merchant', errors: [409] },
  'GET /api/admin/gateway/holding-accounts': { summary: "List the platform's holding accounts" },
  'POST /api/admin/gateway/holding-accounts': {
    summary: 'Mark an account as a holding account',
    errors: [404, 409],
    success: created('The holding account'),
  },
  'DELETE /api/admin/gateway/holding-accounts/{accountId}': { summary: 'Unmark a holding account' },
  'GET /api/admin/gateway/withdrawals': { summary: 'List withdrawals of every merchant' },
  'POST /api/admin/gateway/withdrawals/{id}/pay': {
    summary: 'Pay out a withdrawal through the payout account',
    errors: [409, 502],
  },
  'POST /api/admin/gateway/withdrawals/{id}/paid': { summary: 'Record a withdrawal paid by hand', errors: [409] },
  'POST /api/admin/gateway/withdrawals/{id}/reject': { summary: 'Reject a withdrawal', errors: [409] },
  'GET /api/admin/gateway/payout-account': { summary: 'The payout account' },
  'POST /api/admin/gateway/payout-account': { summary: 'Choose the payout account', errors: [404, 409] },
  'GET /api/admin/gateway/suspense': { summary: 'List suspense credits (money nobody claimed)' },
  'POST /api/admin/gateway/suspense/{id}/allocate': {
    summary: 'Allocate a suspense credit to a payment or a merchant',
    errors: [409],
  },
  'POST /api/admin/gateway/suspense/{id}/refund': { summary: 'Record a suspense credit refunded', errors: [409] },
  'POST /api/admin/gateway/suspense/{id}/untransfer': {
    summary:
      "Give back to suspense (OPEN) a credit a hand transfer took as its destination side, with the reason; the transfer's CREDIT is awaited again",
    errors: [409],
  },
  'GET /api/admin/gateway/holding-transfers': {
    summary: "Transfers between the platform's holding accounts made by hand",
  },
  'POST /api/admin/gateway/holding-transfers': {
    summary: "Record a transfer made by hand between two of the platform's holding accounts (booked in the ledger)",
    errors: [409],
    success: created('The transfer, booked'),
  },
  'GET /api/admin/gateway/ledger-adjustments': {
    summary: "Openings and correcting entries of the platform's holding accounts",
  },
  'POST /api/admin/gateway/ledger-adjustments': {
    summary:
      'Book a dated opening or correcting entry for a holding account, with its reason (against platform:equity)',
    errors: [409],
    success: created('The entry, booked'),
  },
  'GET /api/admin/gateway/periods': { summary: "The closes of the gateway's books, newest month first" },
  'POST /api/admin/gateway/periods/{period}/close': {
    summary: 'Close a month that has ended (WIB): its reconciliation frozen, its hash in the audited log',
    errors: [409],
    success: created('The month, closed'),
  },
  'POST /api/admin/gateway/periods/{period}/reopen': {
    summary: 'Reopen the latest closed month, with a reason: its reconciliation is computed live again',
    errors: [409],
  },
  'GET /api/admin/gateway/calendar': { summary: "The settlement calendar's holiday years" },
  'PUT /api/admin/gateway/calendar/{year}': { summary: 'Set the holidays of a year' },
  'GET /api/admin/gateway/reconciliation': {
    summary: 'Reconciliation of a period (JSON, or one table as CSV)',
    success: {
      status: 200,
      description: 'The reconciliation; with Accept: text/csv and table, one table as CSV',
      mediaType: 'text/csv',
    },
  },
  'GET /api/admin/gateway/reconciliation.csv': {
    summary: "One table of a period's reconciliation as CSV",
    success: { status: 200, description: 'The table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/balance-history': {
    summary: "A merchant's or a holding account's balances day by day (WIB) (JSON, or one table as CSV)",
    errors: [404],
    success: { status: 200, description: 'The report; with Accept: text/csv, one table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/balance-history.csv': {
    summary: "A merchant's or a holding account's balances day by day (WIB): one table as CSV",
    errors: [404],
    success: { status: 200, description: 'The table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/revenue': {
    summary: 'Fees and unique-code income by payment method and by merchant (JSON, or one table as CSV)',
    success: { status: 200, description: 'The report; with Accept: text/csv, one table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/revenue.csv': {
    summary: 'Fees and unique-code income by payment method and by merchant: one table as CSV',
    success: { status: 200, description: 'The table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/payout-report': {
    summary:
      'The payouts with their source, destination, holder check, channel and attempts (JSON, or one table as CSV)',
    success: { status: 200, description: 'The report; with Accept: text/csv, one table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/gateway/payout-report.csv': {
    summary: 'The payouts with their source, destination, holder check, channel and attempts: one table as CSV',
    success: { status: 200, description: 'The table as CSV', mediaType: 'text/csv' },
  },
  'GET /api/admin/streams/{id}': { summary: 'The events of one stream (auditors)' },
  'GET /api/admin/digests': { summary: 'The signed daily digests of the ledger' },
  'GET /api/admin/ledger/checkpoints/latest': {
    summary: 'The latest signed ledger checkpoint, with the cosignatures posted of it',
    errors: [404],
  },
  'GET /api/audit/ledger/checkpoints/latest': {
    summary: 'The latest signed ledger checkpoint, with the cosignatures posted of it (witnesses)',
    errors: [404],
  },
  'GET /api/audit/ledger/checkpoints': { summary: 'Signed ledger checkpoints from a seq on (witnesses)' },
  'GET /api/audit/ledger/events': {
    summary: "The log's events in log order from a position on, as export lines without their view (witnesses)",
  },
  'GET /api/audit/ledger/cosignatures': { summary: 'The cosignatures posted from a seq on (witnesses)' },
  'POST /api/audit/ledger/cosignatures': {
    summary: "A witness's cosignature of a checkpoint (200 when it was posted before)",
    errors: [404, 409],
    success: created('The cosignature, kept'),
  },

  'POST /api/providers/{providerCode}/notifications': {
    summary:
      "A provider says money landed in one of its accounts (signed with the provider's secret, no API key): the account is checked at once, once per notification id",
    errors: [401, 404, 409],
    success: accepted('Heard: the linked account is checked now'),
  },

  'GET /pay/{paymentId}': {
    summary: 'The hosted payment page',
    success: { status: 200, description: 'The page', mediaType: 'text/html' },
  },
  'GET /pay/{paymentId}/status.json': { summary: "A payment's status, for the payment page" },
  'GET /pay/{paymentId}/events': {
    summary:
      "The payment's status as server-sent events, for the payment page: `event: status` with the status.json data when the stream opens and when the payment ends, a comment every PAYMENT_STREAM_HEARTBEAT_SECONDS; the stream ends once the payment has ended or expired. 429 past PAYMENT_STREAMS_PER_PAYMENT open streams of the payment, 503 past PAYMENT_STREAMS_PER_INSTANCE on the instance (the page polls status.json meanwhile)",
    errors: [429],
    success: { status: 200, description: 'The event stream', mediaType: 'text/event-stream' },
  },
  'POST /pay/{paymentId}/method': {
    summary: 'Choose the payment method (payments created without a type)',
    errors: [403, 409, 503],
  },
  'POST /pay/{paymentId}/check': {
    summary: '"Saya sudah bayar": check the receiving account now',
    errors: [429],
    success: { status: 200, description: 'The status; 202 when a check was started' },
  },
  'POST /pay/{paymentId}/sandbox-payment': {
    summary:
      'Pay the bill as a sandbox customer ("Bayar (sandbox)"): only a bill paid into the sandbox provider, and only once billed',
    errors: [409, 429, 502, 503],
    success: created("The sandbox's credit into the receiving account: the payment completes once the service sees it"),
  },
  'GET /pay/{paymentId}/qris.png': {
    summary: 'The QRIS of a payment as a PNG image',
    success: { status: 200, description: 'The QR image, 256x256 (attachment with download=1)', mediaType: 'image/png' },
  },
};
