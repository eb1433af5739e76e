import type { Payment } from '../domain/payments.ts';
import { isQrType } from '../domain/payment-methods.ts';
import type { PaymentRow } from './payments.ts';

export { isQrType };

export const paymentUrlOf = (baseUrl: string, paymentId: string) => `${baseUrl}/pay/${paymentId}`;
export const qrisImageUrlOf = (baseUrl: string, paymentId: string) => `${baseUrl}/pay/${paymentId}/qris.png`;

/** A payment as create, the status query and webhooks show it (the interface's Payment resource). */
export function presentPayment(row: PaymentRow, baseUrl: string) {
  return {
    id: row.id,
    orderId: row.order_id,
    // a gateway payment's holding account is never shown (the interface says so)
    walletAccountId: row.gateway ? 'GATEWAY' : row.receiving_account_id,
    status: row.status,
    type: row.type,
    ...(row.method_selection === 'payer' ? { methodSelection: 'payer' } : {}),
    amount: row.amount,
    // no final amount before the payer has chosen how to pay
    ...(row.total_amount !== null ? { uniqueCode: row.unique_code, totalAmount: row.total_amount } : {}),
    ...(row.account_number ? { accountNumber: row.account_number } : {}),
    ...(isQrType(row.type) ? { qrisImage: qrisImageUrlOf(baseUrl, row.id) } : {}),
    // the payload the PNG encodes, as gateways' QR APIs answer it: a client renders or pays it without decoding an image
    ...(isQrType(row.type) && row.qris_payload ? { qrString: row.qris_payload } : {}),
    paymentUrl: paymentUrlOf(baseUrl, row.id),
    redirectUrl: row.redirect_url,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    ...(row.paid_at ? { paidAt: row.paid_at.toISOString() } : {}),
    ...(row.completed_at ? { completedAt: row.completed_at.toISOString() } : {}),
    ...(row.expired_at ? { expiredAt: row.expired_at.toISOString() } : {}),
    ...gatewayMetadata(row),
  };
}

/**
 * A gateway payment's metadata: the amount the merchant asked for when the buyer pays the fee (amount is then the
 * raised figure), and once the method is chosen the fee and the net the ledger credits: the bill's amount less its fee
 * (interface gateway rules 3 and 4; the unique code on top is the platform's). A payment credited before the platform
 * kept the codes was credited totalAmount - fee: its statement entry keeps what was booked.
 */
function gatewayMetadata(row: PaymentRow) {
  if (!row.gateway) return {};
  const base = row.fee_to_customer ? { baseAmount: row.base_amount } : {};
  const fee =
    row.gateway_fee !== null && row.total_amount !== null
      ? { fee: row.gateway_fee, net: row.amount - row.gateway_fee }
      : null;
  return fee || row.fee_to_customer ? { metadata: { ...base, ...fee } } : {};
}

export type PresentedPayment = ReturnType<typeof presentPayment>;

/** The same view from the payment's own stream (for the sagas, which run ahead of the read model). */
export function rowOfPayment(state: Exclude<Payment, { status: 'NONE' }>): PaymentRow {
  const date = (iso: string | undefined) => (iso ? new Date(iso) : null);
  return {
    id: state.paymentId,
    owner_id: state.ownerId,
    order_id: state.orderId,
    receiving_account_id: state.receivingAccountId,
    provider_code: state.providerCode,
    type: state.type,
    amount: state.amount,
    unique_code: state.uniqueCode,
    total_amount: state.totalAmount,
    method_selection: state.methodSelection,
    account_number: state.accountNumber,
    qris_payload: state.qrisPayload,
    redirect_url: state.redirectUrl,
    status: state.status,
    expires_at: new Date(state.expiresAt),
    created_at: new Date(state.createdAt),
    mutation_id: state.status === 'COMPLETED' ? state.mutationId : null,
    paid_at: date(state.status === 'COMPLETED' ? state.paidAt : undefined),
    completed_at: date(state.status === 'COMPLETED' ? state.completedAt : undefined),
    expired_at: date(state.status === 'EXPIRED' ? state.expiredAt : undefined),
    gateway: state.gateway !== null,
    base_amount: state.gateway?.baseAmount ?? null,
    fee_to_customer: state.gateway?.feeToCustomer ?? null,
    gateway_fee: state.gateway?.fee ?? null,
  };
}
