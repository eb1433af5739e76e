import type { FastifyInstance } from 'fastify';
import { listGatewayAccess, listHoldingAccounts } from '../../projections/gateway-access.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import { uncoveredYears } from '../../projections/holiday-calendar.ts';
import { adminOverviewHtml } from '../../web/pages/admin.ts';
import type { AppDeps } from '../deps.ts';
import { adminAccessPages, holdingWarning } from './admin-access-pages.ts';
import { adminHoldingPages } from './admin-holding-pages.ts';
import { adminPeriodPages } from './admin-period-pages.ts';
import { adminReconciliationPages } from './admin-reconciliation-pages.ts';
import { adminReportPages } from './admin-report-pages.ts';
import { adminSuspensePages } from './admin-suspense-pages.ts';
import { adminWithdrawalPages } from './admin-withdrawal-pages.ts';
import { sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

/**
 * The admin console: its overview, then one plugin per area (gateway access review, holding accounts, withdrawals,
 * suspense, finance's reconciliation, its periods and reports), each decision recorded as the admin's.
 */
export function adminPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/', async (request, reply) => {
      const [pending, requested, holding, uncovered, warning] = await Promise.all([
        listGatewayAccess(deps.pool, 'PENDING'),
        listGatewayWithdrawals(deps.pool, { status: 'REQUESTED' }),
        listHoldingAccounts(deps.pool),
        uncoveredYears(deps.pool, deps.clock.now()),
        holdingWarning(deps),
      ]);
      const counts = {
        pendingAccess: pending.length,
        requestedWithdrawals: requested.length,
        holdingAccounts: holding.length,
        uncoveredYears: uncovered,
      };
      return sendPage(reply, frameOf(request, 'Konsol admin', 'admin'), `${warning}${adminOverviewHtml(counts)}`);
    });
    await app.register(adminAccessPages(deps));
    await app.register(adminHoldingPages(deps));
    await app.register(adminWithdrawalPages(deps));
    await app.register(adminSuspensePages(deps));
    await app.register(adminReconciliationPages(deps));
    await app.register(adminPeriodPages(deps));
    await app.register(adminReportPages(deps));
  };
}
