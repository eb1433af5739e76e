import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  approveGatewayAccess,
  deactivateGatewayAccess,
  rejectGatewayAccess,
} from '../../commands/gateway-access-decisions.ts';
import { gatewayMethods, paymentMethod } from '../../domain/payment-methods.ts';
import { refuse, type DomainError } from '../../errors.ts';
import { listGatewayAccess, servedGatewayMethods } from '../../projections/gateway-access.ts';
import { text } from '../../text.ts';
import { accessReviewHtml, holdingWarningHtml } from '../../web/pages/admin.ts';
import type { AppDeps } from '../deps.ts';
import { queryFilters } from './list-filters.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const accessQuery = z.object({ status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional() });
// a blank or missing note is refused in the form's words
const noteForm = z.object({
  note: text.trim().min(1, 'Catatan wajib diisi').max(1000, 'Catatan maksimal 1000 karakter').prefault(''),
});
const doneNotices: Record<string, string> = {
  approved: 'Akses disetujui.',
  rejected: 'Pengajuan ditolak.',
  deactivated: 'Merchant dinonaktifkan.',
};
const merchantNotFound = () => refuse('NOT_FOUND', { words: 'Merchant tidak ditemukan' });

/** The warning that approved or waiting merchants would be refused for want of a holding account, or ''. */
export async function holdingWarning(deps: AppDeps): Promise<string> {
  const [approved, pending, served] = await Promise.all([
    listGatewayAccess(deps.pool, 'APPROVED'),
    listGatewayAccess(deps.pool, 'PENDING'),
    servedGatewayMethods(deps.pool),
  ]);
  if (approved.length + pending.length === 0) return '';
  const unserved = gatewayMethods.filter(m => paymentMethod(m).creatable && !served.includes(m));
  return holdingWarningHtml(unserved, served.length === 0);
}

async function accessPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, refused?: DomainError) {
  const { value, refusal } = queryFilters(request, accessQuery);
  const { status } = value;
  const error = refused ?? refusal;
  const [rows, warning] = await Promise.all([listGatewayAccess(deps.pool, status), holdingWarning(deps)]);
  return sendPage(
    reply,
    { ...frameOf(request, 'Akses gateway', 'access'), notice: noticeOf(request, doneNotices, error) },
    accessReviewHtml(rows, status ?? '', request.viewer!.csrf, warning),
    { status: error?.status ?? 200 },
  );
}

/** The admin console's review of gateway access: merchants approved, rejected or deactivated, each with a note. */
export function adminAccessPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    /** Runs a decision on the merchant the path names, then back to the review; a refusal shows the review with it. */
    const review =
      (run: (adminId: string, merchantId: string, request: FastifyRequest) => Promise<string>) =>
      async (request: FastifyRequest<{ Params: { userId: string } }>, reply: FastifyReply) => {
        const merchantId = pathId(request.params.userId, merchantNotFound);
        return orShowRefusal(
          async () => seeOther(reply, '/admin/access', await run(request.viewer!.user.id, merchantId, request)),
          error => accessPage(deps, request, reply, error),
        );
      };

    app.get('/access', (request, reply) => accessPage(deps, request, reply));
    app.post(
      '/access/:userId/approve',
      review(async (adminId, merchantId) => {
        await approveGatewayAccess(deps, adminId, merchantId);
        return 'approved';
      }),
    );
    app.post(
      '/access/:userId/reject',
      review(async (adminId, merchantId, request) => {
        await rejectGatewayAccess(deps, adminId, merchantId, postedForm(request, noteForm).note);
        return 'rejected';
      }),
    );
    app.post(
      '/access/:userId/deactivate',
      review(async (adminId, merchantId, request) => {
        await deactivateGatewayAccess(deps, adminId, merchantId, postedForm(request, noteForm).note);
        return 'deactivated';
      }),
    );
  };
}
