import { randomBytes } from 'node:crypto';
import { refuse } from '../errors.ts';
import type { Queryable } from '../db/pool.ts';
import { user, userStream, type ChangePassword } from '../domain/user.ts';
import { openSessionIdsOf } from '../projections/sessions.ts';
import { findUserIdByEmail } from '../projections/users.ts';
import { checkNewPassword } from '../security/password-rules.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { endSession, type SessionDeps } from './login.ts';
import { normaliseEmail } from './registration.ts';

export type PasswordDeps = SessionDeps & { pool: Queryable };

export const wrongCurrentPassword = () => refuse('WRONG_CURRENT_PASSWORD');

/** Records the new password's argon2id hash on the user's stream (never the password), then ends their sessions but `keep`. */
async function replacePassword(
  deps: PasswordDeps,
  userId: string,
  password: string,
  change: { reason: ChangePassword['reason']; actor: string; keep: string | null },
): Promise<void> {
  const passwordHash = await hashPassword(password);
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    userStream(userId),
    user,
    { type: 'ChangePassword', passwordHash, reason: change.reason, now },
    { actor: change.actor, now },
  );
  await deps.readModels.waitFor(result.position);
  // after the change is recorded: a session that outlives a failure here still ends with the next change
  for (const sessionId of await openSessionIdsOf(deps.pool, userId, deps.wallClock.now()))
    if (sessionId !== change.keep) await endSession(deps, sessionId, change.actor, 'revoked');
}

/**
 * The signed-in user's new password, given their current one: checked against the rules of a new password first
 * (400), then the current one against their stream (401 WRONG_CURRENT_PASSWORD). Their other sessions end; the one
 * they changed it from goes on.
 */
export async function changePassword(
  deps: PasswordDeps,
  input: { userId: string; sessionId: string; currentPassword: string; newPassword: string },
): Promise<void> {
  checkNewPassword(input.newPassword);
  await checkCurrentPassword(deps, input.userId, input.currentPassword);
  await replacePassword(deps, input.userId, input.newPassword, {
    reason: 'changed',
    actor: `user:${input.userId}`,
    keep: input.sessionId,
  });
}

/** Throws WRONG_CURRENT_PASSWORD unless `password` is the user's current one. */
export async function checkCurrentPassword(deps: PasswordDeps, userId: string, password: string): Promise<void> {
  const { state } = await load(deps, userStream(userId), user);
  if (!state.registered || !(await verifyPassword(state.passwordHash, password))) throw wrongCurrentPassword();
}

/** A temporary password: 96 random bits in 16 characters of base64url, far from any common password. */
export const temporaryPassword = () => randomBytes(12).toString('base64url');

/**
 * An admin's reset of a user's password (the CLI): a random temporary password replaces it, every session of the user
 * ends, and the temporary password is answered once for the admin to hand over. Null when no user has that email.
 */
export async function resetPassword(
  deps: PasswordDeps,
  email: string,
  actor: string,
): Promise<{ userId: string; temporaryPassword: string } | null> {
  const userId = await findUserIdByEmail(deps.pool, normaliseEmail(email));
  if (!userId) return null;
  const password = temporaryPassword();
  await replacePassword(deps, userId, password, { reason: 'reset', actor, keep: null });
  return { userId, temporaryPassword: password };
}
