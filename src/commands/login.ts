import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { refuse } from '../errors.ts';
import { verifyAgainstNothing, verifyPassword } from '../security/passwords.ts';
import type { StoreDeps } from './deps.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { normaliseEmail } from './registration.ts';
import { session, sessionStream, type SessionEndReason } from '../domain/session.ts';
import { user, userStream } from '../domain/user.ts';

export const wrongCredentials = () => refuse('INVALID_CREDENTIALS');

export type Device = { userAgent: string | null; ip: string | null };

/**
 * A session's times (start, use, idle and absolute expiry) are the wall clock's: how long a person has been away is
 * not business time, which the test clock moves. The events keep the log's time (`clock`) as every other event does.
 */
export type SessionDeps = StoreDeps & { wallClock: Clock };

export async function startSession(
  deps: SessionDeps & { sessionTtlMs: number },
  userId: string,
  device: Device,
): Promise<{ sessionId: string; issuedAt: Date; expiresAt: Date }> {
  const sessionId = randomUUID();
  const now = deps.wallClock.now();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlMs);
  const result = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'StartSession', sessionId, userId, ...device, now, expiresAt },
    { actor: `user:${userId}`, now: deps.clock.now() },
  );
  await deps.readModels.waitFor(result.position);
  return { sessionId, issuedAt: now, expiresAt };
}

/** `userId` comes from the users read model (found by email); the password is checked against the user's stream. */
export async function checkPassword(deps: StoreDeps, userId: string | null, email: string, password: string) {
  if (!userId) return verifyAgainstNothing(password);
  const { state } = await load(deps, userStream(userId), user);
  if (!state.registered || state.email !== normaliseEmail(email)) return verifyAgainstNothing(password);
  return verifyPassword(state.passwordHash, password);
}

export async function endSession(
  deps: SessionDeps,
  sessionId: string,
  actor: string,
  reason: SessionEndReason,
): Promise<void> {
  const result = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'EndSession', reason, now: deps.wallClock.now() },
    { actor, now: deps.clock.now() },
  );
  await deps.readModels.waitFor(result.position);
}

/** Ends the session if it went unused for `idleMs`; answers whether it is over (idle now, or ended before). */
export async function endIfIdle(deps: SessionDeps, sessionId: string, idleMs: number): Promise<boolean> {
  const handled = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'EndIdleSession', now: deps.wallClock.now(), idleMs },
    { actor: 'system:session-idle', now: deps.clock.now() },
  );
  if (handled.position) await deps.readModels.waitFor(handled.position);
  return handled.state.status !== 'active';
}

/** Called on authenticated requests; records at most one SessionSeen per few minutes. */
export async function recordSessionSeen(
  deps: SessionDeps,
  sessionId: string,
  actor: string,
  idleMs: number,
): Promise<void> {
  await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'RecordSessionSeen', now: deps.wallClock.now(), idleMs },
    { actor, now: deps.clock.now() },
  );
}
