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
