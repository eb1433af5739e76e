import { randomUUID } from 'node:crypto';
import { refuse } from '../errors.ts';
import { verifyAgainstNothing, verifyPassword } from '../security/passwords.ts';
import type { CommandDeps } from './deps.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { normaliseEmail } from './registration.ts';
import { session, sessionStream, type SessionEndReason } from '../domain/session.ts';
import { user, userStream } from '../domain/user.ts';

export const wrongCredentials = () => refuse('INVALID_CREDENTIALS');

export type Device = { userAgent: string | null; ip: string | null };

export async function startSession(
  deps: CommandDeps & { sessionTtlMs: number },
  userId: string,
  device: Device,
): Promise<{ sessionId: string; issuedAt: Date; expiresAt: Date }> {
  const sessionId = randomUUID();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlMs);
  const result = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'StartSession', sessionId, userId, ...device, now, expiresAt },
    { actor: `user:${userId}`, now },
  );
  await deps.readModels.waitFor(result.position);
  return { sessionId, issuedAt: now, expiresAt };
}

/** `userId` comes from the users read model (found by email); the password is checked against the user's stream. */
export async function checkPassword(deps: CommandDeps, userId: string | null, email: string, password: string) {
  if (!userId) return verifyAgainstNothing(password);
  const { state } = await load(deps, userStream(userId), user);
  if (!state.registered || state.email !== normaliseEmail(email)) return verifyAgainstNothing(password);
  return verifyPassword(state.passwordHash, password);
}

export async function endSession(
  deps: CommandDeps,
  sessionId: string,
  actor: string,
  reason: SessionEndReason,
): Promise<void> {
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'EndSession', reason, now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
}

/** Ends the session if it went unused for `idleMs`; answers whether it is over (idle now, or ended before). */
export async function endIfIdle(deps: CommandDeps, sessionId: string, idleMs: number): Promise<boolean> {
  const now = deps.clock.now();
  const handled = await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'EndIdleSession', now, idleMs },
    { actor: 'system:session-idle', now },
  );
  if (handled.position) await deps.readModels.waitFor(handled.position);
  return handled.state.status !== 'active';
}

/** Called on authenticated requests; records at most one SessionSeen per few minutes. */
export async function recordSessionSeen(
  deps: CommandDeps,
  sessionId: string,
  actor: string,
  idleMs: number,
): Promise<void> {
  const now = deps.clock.now();
  await handleCommand(
    deps,
    sessionStream(sessionId),
    session,
    { type: 'RecordSessionSeen', now, idleMs },
    { actor, now },
  );
}
