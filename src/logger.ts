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

/** Query parameters whose names say they carry a credential: a client that puts its key in the URL keeps it out of logs. */
const credentialParameter = /^(api[-_]?key|key|token|access[-_]?token|secret|password|pin|otp|signature)$/i;

/** A request's URL for the log: the value of every credential-named query parameter replaced. */
export function urlForLog(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const parts = url
    .slice(query + 1)
    .split('&')
    .map(part => {
      const name = part.split('=', 1)[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape is logged as it came: it names nothing we redact
      }
      return credentialParameter.test(decoded) ? `${name}=[redacted]` : part;
    });
  return `${url.slice(0, query)}?${parts.join('&')}`;
}

type LoggedRequest = {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  headers?: Record<string, unknown>;
};

/** fastify's request serializer, with the URL as urlForLog gives it. */
const requestForLog = (req: LoggedRequest) => ({
  method: req.method,
  url: typeof req.url === 'string' ? urlForLog(req.url) : req.url,
  version: req.headers?.['accept-version'],
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: redactedPaths, censor: '[redacted]' }, serializers: { req: requestForLog } };
}

/**
 * The logger of the access line, one a request, as a child of `log`: the line's fields are what the serializers pick
 * (requestForLog: method, URL with credential values replaced, host, address; the answer's status; its time), never a
 * header or a body, so the redaction has nothing to find there. It goes without the redaction, whose paths are tried on
 * every field of every line and cost several times the rest of the line; the line is the same.
 */
export function accessLogger<L extends { child(bindings: object, options: { redact: string[] }): L }>(log: L): L {
  return log.child({}, { redact: [] });
}

const logMethods = new Set<string | symbol>(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent', 'child']);

/**
 * A request's logger, made when the request first logs: most log nothing but their access line (accessLogger), and
 * making a child runs the redaction over its bindings (about 3 µs and 6 KB of garbage a request). Its log methods are
 * there before it is made, for fastify's check of them; anything else asked of it makes it.
 */
export function lazyLogger<L extends object>(make: () => L): L {
  let made: L | undefined;
  const logger = () => (made ??= make()) as Record<string | symbol, unknown>;
  return new Proxy({} as L, {
    get: (_target, key) => {
      if (logMethods.has(key))
        return (...args: unknown[]) => {
          const made = logger();
          return (made[key] as (...a: unknown[]) => unknown).apply(made, args);
        };
      const value = Reflect.get(logger(), key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(logger()) : value;
    },
    has: (_target, key) => logMethods.has(key) || Reflect.has(logger(), key),
    set: (_target, key, value) => Reflect.set(logger(), key, value),
  });
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
