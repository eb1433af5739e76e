import { z } from 'zod';
import { refuse } from '../errors.ts';
import { findSandboxProvider } from './sandbox/catalogue.ts';

/**
 * A customer of the sandbox provider: pays a bill through the sandbox's control API (`POST /sandbox/payments`), as a
 * tester would by hand. The sandbox knows accounts, QR payloads and virtual accounts, never the service's payments: the
 * service names the bill (the payload, the VA number or the account number, and the amount) from its own payment.
 */
export type SandboxBill =
  | { qris: string }
  | { vaNumber: string; amount: number }
  | { providerCode: string; accountNumber: string; amount: number };

export type SandboxPaid = { transactionId: string; providerCode: string; accountRef: string; amount: number };

export type SandboxPayer = {
  /** Whether the sandbox plays this provider: its accounts, and the money paid into them, are the sandbox's. */
  plays(providerCode: string): boolean;
  pay(bill: SandboxBill): Promise<SandboxPaid>;
};

const paidAnswer = z.object({
  transactionId: z.string(),
  providerCode: z.string(),
  accountRef: z.string(),
  amount: z.int(),
});
const refusalAnswer = z.object({ error: z.string(), message: z.string() });

/** The sandbox at `baseUrl` (the one the service starts, or SANDBOX_URL's). */
export function sandboxPayer(baseUrl: string, timeoutMs = 5000): SandboxPayer {
  return {
    plays: providerCode => findSandboxProvider(providerCode) !== undefined,
    async pay(bill) {
      let response: Response;
      try {
        response = await fetch(new URL('/sandbox/payments', baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(bill),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch {
        throw refuse('SANDBOX_UNAVAILABLE');
      }
      const body: unknown = await response.json().catch(() => null);
      if (response.ok) {
        const paid = paidAnswer.safeParse(body);
        if (paid.success) return paid.data;
        throw refuse('SANDBOX_UNAVAILABLE', { message: 'The sandbox provider answered something else than a payment' });
      }
      if (response.status >= 500) throw refuse('SANDBOX_UNAVAILABLE');
      // its own words: a control API that answers only loopback (403), a bill it does not know (404)...
      const refusal = refusalAnswer.safeParse(body);
      throw refuse('SANDBOX_PAYMENT_REFUSED', {
        message: refusal.success
          ? `The sandbox provider refused to pay the bill: ${refusal.data.error}: ${refusal.data.message}`
          : `The sandbox provider refused to pay the bill (HTTP ${response.status})`,
        params: { reason: refusal.success ? refusal.data.error : String(response.status) },
      });
    },
  };
}
