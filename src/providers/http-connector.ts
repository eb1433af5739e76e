import {
  ConsecutiveBreaker,
  ExponentialBackoff,
  TimeoutStrategy,
  circuitBreaker,
  handleType,
  handleWhen,
  retry,
  timeout,
  wrap,
  BrokenCircuitError,
  TaskCancelledError,
  type IPolicy,
} from 'cockatiel';
import { z } from 'zod';
import {
  ProviderError,
  type LoggedIn,
  type ProviderConnector,
  type ProviderFailure,
  type ProviderSession,
  type SecondOtpRequired,
} from './connector.ts';
import { cleanText } from '../text.ts';

/** What a provider says lands in events: cleaned of what PostgreSQL cannot store. */
const providerText = z.string().transform(cleanText);

const sessionResponse = z.object({
  sessionToken: providerText,
  expiresAt: providerText,
  account: z.object({ accountRef: providerText, holderName: providerText }),
});
const secondOtpResponse = z.object({
  secondOtpRequired: z.literal(true),
  challengeId: providerText,
  expiresAt: providerText,
});
const challengeResponse = z.object({ challengeId: providerText, expiresAt: providerText, otpLength: z.int() });
const balanceResponse = z.object({ balance: z.int() });
const transactionsResponse = z.object({
  transactions: z.array(
    z.object({
      id: providerText,
      type: z.enum(['CREDIT', 'DEBIT']),
      amount: z.int().nonnegative(),
      description: providerText.default(''),
      senderName: providerText.default(''),
      reference: providerText.nullable().default(null),
      occurredAt: providerText,
    }),
  ),
  hasMore: z.boolean(),
});
const qrisResponse = z.object({ payload: z.string().min(20).transform(cleanText) });
const bankEntry = z.object({
  instId: providerText,
  name: providerText,
  instLocalName: providerText,
  payMethod: providerText,
  payOption: providerText,
});
const banksResponse = z.object({ banks: z.array(bankEntry) });
const inquiryResponse = z.object({ accountName: providerText });
const receiptResponse = z.object({ transactionId: providerText });
const transferStatusResponse = z.union([
  z.object({ status: z.literal('SUCCESS'), transactionId: providerText }),
  z.object({ status: z.literal('FAILED'), reason: providerText }),
  z.object({ status: z.literal('NOT_FOUND') }),
]);
const errorBody = z.object({ error: z.string(), message: z.string().optional() }).partial();

const failureByCode: Record<string, ProviderFailure> = {
  INVALID_CREDENTIALS: 'invalid-credentials',
  LOGIN_REFUSED: 'invalid-credentials',
  SESSION_EXPIRED: 'session-expired',
  WRONG_OTP: 'wrong-otp',
  CHALLENGE_EXPIRED: 'challenge-expired',
  CHALLENGE_LOCKED: 'challenge-expired',
  CHALLENGE_NOT_FOUND: 'challenge-expired',
  PROVIDER_UNAVAILABLE: 'unavailable',
  INSUFFICIENT_BALANCE: 'insufficient-balance',
};

/** Worth another attempt: the provider did not answer, or answered that it is in trouble. */
class Transient extends Error {}
/** The request never left: no connection could be made, so even a call that moves money may be sent again. */
class NotSent extends Transient {}

/** Errors of a connection that was never made (nothing was written to the provider). */
const notConnected = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
function neverSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[] } }).cause;
  if (!cause) return false;
  if (Array.isArray(cause.errors) && cause.errors.length > 0)
    return cause.errors.every(e => notConnected.has(String(e.code))); // happy eyeballs: every address tried
  return notConnected.has(String(cause.code));
}

export type HttpConnectorOptions = {
  baseUrl: string;
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  breakerThreshold?: number;
  breakerHalfOpenMs?: number;
};

type CallInit = { method?: string; body?: unknown; session?: ProviderSession; retrySafe?: boolean };

/**
 * The policy a call runs under: one circuit per provider, so one provider's outage does not stop the others; only safe
 * calls are retried after sending.
 */
function providerPolicies(options: HttpConnectorOptions): (providerCode: string, retrySafe: boolean) => IPolicy {
  const onTransient = handleWhen(err => err instanceof Transient || err instanceof TaskCancelledError);
  const backoff = {
    maxAttempts: (options.attempts ?? 3) - 1,
    backoff: new ExponentialBackoff({ initialDelay: options.backoffMs ?? 200, maxDelay: 2000 }),
  };
  const retries = retry(onTransient, backoff);
  // a call that is not safe to repeat (it moves money, or uses a one-time challenge) is sent again only if it never left
  const retriesNotSent = retry(handleType(NotSent), backoff);
  const breakers = new Map<string, IPolicy>();
  return (providerCode, retrySafe) => {
    let breaker = breakers.get(providerCode);
    if (!breaker) {
      breaker = wrap(
        circuitBreaker(onTransient, {
          halfOpenAfter: options.breakerHalfOpenMs ?? 10_000,
          breaker: new ConsecutiveBreaker(options.breakerThreshold ?? 5),
        }),
        timeout(options.timeoutMs ?? 5000, TimeoutStrategy.Aggressive),
      );
      breakers.set(providerCode, breaker);
    }
    return wrap(retrySafe ? retries : retriesNotSent, breaker);
  };
}

/** One request to the provider: its body as the schema reads it, a refusal as a ProviderError, the rest transient. */
async function requestOnce<T>(
  url: string,
  providerCode: string,
  schema: z.ZodType<T>,
  init: CallInit,
  signal: AbortSignal,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      signal,
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.session ? { authorization: `Bearer ${init.session.token}` } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const Failure = neverSent(err) ? NotSent : Transient;
    throw new Failure(`provider ${providerCode} unreachable: ${(err as Error).message}`);
  }
  const json: unknown = await response.json().catch(() => ({}));
  if (response.status >= 500 || response.status === 429)
    throw new Transient(`provider ${providerCode} answered ${response.status}`);
  if (!response.ok) {
    const body = errorBody.safeParse(json);
    const code = body.success ? (body.data.error ?? '') : '';
    throw new ProviderError(
      failureByCode[code] ?? 'rejected',
      (body.success && body.data.message) || `provider answered ${response.status} ${code}`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ProviderError('rejected', `provider ${providerCode} answered an unexpected body`);
  return parsed.data;
}

/** A connector speaking HTTP to a provider: timeouts, retries with backoff on transient failures, a circuit per provider. */
export function httpConnector(options: HttpConnectorOptions): ProviderConnector {
  const policyFor = providerPolicies(options);

  async function call<T>(providerCode: string, path: string, schema: z.ZodType<T>, init: CallInit = {}): Promise<T> {
    const url = `${options.baseUrl}/providers/${encodeURIComponent(providerCode)}${path}`;
    try {
      return await policyFor(providerCode, init.retrySafe ?? (init.method ?? 'GET') === 'GET').execute(({ signal }) =>
        requestOnce(url, providerCode, schema, init, signal),
      );
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (err instanceof BrokenCircuitError)
        throw new ProviderError('unavailable', `provider ${providerCode} is failing; circuit open`);
      if (err instanceof Transient || err instanceof TaskCancelledError)
        throw new ProviderError('unavailable', `provider ${providerCode} unavailable`);
      throw err;
    }
  }

  return { ...loginCalls(call), ...accountCalls(call) };
}

/** A call to a provider under its policy (see httpConnector). */
type Call = <T>(providerCode: string, path: string, schema: z.ZodType<T>, init?: CallInit) => Promise<T>;
type LoginCalls = 'loginBank' | 'loginDirect' | 'sendOtp' | 'verifyOtp';

const loggedIn = (r: z.infer<typeof sessionResponse>): LoggedIn => ({
  kind: 'session',
  session: { token: r.sessionToken, expiresAt: r.expiresAt },
  holderName: r.account.holderName,
});
const accountPath = (accountRef: string, rest: string) => `/accounts/${encodeURIComponent(accountRef)}${rest}`;

/** Logging in: by credentials, by phone number, or by OTP. */
function loginCalls(call: Call): Pick<ProviderConnector, LoginCalls> {
  return {
    async loginBank(providerCode, input) {
      return loggedIn(
        await call(providerCode, '/login', sessionResponse, { method: 'POST', body: input, retrySafe: true }),
      );
    },
    async loginDirect(providerCode, input) {
      return loggedIn(
        await call(providerCode, '/login', sessionResponse, { method: 'POST', body: input, retrySafe: true }),
      );
    },
    // a verification is never retried: an OTP challenge can be used once
    sendOtp(providerCode, input) {
      return call(providerCode, '/otp', challengeResponse, { method: 'POST', body: input });
    },
    async verifyOtp(providerCode, input): Promise<LoggedIn | SecondOtpRequired> {
      const result = await call(providerCode, '/otp/verify', z.union([secondOtpResponse, sessionResponse]), {
        method: 'POST',
        body: input,
      });
      return 'secondOtpRequired' in result
        ? { kind: 'second-otp', challengeId: result.challengeId, expiresAt: result.expiresAt }
        : loggedIn(result);
    },
  };
}

/** What a logged-in account does: reads its balance, transactions and QRIS, and moves money. */
function accountCalls(call: Call): Omit<ProviderConnector, LoginCalls> {
  return {
    async fetchBalance(providerCode, accountRef, session) {
      return (await call(providerCode, accountPath(accountRef, '/balance'), balanceResponse, { session })).balance;
    },
    fetchTransactions(providerCode, accountRef, session, after) {
      const query = after ? `?after=${encodeURIComponent(after)}&limit=100` : '?limit=100';
      return call(providerCode, accountPath(accountRef, `/transactions${query}`), transactionsResponse, { session });
    },
    async fetchStaticQris(providerCode, accountRef, session) {
      return (await call(providerCode, accountPath(accountRef, '/qris'), qrisResponse, { session })).payload;
    },
    async openVirtualAccount(providerCode, accountRef, session, vaNumber) {
      // the same number again is harmless: retried like a read
      await call(providerCode, accountPath(accountRef, '/virtual-accounts'), z.object({ vaNumber: providerText }), {
        method: 'POST',
        body: { vaNumber },
        session,
        retrySafe: true,
      });
    },
    async listBanks(providerCode, accountRef, session) {
      return (await call(providerCode, accountPath(accountRef, '/banks'), banksResponse, { session })).banks;
    },
    inquireBankAccount(providerCode, accountRef, session, input) {
      return call(providerCode, accountPath(accountRef, '/bank-inquiries'), inquiryResponse, {
        method: 'POST',
        body: input,
        session,
        retrySafe: true,
      });
    },
    // money moves: sent again only when it never left (no connection); no answer (a timeout, a 5xx, a connection lost)
    // is an unknown outcome, ProviderError 'unavailable', and the caller asks transferStatus by the reference
    transferToBank(providerCode, accountRef, session, input) {
      return call(providerCode, accountPath(accountRef, '/bank-transfers'), receiptResponse, {
        method: 'POST',
        body: input,
        session,
        retrySafe: false,
      });
    },
    payQris(providerCode, accountRef, session, input) {
      return call(providerCode, accountPath(accountRef, '/qris-payments'), receiptResponse, {
        method: 'POST',
        body: input,
        session,
        retrySafe: false,
      });
    },
    transferStatus(providerCode, accountRef, session, reference) {
      return call(
        providerCode,
        accountPath(accountRef, `/transfers/${encodeURIComponent(reference)}`),
        transferStatusResponse,
        { session },
      );
    },
  };
}
