/**
 * Every error the service answers with, once: its code, HTTP status and message. A refusal is raised anywhere with
 * `refuse(code)` (a throw site may say more: a specific message, the fields at fault) and turned into a response in
 * one place (src/api/errors.ts). docs/reference/errors.md is generated from this list (`npm run docs:errors`).
 */
export type ErrorDetail = { path: string; message: string };

/**
 * What a throw site knows of a refusal beyond its code (an amount, a status, which of the code's cases), for saying it
 * in other words than the message: a page's Indonesian (src/web/refusal-words.ts) is chosen by code and these.
 */
export type RefusalParams = Readonly<Record<string, string | number>>;

type ErrorSpec = { status: number; message: string; surface?: 'session' };

export const errorCodes = {
  // any route: what fastify and the schemas refuse
  VALIDATION_ERROR: { status: 400, message: 'Invalid request: see errors for the fields at fault' },
  INVALID_INPUT: { status: 400, message: 'Invalid input' },
  INVALID_TEXT: { status: 400, message: 'Text must be well-formed Unicode without NUL characters' },
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  CROSS_ORIGIN_REFUSED: { status: 403, message: 'Refused: the request came from a page of another origin' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  CONFLICT: { status: 409, message: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  UNPROCESSABLE: { status: 422, message: 'Unprocessable request' },
  RATE_LIMITED: { status: 429, message: 'Too many requests, retry later' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  UNAVAILABLE: { status: 503, message: 'Unavailable, retry shortly' },
  DATABASE_UNAVAILABLE: { status: 503, message: 'The database is unavailable; retry shortly' },
  BUSY: {
    status: 503,
    message: 'Busy: a concurrent change got there first and nothing was written; retry after Retry-After seconds',
  },

  // the session surface (/api/auth): the interface's Indonesian texts
  REGISTER_FIELDS_MISSING: { status: 400, message: 'Semua field wajib diisi', surface: 'session' },
  LOGIN_FIELDS_MISSING: { status: 400, message: 'Email dan password wajib diisi', surface: 'session' },
  PASSWORD_TOO_SHORT: { status: 400, message: 'Password minimal 8 karakter', surface: 'session' },
  PASSWORD_TOO_LONG: { status: 400, message: 'Password maksimal 128 karakter', surface: 'session' },
  PASSWORD_TOO_COMMON: { status: 400, message: 'Password terlalu umum, pilih yang lain', surface: 'session' },
  PASSWORD_FIELDS_MISSING: {
    status: 400,
    message: 'Password saat ini dan password baru wajib diisi',
    surface: 'session',
  },
  WRONG_CURRENT_PASSWORD: { status: 401, message: 'Password saat ini salah', surface: 'session' },
  NAME_TOO_LONG: { status: 400, message: 'Nama maksimal 100 karakter', surface: 'session' },
  INVALID_EMAIL: { status: 400, message: 'Format email tidak valid', surface: 'session' },
  INVALID_CREDENTIALS: { status: 401, message: 'Email atau password salah', surface: 'session' },
  EMAIL_TAKEN: { status: 409, message: 'Email sudah terdaftar', surface: 'session' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Terlalu banyak percobaan, coba lagi nanti', surface: 'session' },
  SESSION_DATABASE_UNAVAILABLE: {
    status: 503,
    message: 'Layanan sedang tidak tersedia, coba lagi sebentar lagi',
    surface: 'session',
  },
  SESSION_BUSY: { status: 503, message: 'Layanan sedang sibuk, coba lagi sebentar lagi', surface: 'session' },

  // keys and sessions
  INVALID_API_KEY: { status: 401, message: 'API key invalid or missing' },
  SESSION_EXISTS: { status: 409, message: 'The session was started already' },

  // accounts, providers, sync
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not found' },
  ACCOUNT_INACTIVE: { status: 400, message: 'The account is inactive: the provider session expired, relogin needed' },
  PROVIDER_NOT_FOUND: { status: 404, message: 'Provider not found' },
  PROVIDER_LOGIN_FAILED: { status: 400, message: 'The provider refused the login' },
  PROVIDER_UNAVAILABLE: { status: 400, message: 'The provider is unavailable, try again later' },
  PROVIDER_REJECTED: { status: 400, message: 'The provider refused the request' },
  NOT_ENOUGH_POINTS: { status: 400, message: 'Not enough points' },
  MISSING_FIELDS: { status: 400, message: 'Required field missing' },

  // e-wallet OTP logins
  UNKNOWN_PROVIDER: { status: 400, message: 'No provider of this code logs in by OTP' },
  VERIFICATION_INCOMPLETE: { status: 400, message: 'Verification data incomplete' },
  OTP_SESSION_INVALID: { status: 400, message: 'OTP session expired or not found; start again from step 1' },
  OTP_VERIFICATION_FAILED: { status: 400, message: 'OTP wrong or verification failed' },

  // payments
  PAYMENT_NOT_FOUND: { status: 404, message: 'Payment not found' },
  PAYMENT_TYPE_NOT_SUPPORTED: { status: 400, message: 'Payment type not supported by the provider' },
  RECEIVING_ACCOUNT_GONE: { status: 400, message: 'The receiving account of this payment is gone' },
  GATEWAY_NOT_APPROVED: { status: 403, message: 'Gateway access is not approved for this account' },
  ORDER_PENDING: { status: 409, message: 'The order already has a pending payment' },
  ORDER_ALREADY_PAID: { status: 409, message: 'The order is paid already: it is not billed again' },
  NO_UNIQUE_CODE: {
    status: 409,
    message: 'Every unique code for this amount is held by a pending payment on this account',
  },
  VA_NUMBER_TAKEN: { status: 409, message: 'The virtual account number is taken' },
  PAYMENT_NOT_PENDING: { status: 409, message: 'The payment is no longer pending' },
  PAYMENT_METHOD_CHOSEN: { status: 409, message: 'The payment method was chosen already' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'This Idempotency-Key was used with another request body' },
  PAYABLE_LAPSED: { status: 503, message: 'The payable amount lapsed before the payment was recorded; try again' },
  PAYMENT_NOT_BILLED: { status: 409, message: 'Nothing to pay yet: the payer has not chosen how to pay' },
  PAYMENT_NOT_IN_SANDBOX: {
    status: 409,
    message: 'The payment is not paid into the sandbox provider: only a sandbox bill is paid this way',
  },
  SANDBOX_PAYMENT_REFUSED: { status: 502, message: 'The sandbox provider refused to pay the bill' },
  SANDBOX_UNAVAILABLE: { status: 503, message: 'The sandbox provider is unavailable; retry shortly' },

  // payment gateway: access and holding accounts
  GATEWAY_ACCESS_CONFLICT: { status: 409, message: 'Gateway access is not in a state that allows this' },
  GATEWAY_DIRECT_NOT_ALLOWED: { status: 400, message: 'DIRECT cannot be used with GATEWAY' },
  NO_HOLDING_ACCOUNT: { status: 503, message: 'No holding account can serve the method now' },
  HOLDING_ACCOUNT_CANNOT_SERVE: { status: 400, message: 'The account cannot serve any gateway method' },

  // payment gateway: the ledger and withdrawals
  WITHDRAWAL_NOT_FOUND: { status: 404, message: 'Withdrawal not found' },
  SETTLEMENT_NOT_FOUND: { status: 404, message: 'Settlement not found' },
  WITHDRAWAL_BELOW_MINIMUM: { status: 400, message: 'The amount is below the minimum withdrawal' },
  INSUFFICIENT_BALANCE: { status: 400, message: 'The amount is more than the available balance' },
  WITHDRAWAL_OWN_PAYOUT: { status: 403, message: 'An admin cannot pay out their own withdrawal' },
  WITHDRAWAL_NOT_REQUESTED: { status: 409, message: 'The withdrawal was paid or rejected already' },
  WITHDRAWAL_REFERENCE_USED: { status: 409, message: 'This payout reference paid another withdrawal already' },
  WITHDRAWAL_DESTINATION_INVALID: {
    status: 400,
    message: "The destination account was refused by the provider's inquiry (invalid number or bank)",
  },
  PAYOUT_ACCOUNT_NOT_SET: {
    status: 409,
    message: "No payout account is set: an admin marks one of the platform's WALLET-A accounts first",
  },
  SUSPENSE_NOT_FOUND: { status: 404, message: 'Suspense credit not found' },
  SUSPENSE_NOT_OPEN: { status: 409, message: 'The suspense credit was allocated or refunded already' },
  SUSPENSE_BELOW_FEE: { status: 400, message: 'The amount is not larger than its fee' },
  SUSPENSE_TARGET_INVALID: {
    status: 400,
    message: 'Allocate to a gateway payment (paymentId) or an approved gateway merchant (userId)',
  },
  SUSPENSE_NOT_TRANSFERRED: {
    status: 409,
    message: 'The suspense credit was not taken by a hand transfer: only such a credit goes back to suspense',
  },
  SUSPENSE_ALREADY_UNTRANSFERRED: {
    status: 409,
    message: 'The suspense credit was given back from its hand transfer already and is open',
  },
  HOLDING_CASH_SHORT: { status: 409, message: 'The platform account has less cash in the ledger than the payout' },
  WITHDRAWAL_HOLDER_MISMATCH: {
    status: 409,
    message:
      "The bank's holder name differs from the requested holder: paid only with an admin's override and its reason",
  },
  LEDGER_ADJUSTMENT_INVALID: {
    status: 400,
    message: "A ledger adjustment books one of the platform's holding accounts, dated no later than now",
  },
  HOLDING_TRANSFER_INVALID: {
    status: 400,
    message: "A transfer between holding accounts moves money from one of the platform's holding accounts to another",
  },
  WITHDRAWAL_PAYOUT_IN_FLIGHT: {
    status: 409,
    message:
      'A payout of this withdrawal through WALLET-A has begun: it cannot be rejected until the transfer has failed',
  },
  WITHDRAWAL_PAYOUT_FAILED: {
    status: 502,
    message: 'The transfer through the payout account failed: nothing moved, the withdrawal stays requested',
  },
  WITHDRAWAL_PAYOUT_UNCONFIRMED: {
    status: 502,
    message: 'The provider did not confirm the transfer: the withdrawal stays requested; pay again to ask its outcome',
  },

  // outbound transfers (WALLET-A)
  QR_IMAGE_MISSING: { status: 400, message: 'qrImage missing' },
  QR_IMAGE_NOT_AN_IMAGE: { status: 400, message: 'qrImage is not a PNG or JPEG image' },
  QR_IMAGE_TOO_LARGE: { status: 400, message: 'qrImage is too large' },
  QR_NOT_FOUND: { status: 400, message: 'QR could not be decoded from the image' },
  QR_DECODER_BUSY: { status: 429, message: 'Too many QR images are being read right now; retry shortly' },
  QR_NOT_QRIS: { status: 400, message: 'The QR is not a valid QRIS' },
  QR_AMOUNT_MISMATCH: { status: 400, message: 'The amount differs from the amount of the QRIS' },
  QR_AMOUNT_OUT_OF_RANGE: { status: 400, message: 'A QR transfer is from 1 to 10,000,000 rupiah' },
  TRANSFER_NOT_SUPPORTED: { status: 400, message: 'Transfers can be made only from WALLET-A accounts' },
  BALANCE_INSUFFICIENT: { status: 400, message: 'Balance insufficient' },
  BANK_LIST_FAILED: { status: 400, message: 'Fetching the bank list failed' },
  BANK_ACCOUNT_VALIDATION_FAILED: {
    status: 400,
    message: 'Account validation failed (invalid number or bank mismatch)',
  },
  BANK_ACCOUNT_INDEX_INVALID: { status: 400, message: 'bankAccountIndexNo missing or expired' },
  TRANSFER_AMOUNT_MISMATCH: { status: 400, message: 'The amount differs from the validated amount' },
  TRANSFER_FAILED: { status: 500, message: 'Transfer failed: nothing was debited' },
  TRANSFER_UNCONFIRMED: {
    status: 500,
    message:
      'The provider did not confirm the transfer: the amount stays debited until it does; do not retry with a new inquiry',
  },

  // providers' notifications that money landed (POST /api/providers/{code}/notifications): nothing is checked for these
  NOTIFICATION_PROVIDER_UNKNOWN: {
    status: 404,
    message: 'No provider of this code sends notifications to this service',
  },
  NOTIFICATION_SIGNATURE_INVALID: {
    status: 401,
    message:
      "The notification is not signed with the provider's secret (webhook-id, webhook-timestamp, webhook-signature)",
  },
  NOTIFICATION_STALE: { status: 400, message: "The notification's timestamp is outside the accepted window" },
  NOTIFICATION_REPLAYED: { status: 409, message: 'This notification id was heard already with another body' },
  NOTIFICATION_ACCOUNT_UNKNOWN: {
    status: 404,
    message: 'No active linked account of this provider has this accountRef',
  },

  // the test clock (TEST_CLOCK=true)
  TEST_CLOCK_BACKWARDS: { status: 400, message: 'The test clock moves forward only' },

  // webhooks
  WEBHOOK_URL_REFUSED: { status: 400, message: 'Webhook URL refused' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery not found' },
  WEBHOOK_ENDPOINT_LIMIT: { status: 409, message: 'Too many webhook endpoints; remove one first' },
  WEBHOOK_ENDPOINT_DISABLED: { status: 409, message: 'Webhook endpoint is disabled (its receiver answered 410 Gone)' },

  // payment gateway: fees and method limits (src/domain/gateway-fees.ts)
  GATEWAY_AMOUNT_BELOW_MINIMUM: { status: 400, message: 'The amount is below the minimum of the payment method' },
  GATEWAY_AMOUNT_ABOVE_MAXIMUM: {
    status: 400,
    message: 'The billed amount is above the maximum of the payment method',
  },
  GATEWAY_AMOUNT_NOT_ABOVE_FEE: { status: 400, message: 'The amount is not larger than its gateway fee' },
  INVALID_HOLIDAY_CALENDAR: {
    status: 400,
    message: 'Invalid holiday calendar year: dates must lie in that year, once each',
  },
  INVALID_PERIOD: {
    status: 400,
    message: 'Invalid period: from and to are dates written YYYY-MM-DD, from not after to, at most 366 days',
  },
  PERIOD_NOT_ENDED: { status: 409, message: 'The month has not ended (WIB): it cannot be closed yet' },
  PERIOD_ALREADY_CLOSED: { status: 409, message: 'The month is closed already' },
  PERIOD_NOT_CLOSED: { status: 409, message: 'The month is not closed' },
  PERIOD_OUT_OF_ORDER: {
    status: 409,
    message: 'Months close in order, and only the latest closed month reopens',
  },

  // auditors
  STREAM_NOT_FOUND: { status: 404, message: 'No stream has that id' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * A refusal: its code's status from the registry, and its message (the code's own unless the throw site says more);
 * `params` for other words than the message, `words` when the throw site is a page and says it in the page's words.
 */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string = errorCodes[code].message,
    readonly errors: ErrorDetail[] = [],
    readonly params: RefusalParams = {},
    readonly words: string | null = null,
  ) {
    super(message);
    this.status = errorCodes[code].status;
  }
}

export type RefusalDetails = {
  /** the API's message, when the throw site says more than the code's */
  message?: string;
  /** the fields at fault */
  errors?: ErrorDetail[];
  /** what a page needs to say it in its words (src/web/refusal-words.ts) */
  params?: RefusalParams;
  /** a page's own refusal, in the page's words (Indonesian); the API's message stays the code's */
  words?: string;
};

/** The one way to refuse: `throw refuse('ACCOUNT_NOT_FOUND')`, or with a message, the fields at fault, params. */
export function refuse(code: ErrorCode, details: RefusalDetails = {}): DomainError {
  return new DomainError(code, details.message, details.errors, details.params, details.words);
}

/** docs/reference/errors.md: the registry as a table per status. */
export function errorCodesMarkdown(): string {
  const rows = (Object.entries(errorCodes) as [ErrorCode, ErrorSpec][])
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(
      ([code, spec]) =>
        `| ${spec.status} | \`${code}\` | ${spec.surface === 'session' ? 'session (`{ok:false,message}`)' : 'key and dashboard'} | ${spec.message} |`,
    );
  return [
    '# Error codes',
    '',
    'Generated from `src/errors.ts` by `npm run docs:errors`; a test fails when this file is out of date.',
    '',
    'The key surface and the dashboard answer `{"status":"error","code":"<CODE>","message":"...","errors":[{"path","message"}]}`;',
    'the session surface (`/api/auth`) answers `{"ok":false,"message":"..."}`. A message may say more than the one below',
    '(which account, which fields).',
    '',
    '| status | code | surface | message |',
    '| --: | :-- | :-- | :-- |',
    ...rows,
    '',
  ].join('\n');
}
