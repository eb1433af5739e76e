import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { z } from 'zod';
import { choosePaymentMethod } from '../commands/payments.ts';
import { DomainError, refuse } from '../errors.ts';
import { countAttempt } from '../db/attempt-counts.ts';
import { preparedQuery } from '../db/pool.ts';
import { isQrType, qrisImageUrlOf, rowOfPayment } from '../projections/payment-presenter.ts';
import type { PaymentRow } from '../projections/payments.ts';
import { gatewayBill } from '../domain/gateway-fees.ts';
import { servedGatewayMethods } from '../projections/gateway-access.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { text } from '../text.ts';
import { httpUrlOrNull } from '../web/html.ts';
import { paymentNotFoundHtml, paymentPageHtml, type PaymentPageView } from '../web/payment-page-html.ts';
import type { PayerSignal } from '../background/payment-check-signals.ts';
import type { AppDeps } from './deps.ts';
import { paymentStreamRoute } from './payment-stream.ts';
import { paymentRow } from './payments.ts';
import { sandboxPayerOf } from './sandbox-payments.ts';

const paymentId = z.uuid();
const notFound = () => refuse('PAYMENT_NOT_FOUND');
const pollMs = 3000;
const methodBody = z.object({ type: text.trim().min(1).max(20) });
/**
 * The page's script asks once with `visibility=hidden` as it goes out of sight, and not again until it is back; once
 * more with `visibility=closed` as it is closed (or left for another address), which a switch to another app never is.
 */
const statusQuery = z.object({
  visibility: z
    .enum(['hidden', 'closed'])
    .optional()
    .describe(
      'hidden: the page is going out of sight (its payer off to the wallet app); closed: the page is being closed; ' +
        'absent: the page is in sight',
    ),
});

/**
 * Where a page in sight is: on a phone its payer is reading the bill and leaves the page to pay in the wallet app; on
 * anything else the payer may pay with a phone while the page stays in sight. "Mobi" in the user agent is how
 * browsers on phones say so (tablets do not: they count as computers, checked the more often).
 */
const pageSignalOf = (request: FastifyRequest): PayerSignal =>
  /Mobi/.test(request.headers['user-agent'] ?? '') ? 'phone' : 'page';

/** The QR image of a payment, 256x256 PNG, as the interface fixes it. */
export function qrPng(payload: string): Promise<Buffer> {
  return QRCode.toBuffer(payload, { type: 'png', width: 256, margin: 2, errorCorrectionLevel: 'M' });
}

/** When the customer paid: the time of the credit that paid it, else when the payment was completed. */
const paidAtOf = (row: PaymentRow) => row.paid_at ?? row.completed_at;

/** What the page's script polls: only what the page shows, no owner or account ids. */
export function publicPaymentStatus(row: PaymentRow, baseUrl: string, now: Date) {
  const paidAt = paidAtOf(row);
  return {
    status: row.status,
    type: row.type,
    amount: row.amount,
    uniqueCode: row.unique_code,
    totalAmount: row.total_amount,
    ...(row.account_number ? { accountNumber: row.account_number } : {}),
    ...(isQrType(row.type) ? { qrisImage: qrisImageUrlOf(baseUrl, row.id) } : {}),
    expiresAt: row.expires_at.toISOString(),
    ...(paidAt ? { paidAt: paidAt.toISOString() } : {}), // the receipt's time, once paid
    redirectUrl: row.redirect_url,
    now: now.toISOString(), // the page counts down on the server's clock, not the phone's
  };
}

/** The downloaded QR's file name: `QRIS-<orderId>.png`, the order id cut to what every file system and header takes. */
export function qrisFileName(orderId: string): string {
  return `QRIS-${orderId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}.png`;
}

/**
 * Whom the customer pays, named above the amount: for a gateway payment the business name the merchant gave in the
 * access request, else the name the owner registered with (the receiving account is always the payment owner's).
 * Null while the read models have not caught up: the page then names nobody rather than someone wrong.
 */
async function shopNameOf(deps: AppDeps, row: PaymentRow): Promise<string | null> {
  const r = await preparedQuery<{ name: string; business_name: string | null }>(
    deps.pool,
    'FindPaymentShop',
    `select u.name, g.business->>'businessName' as business_name from users u left join gateway_access g on g.user_id = u.id where u.id = $1`,
    [row.owner_id],
  );
  const shop = r.rows[0];
  return (row.gateway ? shop?.business_name?.trim() || shop?.name.trim() : shop?.name.trim()) || null;
}

/**
 * What the payer may choose, for a pending payment created without a type: the receiving provider's types, or for a
 * gateway payment the methods the holding accounts serve now that take its amount, each with its own amount.
 */
async function methodsOf(deps: AppDeps, row: PaymentRow): Promise<PaymentPageView['methods']> {
  if (row.total_amount !== null || row.status !== 'PENDING') return [];
  const path = `/pay/${row.id}/method`;
  if (!row.gateway) return (findProvider(row.provider_code)?.paymentTypes ?? []).map(type => ({ type, path }));
  const served = await servedGatewayMethods(deps.pool);
  return served.flatMap(type => {
    try {
      return [
        {
          type,
          path,
          amount: gatewayBill(type as PaymentType, row.base_amount!, row.fee_to_customer!, deps.config.gateway).amount,
        },
      ];
    } catch {
      return []; // the method does not take this amount (below its minimum, above its maximum)
    }
  });
}

/**
 * A payment created without a type into an account whose provider offers one: the page offers that one method, and
 * bills it as the payer opens the page (the same choice again answers the same bill). A choice refused now (the account
 * inactive, the provider down) leaves the page offering the method, for the payer to try again.
 */
async function billedOnOpen(deps: AppDeps, row: PaymentRow): Promise<PaymentRow> {
  if (row.status !== 'PENDING' || row.type !== null || row.gateway || row.receiving_account_id === null) return row;
  const offered = findProvider(row.provider_code)?.paymentTypes ?? [];
  if (offered.length !== 1) return row;
  try {
    return rowOfPayment(await choosePaymentMethod(deps, row.id, offered[0]!, deps.config.gateway));
  } catch (err) {
    if (err instanceof DomainError) return row;
    throw err;
  }
}

function pageView(
  row: PaymentRow,
  now: Date,
  methods: PaymentPageView['methods'],
  shopName: string | null,
  sandboxPays: boolean,
): PaymentPageView {
  const qrisImagePath = isQrType(row.type) && row.qris_payload ? `/pay/${row.id}/qris.png` : null;
  return {
    status: row.status,
    orderId: row.order_id,
    shopName,
    type: row.type,
    providerName:
      row.gateway && row.receiving_account_id === null
        ? 'Gerbang pembayaran'
        : (findProvider(row.provider_code)?.name ?? row.provider_code),
    amount: row.amount,
    uniqueCode: row.unique_code,
    totalAmount: row.total_amount,
    accountNumber: row.account_number,
    qrisImagePath,
    qrisDownload: qrisImagePath ? { path: `${qrisImagePath}?download=1`, fileName: qrisFileName(row.order_id) } : null,
    statusPath: `/pay/${row.id}/status.json`,
    eventsPath: `/pay/${row.id}/events`,
    checkPath: `/pay/${row.id}/check`,
    expiresAt: row.expires_at,
    paidAt: paidAtOf(row),
    now,
    redirectUrl: httpUrlOrNull(row.redirect_url),
    pollMs,
    methods,
    // only a bill the sandbox provider takes: a real provider's page never offers it
    sandboxPayPath:
      sandboxPays && row.status === 'PENDING' && row.total_amount !== null ? `/pay/${row.id}/sandbox-payment` : null,
  };
}

/** A page allowed nothing but its own nonce'd inline script and style, same-origin images and fetches, no framing. */
function htmlHeaders(reply: FastifyReply, nonce: string) {
  return reply
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; connect-src 'self'; ` +
        `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store');
}

/** What every route of the page shares: the payment by its path's id, and the payer's signals to the checks. */
type Page = {
  deps: AppDeps;
  /** The payment of a path's id; null for an unknown or malformed one. */
  find: (id: string) => Promise<PaymentRow | null>;
  payerSeen: (row: PaymentRow, kind: PayerSignal, request: FastifyRequest) => Promise<void>;
  statusOf: (row: PaymentRow) => ReturnType<typeof publicPaymentStatus>;
};

function pageOf(deps: AppDeps): Page {
  return {
    deps,
    find: async id => (paymentId.safeParse(id).success ? paymentRow(deps, id) : null),
    // a payer at this bill now: its account's checks draw closer (src/domain/check-cadence.ts); a signal lost is only
    // a check made a little later, never a reason to fail the payer's request
    payerSeen: async (row, kind, request) => {
      if (row.status !== 'PENDING' || row.total_amount === null || row.receiving_account_id === null) return;
      await deps.paymentChecks
        .payerSeen(row.receiving_account_id, kind)
        .catch(err => request.log.warn({ err, paymentId: row.id }, 'the payer signal was not recorded'));
    },
    statusOf: row => publicPaymentStatus(row, deps.config.publicBaseUrl, deps.clock.now()),
  };
}

/** The page itself: billed as it opens when its provider offers one method; an unknown id is a page of its own. */
function pageRoute(app: FastifyInstance, { deps, find }: Page) {
  app.get<{ Params: { paymentId: string } }>('/pay/:paymentId', async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const found = await find(request.params.paymentId);
    if (!found) return htmlHeaders(reply, nonce).code(404).send(paymentNotFoundHtml(nonce));
    const row = await billedOnOpen(deps, found);
    const sandboxPays = sandboxPayerOf(deps, row) !== null;
    const view = pageView(row, deps.clock.now(), await methodsOf(deps, row), await shopNameOf(deps, row), sandboxPays);
    return htmlHeaders(reply, nonce).send(paymentPageHtml(view, nonce));
  });
}

/** What the page's script polls; each ask is a signal that the payer is at the bill. */
function statusRoute(app: FastifyInstance, { find, payerSeen, statusOf }: Page) {
  app.get<{ Params: { paymentId: string }; Querystring: z.infer<typeof statusQuery> }>(
    '/pay/:paymentId/status.json',
    { schema: { querystring: statusQuery } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const row = await find(request.params.paymentId);
      if (!row) throw notFound();
      // a page in sight asks every few seconds; one going out of sight, or being closed, asks once more to say so
      await payerSeen(row, request.query.visibility ?? pageSignalOf(request), request);
      return { status: 'success', data: statusOf(row) };
    },
  );
}

/** The payer's choice of method, for a payment created without a type; answers the new status. */
function methodRoute(app: FastifyInstance, { deps, statusOf }: Page) {
  app.post<{ Params: { paymentId: string }; Body: unknown }>('/pay/:paymentId/method', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!paymentId.safeParse(request.params.paymentId).success) throw notFound();
    const body = methodBody.safeParse(request.body);
    if (!body.success)
      throw refuse('VALIDATION_ERROR', {
        message: 'type is required: one of the methods the page offers',
        errors: [{ path: 'body.type', message: 'required' }],
      });
    const chosen = await choosePaymentMethod(deps, request.params.paymentId, body.data.type, deps.config.gateway);
    return { status: 'success', data: statusOf(rowOfPayment(chosen)) };
  });
}

/**
 * "Saya sudah bayar": the receiving account is checked now, at most once per askEverySeconds per payment, counted in
 * PostgreSQL so that every instance keeps to it.
 */
function checkRoute(app: FastifyInstance, { deps, find, statusOf }: Page) {
  const askEveryMs = deps.config.paymentChecks.askEverySeconds * 1000;
  app.post<{ Params: { paymentId: string } }>(
    '/pay/:paymentId/check',
    { config: { rateLimit: { max: 30, timeWindow: 60_000 } } }, // per address, over every payment it asks about
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const row = await find(request.params.paymentId);
      if (!row) throw notFound();
      const status = statusOf(row);
      if (row.status !== 'PENDING' || row.total_amount === null || row.receiving_account_id === null)
        return { status: 'success', checking: false, data: status };
      const asked = await countAttempt(deps.pool, `payment-check:${row.id}`, askEveryMs);
      if (asked.count > 1) {
        reply.header('retry-after', String(Math.max(Math.ceil(asked.ttlMs / 1000), 1)));
        return { status: 'success', checking: true, data: status }; // a check asked for a moment ago serves this one too
      }
      await deps.paymentChecks.checkNow(row.receiving_account_id);
      return reply.code(202).send({ status: 'success', checking: true, data: status });
    },
  );
}

/**
 * The QR image; "Unduh QRIS" asks with ?download=1: the same image, saved under the order's name (wallet apps pay a QR
 * from the gallery).
 */
function qrisRoute(app: FastifyInstance, { find, payerSeen }: Page) {
  app.get<{ Params: { paymentId: string }; Querystring: { download?: string } }>(
    '/pay/:paymentId/qris.png',
    async (request, reply) => {
      const row = await find(request.params.paymentId);
      if (!row || !isQrType(row.type) || !row.qris_payload) throw notFound();
      await payerSeen(row, 'qr', request);
      // "Unduh QRIS": a payer on a phone saving the QR for the wallet app, about to leave the page to pay
      if (request.query.download === '1') await payerSeen(row, 'download', request);
      if (request.query.download === '1')
        reply.header('content-disposition', `attachment; filename="${qrisFileName(row.order_id)}"`);
      return reply
        .type('image/png')
        .header('cache-control', 'private, max-age=300')
        .send(await qrPng(row.qris_payload));
    },
  );
}

/**
 * The hosted payment page and what the payer's browser reads without a key: the page, its status and the QR image.
 * The UUID in the path is the only credential (unguessable); an unknown or malformed one is simply not found.
 */
export function paymentPageRoutes(deps: AppDeps) {
  const page = pageOf(deps);
  return async function (app: FastifyInstance) {
    app.addHook('onRequest', async (_request, reply) => {
      reply
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff');
    });
    pageRoute(app, page);
    // the page hears its payment end at once; its polling goes on beside it, and alone where the stream fails
    await app.register(paymentStreamRoute(deps, page.find, page.statusOf));
    statusRoute(app, page);
    methodRoute(app, page);
    checkRoute(app, page);
    qrisRoute(app, page);
  };
}
