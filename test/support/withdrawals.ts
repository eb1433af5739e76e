import { expect } from 'vitest';
import { settledBalance, signedInAdminBrowser, withSession } from './gateway.ts';
import { registerUser, sessionCookie } from './http.ts';
import type { TestService } from './service.ts';

export type WithdrawalDesk = Awaited<ReturnType<typeof withdrawalDesk>>;

/**
 * A merchant with `settled` rupiah to withdraw, signed in (again: settling moves the test clock by days, past the first
 * session), and two admins in the console: the owner, who links and marks the platform's accounts, and the payer; with
 * what tests of payouts ask of them. `remoteAddress` keeps the merchant's sign-in apart from other files' (sign-ins are
 * limited per address).
 */
export async function withdrawalDesk(service: TestService, settled: number, remoteAddress: string) {
  const registered = await registerUser(service);
  await settledBalance(service, registered.id, settled);
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: registered.email, password: registered.password },
    remoteAddress,
  });
  expect(login.statusCode, login.body).toBe(200);
  const merchant = { id: registered.id, session: withSession(service, sessionCookie(login)) };
  const owner = await signedInAdminBrowser(service);
  const payer = await signedInAdminBrowser(service);
  return {
    merchant,
    owner,
    payer,
    /** The merchant asks to withdraw to a bank account: its answer's data (201). */
    async withdraw(body: Record<string, unknown>) {
      const requested = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', body);
      expect(requested.statusCode, requested.body).toBe(201);
      return requested.json().data as { id: string; holderName: string | null; holderMatches: boolean | null };
    },
    /** A withdrawal as the payer's JSON list shows it. */
    async withdrawal(id: string) {
      const listed = (await payer.admin.session('GET', '/api/admin/gateway/withdrawals')).json().data as ({
        id: string;
        status: string;
      } & Record<string, unknown>)[];
      return listed.find(w => w.id === id)!;
    },
    /** The merchant's latest WithdrawalPaid, as its ledger stream holds it. */
    async lastPaid() {
      const events = await service.store.readStream(`gateway-${merchant.id}`);
      return events.filter(e => e.type === 'WithdrawalPaid').at(-1)!.data as {
        withdrawalId: string;
        holdingAccountId?: string;
        holderName?: string;
        holderOverride?: { reason: string; by: string };
      };
    },
  };
}
