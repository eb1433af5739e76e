import { SandboxError } from './errors.ts';

/**
 * Trouble switched on by tests: latency, failures, outages, forced second OTPs, refused logins. Faults act on
 * the provider-facing API only; each scope is one provider or '*' for all of them, and both scopes apply.
 */
export type FaultSettings = {
  latencyMs: number;
  /** The next N provider-facing requests answer 500. */
  failNext: number;
  /** Share of provider-facing requests that answer 500, drawn from a PRNG seeded with `seed`. */
  failureRate: number;
  seed: number;
  outage: boolean;
  requireSecondOtp: boolean;
  refuseLogin: boolean;
  /** The next N transfers (bank or QR) are refused (400 TRANSFER_REFUSED): nothing moves, the status says NOT_FOUND. */
  transferRefuse: number;
  /** The next N transfers are done but their answer never comes in time (504 after transferHoldMs); the status says SUCCESS. */
  transferTimeout: number;
  /** The next N transfers are debited, given back by a CREDIT, and answered like a timeout; the status says FAILED. */
  transferFailAfterAccept: number;
  /** How long the answer of a timed-out transfer is held before its 504: above the connector's timeout, the connector times out. */
  transferHoldMs: number;
  /** Notifications of money landed (pushed to the service) are sent this much later (wall time): late. */
  notificationDelayMs: number;
  /** The next N notifications are sent twice, the second a retry with the same id and body: duplicated. */
  notificationDuplicate: number;
  /** The next N notifications are signed with a wrong secret: forged. */
  notificationForge: number;
  /** The next N notifications are never sent: lost (the service's polling still finds the money). */
  notificationLose: number;
};

/** What happens to one notification: sent late, twice, badly signed, or not at all. */
export type NotificationFault = { delayMs: number; duplicate: boolean; forge: boolean; lose: boolean };

export type TransferFault = 'refuse' | 'timeout' | 'fail-after-accept';

export const allProviders = '*';

const none: FaultSettings = {
  latencyMs: 0,
  failNext: 0,
  failureRate: 0,
  seed: 1,
  outage: false,
  requireSecondOtp: false,
  refuseLogin: false,
  transferRefuse: 0,
  transferTimeout: 0,
  transferFailAfterAccept: 0,
  transferHoldMs: 0,
  notificationDelayMs: 0,
  notificationDuplicate: 0,
  notificationForge: 0,
  notificationLose: 0,
};

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Scope = { settings: FaultSettings; random: () => number };

const isNone = (s: FaultSettings) =>
  s.latencyMs === 0 &&
  s.failNext === 0 &&
  s.failureRate === 0 &&
  !s.outage &&
  !s.requireSecondOtp &&
  !s.refuseLogin &&
  s.transferRefuse === 0 &&
  s.transferTimeout === 0 &&
  s.transferFailAfterAccept === 0 &&
  s.transferHoldMs === 0 &&
  s.notificationDelayMs === 0 &&
  s.notificationDuplicate === 0 &&
  s.notificationForge === 0 &&
  s.notificationLose === 0;

export class Faults {
  private readonly scopes = new Map<string, Scope>();

  /** Merges the given switches into a scope; a new failureRate or seed restarts its random sequence. */
  set(scope: string, change: Partial<FaultSettings>): void {
    const current = this.scopes.get(scope);
    const settings = { ...(current?.settings ?? none), ...change };
    if (isNone(settings)) {
      this.scopes.delete(scope);
      return;
    }
    const reseed = !current || change.failureRate !== undefined || change.seed !== undefined;
    this.scopes.set(scope, { settings, random: reseed ? seededRandom(settings.seed) : current.random });
  }

  clear(scope?: string): void {
    if (scope === undefined) this.scopes.clear();
    else this.scopes.delete(scope);
  }

  view(): Record<string, FaultSettings> {
    return Object.fromEntries([...this.scopes].map(([scope, { settings }]) => [scope, { ...settings }]));
  }

  private applying(providerCode: string): Scope[] {
    return [this.scopes.get(providerCode), this.scopes.get(allProviders)].filter((s): s is Scope => s !== undefined);
  }

  private dropSpent(): void {
    for (const [key, scope] of this.scopes) if (isNone(scope.settings)) this.scopes.delete(key);
  }

  /** The transfer fault that applies to the next transfer, counted down; null when none is switched on. */
  takeTransferFault(providerCode: string): TransferFault | null {
    const switches = [
      ['transferRefuse', 'refuse'],
      ['transferTimeout', 'timeout'],
      ['transferFailAfterAccept', 'fail-after-accept'],
    ] as const;
    for (const scope of this.applying(providerCode))
      for (const [field, fault] of switches)
        if (scope.settings[field] > 0) {
          scope.settings[field] -= 1;
          this.dropSpent();
          return fault;
        }
    return null;
  }

  /** How long a timed-out transfer's answer is held (wall time); the larger of the two scopes wins. */
  transferHoldMs(providerCode: string): number {
    return Math.max(0, ...this.applying(providerCode).map(s => s.settings.transferHoldMs));
  }

  /** The faults of the next notification of the provider, its counters counted down (each scope's first that applies). */
  takeNotificationFault(providerCode: string): NotificationFault {
    const scopes = this.applying(providerCode);
    const take = (field: 'notificationDuplicate' | 'notificationForge' | 'notificationLose') => {
      const scope = scopes.find(s => s.settings[field] > 0);
      if (scope) scope.settings[field] -= 1;
      return scope !== undefined;
    };
    const lose = take('notificationLose');
    const fault = {
      delayMs: Math.max(0, ...scopes.map(s => s.settings.notificationDelayMs)),
      lose,
      forge: !lose && take('notificationForge'),
      duplicate: !lose && take('notificationDuplicate'),
    };
    this.dropSpent();
    return fault;
  }

  refusesLogin(providerCode: string): boolean {
    return this.applying(providerCode).some(s => s.settings.refuseLogin);
  }

  requiresSecondOtp(providerCode: string): boolean {
    return this.applying(providerCode).some(s => s.settings.requireSecondOtp);
  }

  /** Runs before every provider-facing request: waits the latency, then fails it when a fault says so. */
  async beforeRequest(providerCode: string): Promise<void> {
    const scopes = this.applying(providerCode);
    const latency = Math.max(0, ...scopes.map(s => s.settings.latencyMs));
    if (latency > 0) await new Promise(resolve => setTimeout(resolve, latency));
    if (scopes.some(s => s.settings.outage))
      throw new SandboxError(503, 'PROVIDER_UNAVAILABLE', `${providerCode} is down (sandbox outage)`);
    const counting = scopes.find(s => s.settings.failNext > 0);
    if (counting) {
      counting.settings.failNext -= 1;
      this.dropSpent();
      throw new SandboxError(500, 'PROVIDER_ERROR', `${providerCode} failed (sandbox failNext)`);
    }
    for (const s of scopes)
      if (s.settings.failureRate > 0 && s.random() < s.settings.failureRate)
        throw new SandboxError(500, 'PROVIDER_ERROR', `${providerCode} failed (sandbox failureRate)`);
  }
}
