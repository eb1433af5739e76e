import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { paymentMethodOf } from '../domain/payment-methods.ts';
import { refuse } from '../errors.ts';
import type { PaymentRow } from '../projections/payments.ts';
import type { SandboxBill, SandboxPayer } from '../providers/sandbox-payer.ts';
import type { AppDeps } from './deps.ts';
import { paymentRow } from './payments.ts';

const paymentId = z.uuid();

/**
 * The sandbox payer of a payment, when its money goes into the sandbox: the service's provider is the sandbox, and
 * it plays the receiving account's provider (a gateway payment's once the payer has chosen). Else null: a real
 * provider's bill is paid by a real customer only.
 */
export function sandboxPayerOf(deps: AppDeps, row: PaymentRow): SandboxPayer | null {
  const sandbox = deps.sandbox ?? null;
  if (!sandbox || row.receiving_account_id === null || !sandbox.plays(row.provider_code)) return null;
  return sandbox;
}

/** What the sandbox is asked to pay: the bill's QR payload, its virtual account, or the wallet's own number (DIRECT). */
export function sandboxBillOf(row: PaymentRow): SandboxBill {
  const method = paymentMethodOf(row.type);
  if (!method || row.total_amount === null || row.account_number === null) throw refuse('PAYMENT_NOT_BILLED');
  if (method.qr) {
    if (!row.qris_payload) throw refuse('PAYMENT_NOT_BILLED');
    return { qris: row.qris_payload };
  }
  if (method.va) return { vaNumber: row.account_number, amount: row.total_amount };
  return { providerCode: row.provider_code, accountNumber: row.account_number, amount: row.total_amount };
}

/**
 * POST /pay/:paymentId/sandbox-payment: the bill paid by a sandbox customer, as the payment page's "Bayar (sandbox)"
 * does. The sandbox knows no payment of the service, only QR payloads, virtual accounts and account numbers: the
 * service reads the bill from its own payment and hands it to the sandbox's control API, then checks the receiving
 * account at once, as "Saya sudah bayar" does. The UUID in the path is the only credential, as on the page.
 */
export function sandboxPaymentRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.post<{ Params: { paymentId: string } }>(
      '/pay/:paymentId/sandbox-payment',
      { config: { rateLimit: { max: 30, timeWindow: 60_000 } } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const row = paymentId.safeParse(request.params.paymentId).success
          ? await paymentRow(deps, request.params.paymentId)
          : null;
        if (!row) throw refuse('PAYMENT_NOT_FOUND');
        if (row.status !== 'PENDING' || row.expires_at <= deps.clock.now())
          throw refuse('PAYMENT_NOT_PENDING', {
            message: `The payment is ${row.status === 'PENDING' ? 'EXPIRED' : row.status}`,
          });
        const bill = sandboxBillOf(row);
        const sandbox = sandboxPayerOf(deps, row);
        if (!sandbox) throw refuse('PAYMENT_NOT_IN_SANDBOX');
        const paid = await sandbox.pay(bill);
        await deps.paymentChecks.checkNow(row.receiving_account_id!);
        return reply.code(201).send({ status: 'success', data: paid });
      },
    );
  };
}
