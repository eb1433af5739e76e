import type pg from 'pg';
import type { CommandDeps } from '../commands/deps.ts';
import type { Logger } from '../logger.ts';
import type { SessionTokens } from '../security/session-token.ts';

/** Everything the HTTP layer needs, given when the app is built. */
export type AppDeps = CommandDeps & {
  pool: pg.Pool;
  log: Logger;
  tokens: SessionTokens;
  config: { publicBaseUrl: string; sessionTtlHours: number };
  /** Readiness of what the service depends on. */
  readiness(): Promise<Record<string, boolean>>;
};
