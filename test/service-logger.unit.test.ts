import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { accessLogger, createLogger, lazyLogger } from '../src/logger.ts';

/** Runs a script that logs with the service's logger and then exits as the service does, and returns what it wrote. */
function logThenExit(exit: string): string[] {
  const script = `
    import { serviceLogger } from './src/logger.ts';
    const log = serviceLogger('info');
    for (let i = 0; i < 2000; i++) log.info({ i, password: 'hunter2' }, 'line ' + i);
    ${exit}
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).not.toBeNull();
  return r.stdout.split('\n').filter(Boolean);
}

describe("the service's asynchronous logger", () => {
  it('writes every line logged before process.exit, in order, with secrets redacted', () => {
    const lines = logThenExit('process.exit(0);');
    expect(lines).toHaveLength(2000);
    const parsed = lines.map(l => JSON.parse(l) as { i: number; password: string });
    expect(parsed.map(p => p.i)).toEqual([...Array(2000).keys()]);
    expect(new Set(parsed.map(p => p.password))).toEqual(new Set(['[redacted]']));
  });

  it('writes every line logged before a fatal error ends the process', () => {
    const lines = logThenExit("throw new Error('boom');");
    expect(lines).toHaveLength(2000);
  });
});

describe('the access line', () => {
  it('is the line the redacting request logger writes, credentials in headers and URL left out', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const log = createLogger('info', sink);
    const req = {
      method: 'POST',
      url: '/api/v1/payments?api_key=sk_live_in-the-url&page=2',
      host: 'pay.example',
      ip: '203.0.113.7',
      socket: { remotePort: 51000 },
      headers: { 'x-api-key': 'sk_live_not-a-real-key', cookie: 'session=secret-session', authorization: 'Bearer t' },
    };
    const res = { statusCode: 201 };
    log.child({ reqId: 'req-7' }).info({ req, res, responseTime: 1.5 }, 'request completed');
    accessLogger(log).info({ reqId: 'req-7', req, res, responseTime: 1.5 }, 'request completed');
    const [redacting, access] = lines.map(l => l.replace(/"time":\d+,/, ''));
    expect(access).toBe(redacting);
    expect(access).toContain('"url":"/api/v1/payments?api_key=[redacted]&page=2"');
    expect(access).not.toMatch(/in-the-url|not-a-real-key|secret-session|Bearer/);
  });
});

describe("a request's logger", () => {
  it('is made when it first logs, and writes what the child it makes writes', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) } as never);
    let made = 0;
    const lazy = lazyLogger(() => (made++, log.child({ reqId: 'req-9' })));
    // fastify checks the methods on every request: that makes nothing
    expect(['info', 'error', 'debug', 'fatal', 'warn', 'trace', 'child'].every(m => m in lazy)).toBe(true);
    expect(typeof lazy.info).toBe('function');
    expect(made).toBe(0);
    lazy.warn({ password: 'hunter2' }, 'lost a race');
    lazy.error('failed');
    expect(made).toBe(1);
    expect(lazy.level).toBe('info');
    expect(lines.map(l => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { level: 40, reqId: 'req-9', password: '[redacted]', msg: 'lost a race' },
      { level: 50, reqId: 'req-9', msg: 'failed' },
    ]);
  });
});
