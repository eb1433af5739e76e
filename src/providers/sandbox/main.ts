import path from 'node:path';
import { z } from 'zod';
import { systemClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import { startSandbox } from './server.ts';

/** Runs the sandbox provider alone: `tsx src/providers/sandbox/main.ts`. */
const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATA_DIR: z.string().min(1).default('./.data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .safeParse(process.env);
if (!env.success) {
  console.error(
    `Invalid configuration:\n${env.error.issues.map(i => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
  );
  process.exit(2);
}

const log = createLogger(env.data.LOG_LEVEL);
const sandbox = await startSandbox({
  clock: systemClock,
  log,
  port: env.data.SANDBOX_PORT,
  host: env.data.HOST,
  stateFile: path.join(env.data.DATA_DIR, 'sandbox-state.json'),
});
console.log(`Sandbox ready: ${sandbox.url}`);

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
