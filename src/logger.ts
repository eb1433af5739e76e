import { pino, type Logger, type LoggerOptions } from 'pino';

/** Every path that can hold a secret; pino replaces the value before it is written. */
export const redactedPaths = [
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'pin',
  '*.pin',
  'otp',
  '*.otp',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'passwordHash',
  '*.passwordHash',
  'jwtSecret',
  '*.jwtSecret',
  'encryptionKey',
  '*.encryptionKey',
  'databaseUrl',
  '*.databaseUrl',
  'embeddedPostgresPassword',
  '*.embeddedPostgresPassword',
  'serviceRolePassword',
  '*.serviceRolePassword',
  'digestSigningKey',
  '*.digestSigningKey',
  'metricsToken',
  '*.metricsToken',
];

export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: redactedPaths, censor: '[redacted]' } };
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return destination ? pino(loggerOptions(level), destination as never) : pino(loggerOptions(level));
}

/**
 * The running service's logger: lines to standard output without blocking the event loop on each write. A line is
 * written at once when no write is in flight, and the lines logged meanwhile go together in the next write, so a quiet
 * service's log is as prompt as a synchronous one and a busy one makes a write per batch instead of per line (two lines
 * a request). pino flushes what is left synchronously when the process exits, by `process.exit` or a fatal error; only
 * a SIGKILL can lose the last lines of the log (never data: nothing the service acknowledges waits for its log).
 */
export function serviceLogger(level: string): Logger {
  return pino(loggerOptions(level), pino.destination({ dest: 1, sync: false }));
}

export type { Logger };
