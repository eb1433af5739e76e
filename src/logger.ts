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

export type { Logger };
