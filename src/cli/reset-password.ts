import { resetPassword, type PasswordDeps } from '../commands/change-password.ts';
import { normaliseEmail } from '../commands/registration.ts';

/**
 * `reset-password <email>`: the user's password replaced by a random temporary one, printed once on stdout as JSON for
 * the operator to hand over, and every session of the user ended. The service makes the password rather than reading
 * one: an operator types no password into a shell's history or another process's view, and cannot choose a weak one;
 * the user changes it on the dashboard after signing in. Exit code 1 when no user has that email, 2 on bad usage.
 */
export async function resetPasswordCommand(
  deps: PasswordDeps,
  args: string[],
  print: (line: string) => void = line => console.log(line),
): Promise<number> {
  const [email, ...rest] = args;
  if (!email || rest.length > 0) {
    console.error('reset-password needs the email of one user: npm run cli -- reset-password <email>');
    return 2;
  }
  const reset = await resetPassword(deps, email, 'operator:cli');
  if (!reset) {
    console.error(`No user has the email ${normaliseEmail(email)}`);
    return 1;
  }
  print(
    JSON.stringify({ userId: reset.userId, email: normaliseEmail(email), temporaryPassword: reset.temporaryPassword }),
  );
  console.error(
    'Every session of the user has ended. The temporary password is shown only this once: hand it over privately and ' +
      'ask the user to change it at /dashboard/password after signing in.',
  );
  return 0;
}
