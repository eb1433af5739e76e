import { createHash, randomUUID } from 'node:crypto';
import { WrongExpectedRevision } from '../store/event-store.ts';
import { hashPassword } from '../security/passwords.ts';
import type { StoreDeps } from './deps.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { emailTaken, user, userEmail, userEmailStream, userStream } from '../domain/user.ts';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();
const emailHash = (email: string) => createHash('sha256').update(normaliseEmail(email)).digest('hex');

export type Registration = { name: string; email: string; password: string; role?: 'USER' | 'ADMIN' };

/**
 * Claims the email, then opens the user's stream. A registration cut off between the two leaves a claim whose
 * user stream does not exist: the next registration of that email takes the claim over instead of being refused.
 */
export async function registerUser(deps: StoreDeps, input: Registration): Promise<{ userId: string }> {
  const { clock } = deps;
  const email = normaliseEmail(input.email);
  const claimStream = userEmailStream(emailHash(email));
  const existing = await load(deps, claimStream, userEmail);
  let userId = existing.state.claimedBy ?? randomUUID();
  if (existing.state.claimedBy) {
    if ((await load(deps, userStream(existing.state.claimedBy), user)).exists) throw emailTaken();
  } else {
    await handleCommand(
      deps,
      claimStream,
      userEmail,
      { type: 'ClaimEmail', userId },
      { actor: `user:${userId}`, now: clock.now() },
    );
  }
  const passwordHash = await hashPassword(input.password);
  try {
    const result = await handleCommand(
      deps,
      userStream(userId),
      user,
      {
        type: 'RegisterUser',
        userId,
        name: input.name.trim(),
        email,
        passwordHash,
        role: input.role ?? 'USER',
        now: clock.now(),
      },
      { actor: `user:${userId}`, now: clock.now() },
    );
    await deps.readModels.waitFor(result.position);
  } catch (err) {
    // a concurrent registration took the same abandoned claim over first
    if (err instanceof WrongExpectedRevision) throw emailTaken();
    throw err;
  }
  return { userId };
}
