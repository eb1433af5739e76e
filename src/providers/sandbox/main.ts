import path from 'node:path';
import { z } from 'zod';
import { systemClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import { loopbackOr } from '../../security/address-guard.ts';
import { pushTo, type SandboxPush } from './notifications.ts';
import { startSandbox } from './server.ts';

/** Runs the sandbox provider alone: `tsx src/providers/sandbox/main.ts`. */
const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
    // loopback unless told otherwise: its control routes hand out OTP codes and credit accounts
    SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    // beside loopback, the addresses or CIDRs (comma-separated) whose requests the control routes (/sandbox/*) answer
    SANDBOX_CONTROL_ALLOW: z.string().default(''),
    NODE_ENV: z.string().optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // notifications pushed to a service (docs/sandbox.md): its base URL, and the secret of each provider that pushes
    SANDBOX_PUSH_URL: z.url().optional(),
    PROVIDER_NOTIFICATION_SECRETS: z.string().default(''),
  })
  .safeParse(process.env);
if (!env.success) {
  console.error(
    `Invalid configuration:\n${env.error.issues.map(i => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
  );
  process.exit(2);
}

if (env.data.NODE_ENV === 'production') {
  console.error('Invalid configuration:\n  NODE_ENV: the sandbox provider does not run with NODE_ENV=production');
  process.exit(2);
}
let controlAllowed: (address: string) => boolean;
try {
  controlAllowed = loopbackOr(
    env.data.SANDBOX_CONTROL_ALLOW.split(',')
      .map(v => v.trim())
      .filter(Boolean),
  );
} catch {
  console.error('Invalid configuration:\n  SANDBOX_CONTROL_ALLOW: addresses or CIDRs, comma-separated');
  process.exit(2);
}

const log = createLogger(env.data.LOG_LEVEL);
let push: SandboxPush | undefined;
try {
  push = pushTo(env.data.SANDBOX_PUSH_URL, env.data.PROVIDER_NOTIFICATION_SECRETS);
} catch {
  console.error(
    'Invalid configuration:\n  PROVIDER_NOTIFICATION_SECRETS: CODE=whsec_<base64> entries, comma-separated',
  );
  process.exit(2);
}
const sandbox = await startSandbox({
  clock: systemClock,
  log,
  port: env.data.SANDBOX_PORT,
  host: env.data.SANDBOX_HOST,
  controlAllowed,
  push,
  stateFile: path.join(env.data.DATA_DIR, 'sandbox-state.json'),
});
console.log(
  `Sandbox ready: ${sandbox.url} on ${env.data.SANDBOX_HOST}; its control routes answer loopback${env.data.SANDBOX_CONTROL_ALLOW ? ` and ${env.data.SANDBOX_CONTROL_ALLOW}` : ' only'}`,
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'sandbox shutting down');
  sandbox.close().then(
    () => process.exit(0),
    err => {
      log.error({ err }, 'sandbox shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
