import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  allocateSuspenseCredit,
  refundSuspenseCredit,
  untransferSuspenseCredit,
  type AllocationTarget,
} from '../../commands/gateway-suspense.ts';
import { DomainError, refuse } from '../../errors.ts';
import { listHoldingAccounts } from '../../projections/gateway-access.ts';
import { listSuspense, type SuspenseRow } from '../../projections/gateway-suspense.ts';
import { findUser } from '../../projections/users.ts';
import { text } from '../../text.ts';
import { adminSuspenseHtml, suspenseStatuses } from '../../web/pages/admin-suspense.ts';
import type { AppDeps } from '../deps.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const suspenseQuery = z.object({ status: z.enum(suspenseStatuses).default('OPEN') });
const note = text.trim().min(1, 'Catatan wajib diisi').max(1000, 'Catatan maksimal 1000 karakter');
const reference = text.trim().min(1, 'Referensi wajib diisi').max(200, 'Referensi maksimal 200 karakter');
const reason = text.trim().min(1, 'Alasan wajib diisi').max(1000, 'Alasan maksimal 1000 karakter');
const optionalId = text.trim().max(100, 'ID terlalu panjang');

const doneNotices: Record<string, string> = {
  allocated: 'Dana dialokasikan: saldo tertunda merchant bertambah sebesar jumlahnya dikurangi biaya.',
  refunded: 'Pengembalian dana ke pengirim dicatat.',
  untransferred: 'Dana kembali terbuka; pemindahan dananya menunggu dana masuknya lagi.',
};

const suspenseNotFound = () => refuse('SUSPENSE_NOT_FOUND', { words: 'Dana tak terklaim ini tidak ditemukan' });
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];

/** The allocation form's target: a payment id or a merchant's user id, exactly one, a UUID (else it names nothing). */
function targetOf(request: FastifyRequest): AllocationTarget {
  const paymentId = optionalId.parse(field(request, 'paymentId') ?? '');
  const userId = optionalId.parse(field(request, 'userId') ?? '');
  if (!paymentId === !userId)
    throw refuse('VALIDATION_ERROR', { words: 'Isi ID pembayaran atau ID pengguna merchant, salah satu saja' });
  const invalid = (said: string) => refuse('SUSPENSE_TARGET_INVALID', { words: said });
  if (paymentId) {
    if (!z.uuid().safeParse(paymentId).success) throw invalid(targetWords.payment);
    return { paymentId };
  }
  if (!z.uuid().safeParse(userId).success) throw invalid(targetWords.merchant);
  return { userId };
}

const targetWords = {
  payment: 'ID pembayaran tidak menunjuk pembayaran gateway mana pun',
  merchant: 'ID pengguna tidak menunjuk merchant gateway yang disetujui',
};

/** An allocation whose target names nothing the command takes, said of the target the form filled in. */
async function targetInPageWords<T>(target: AllocationTarget, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError && err.code === 'SUSPENSE_TARGET_INVALID')
      throw refuse(err.code, { words: 'paymentId' in target ? targetWords.payment : targetWords.merchant });
    throw err;
  }
}

/** The emails of the merchants and admins the rows name, by user id. */
async function peopleOf(deps: AppDeps, rows: SuspenseRow[]): Promise<Map<string, string>> {
  const ids = new Set(
    rows
      .flatMap(r => [r.merchantId, r.resolvedBy, r.suggestion?.merchantId ?? null, r.untransferred?.by ?? null])
      .filter((id): id is string => id !== null),
  );
  const users = await Promise.all([...ids].map(id => findUser(deps.pool, id)));
  return new Map(users.filter(u => u !== null).map(u => [u.id, u.email]));
}

/** The admin console's suspense page: the credits no payment claims, allocated or refunded by a form. */
export function adminSuspensePages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const adminId = (request: FastifyRequest) => request.viewer!.user.id;

    const suspensePage = async (request: FastifyRequest, reply: FastifyReply, refused?: DomainError) => {
      const { value, refusal } = queryFilters(request, suspenseQuery);
      const shown = value.status;
      const error = refused ?? refusal;
      const [rows, holding] = await Promise.all([
        listSuspense(deps.pool, { status: shown }),
        listHoldingAccounts(deps.pool),
      ]);
      const view = {
        rows,
        status: shown,
        csrf: request.viewer!.csrf,
        holding: new Map(holding.map(h => [h.account_id, { name: h.account_name, providerCode: h.provider_code }])),
        people: await peopleOf(deps, rows),
      };
      return sendPage(
        reply,
        { ...frameOf(request, 'Dana tak terklaim', 'suspense'), notice: noticeOf(request, doneNotices, error) },
        adminSuspenseHtml(view),
        {
          status: error?.status ?? 200,
        },
      );
    };
    /** Runs a decision and goes back to the open credits; a refusal shows the page with its message instead. */
    const decide = (request: FastifyRequest, reply: FastifyReply, run: () => Promise<string>) =>
      orShowRefusal(
        async () => seeOther(reply, '/admin/suspense', await run()),
        error => suspensePage(request, reply, error),
      );

    app.get('/suspense', (request, reply) => suspensePage(request, reply));
    app.post<{ Params: { id: string } }>('/suspense/:id/allocate', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, suspenseNotFound);
        const target = targetOf(request);
        const why = note.parse(field(request, 'note') ?? '');
        await targetInPageWords(target, () =>
          allocateSuspenseCredit(deps, deps.config.gateway, adminId(request), id, target, why),
        );
        return 'allocated';
      }),
    );
    app.post<{ Params: { id: string } }>('/suspense/:id/refund', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, suspenseNotFound);
        const ref = reference.parse(field(request, 'reference') ?? '');
        const why = note.parse(field(request, 'note') ?? '');
        await refundSuspenseCredit(deps, adminId(request), id, ref, why);
        return 'refunded';
      }),
    );
    app.post<{ Params: { id: string } }>('/suspense/:id/untransfer', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, suspenseNotFound);
        const why = reason.parse(field(request, 'reason') ?? '');
        await untransferSuspenseCredit(deps, adminId(request), id, why);
        return 'untransferred';
      }),
    );
  };
}
