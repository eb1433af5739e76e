import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { signNotification, type ProviderNotification } from '../notification-signature.ts';
import type { Faults, NotificationFault } from './faults.ts';
import type { SandboxAccount } from './state.ts';

/**
 * How the sandbox pushes "money landed" to the service, as QRIS acquirers' callbacks do: for which providers, signed
 * with which secret, and how a request reaches the service (`POST {path}` with the headers and the raw body; answers
 * the status). The service that starts the sandbox shares the secrets with it.
 */
export type SandboxPush = {
  providers: readonly string[];
  secretOf(providerCode: string): string;
  send(path: string, headers: Record<string, string>, body: string): Promise<number>;
};

/** One notification as the sandbox sent it (or did not), for GET /sandbox/notifications. */
export type SentNotification = {
  id: string;
  providerCode: string;
  accountRef: string;
  transactionId: string;
  fault: 'late' | 'duplicated' | 'forged' | 'lost' | null;
  /** the service's answers, one per delivery (none when lost; the text of a failure when the service was unreachable) */
  answers: (number | string)[];
};

const kept = 100;

/** A secret the service does not know: a forged notification's. */
const forgedSecret = `whsec_${randomBytes(24).toString('base64')}`;

export function sandboxNotifier(deps: { push: SandboxPush | undefined; faults: Faults; clock: Clock; log?: Logger }) {
  const sent: SentNotification[] = [];
  const inFlight = new Set<Promise<void>>();

  const deliver = async (record: SentNotification, fault: NotificationFault, body: string) => {
    if (fault.delayMs > 0) await new Promise(resolve => setTimeout(resolve, fault.delayMs));
    const path = `/api/providers/${encodeURIComponent(record.providerCode)}/notifications`;
    const secret = fault.forge ? forgedSecret : deps.push!.secretOf(record.providerCode);
    for (let i = 0; i < (fault.duplicate ? 2 : 1); i++) {
      // each delivery is signed when it leaves, as a provider's retry is: same id and body, its own timestamp
      const headers = signNotification(secret, record.id, deps.clock.now(), body);
      try {
        record.answers.push(await deps.push!.send(path, headers, body));
      } catch (err) {
        record.answers.push(String(err));
        deps.log?.warn({ err, notificationId: record.id }, 'sandbox notification not delivered');
      }
    }
  };

  return {
    /** Money landed in `account`: the service is told, unless its provider does not push; the payer is not kept waiting. */
    credited(account: SandboxAccount, transactionId: string): void {
      const push = deps.push;
      if (!push || !push.providers.includes(account.providerCode)) return;
      const fault = deps.faults.takeNotificationFault(account.providerCode);
      const record: SentNotification = {
        id: `ntf_${transactionId}`,
        providerCode: account.providerCode,
        accountRef: account.accountRef,
        transactionId,
        fault: fault.lose
          ? 'lost'
          : fault.forge
            ? 'forged'
            : fault.duplicate
              ? 'duplicated'
              : fault.delayMs > 0
                ? 'late'
                : null,
        answers: [],
      };
      sent.push(record);
      if (sent.length > kept) sent.shift();
      if (fault.lose) return;
      const notification: ProviderNotification = { accountRef: account.accountRef, transactionId };
      const delivery = deliver(record, fault, JSON.stringify(notification)).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    },
    /** The last notifications, newest last. */
    sent: (): readonly SentNotification[] => sent,
    /** Resolves once every notification under way has been answered (tests; a closing sandbox). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

export type SandboxNotifier = ReturnType<typeof sandboxNotifier>;

/**
 * The standalone sandbox's push (src/providers/sandbox/main.ts): to the service at `url`, for every provider given a
 * secret in `secrets` (`CODE=whsec_...`, comma-separated, as the service's PROVIDER_NOTIFICATION_SECRETS); none
 * without a URL. Throws on a malformed entry.
 */
export function pushTo(url: string | undefined, secrets: string): SandboxPush | undefined {
  const entries = secrets
    .split(',')
    .map(v => v.trim())
    .filter(Boolean)
    .map(entry => {
      const match = /^([A-Z0-9-]{1,40})=(whsec_[A-Za-z0-9+/]{16,}={0,2})$/.exec(entry);
      if (!match) throw new Error(`not CODE=whsec_<base64>: ${entry}`);
      return [match[1]!, match[2]!] as const;
    });
  if (!url || entries.length === 0) return undefined;
  const secretOf = new Map(entries);
  return { providers: [...secretOf.keys()], secretOf: code => secretOf.get(code)!, send: httpSender(url) };
}

/** Posts a notification to the service at the base URL `url` over HTTP; answers the status. */
export function httpSender(url: string): SandboxPush['send'] {
  const base = url.replace(/\/$/, '');
  return async (path, headers, body) =>
    (
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(10_000),
      })
    ).status;
}
