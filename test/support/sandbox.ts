import type { SentNotification } from '../../src/providers/sandbox/notifications.ts';
import type { TestService } from './service.ts';

/** Drives the sandbox provider the way a tester would, over its HTTP control API. */
export function sandboxOf(service: TestService) {
  const base = service.sandboxUrl!;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    addTransaction: (t: {
      providerCode: string;
      accountRef: string;
      type: 'CREDIT' | 'DEBIT';
      amount: number;
      description?: string;
      senderName?: string;
      reference?: string;
    }) => call('POST', '/sandbox/transactions', t) as Promise<{ id: string }>,
    faults: (f: Record<string, unknown>) => call('POST', '/sandbox/faults', f),
    clearFaults: () => call('DELETE', '/sandbox/faults'),
    /** The notifications the sandbox pushed (or lost), newest last, with the service's answers. */
    notifications: async () =>
      ((await call('GET', '/sandbox/notifications')) as { notifications: SentNotification[] }).notifications,
    /** Pays as a customer would: a QR payload, a virtual account or a transfer to an account number. */
    pay: (body: { qris?: string; vaNumber?: string; accountNumber?: string; providerCode?: string; amount?: number }) =>
      call('POST', '/sandbox/payments', body) as Promise<{ transactionId: string; amount: number }>,
    /** The provider's record of an account: its balance and transactions. */
    account: (providerCode: string, accountRef: string) =>
      call('GET', `/sandbox/accounts/${providerCode}/${encodeURIComponent(accountRef)}`) as Promise<{
        balance: number;
        transactions: { id: string; type: string; amount: number; reference: string | null }[];
      }>,
    otp: async (phone: string) =>
      ((await call('GET', `/sandbox/otp?phone=${encodeURIComponent(phone)}`)) as { code: string }).code,
  };
}

export async function eventually<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise(r => setTimeout(r, 25));
  }
}
