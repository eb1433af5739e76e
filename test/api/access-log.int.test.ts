import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startTestService, type TestService } from '../support/service.ts';

type Line = {
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
} & Record<string, unknown>;

describe('the access log', () => {
  const lines: Line[] = [];
  let service: TestService;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    service = await startTestService({}, { log: createLogger('info', sink) });
  });
  afterAll(() => service?.close());

  it('says each request once, when it is answered: method, path, status, time, and no credential', async () => {
    lines.length = 0;
    const answered = await service.app.inject({
      method: 'GET',
      url: '/api/v1/payments?limit=1',
      headers: { 'x-api-key': 'sk_live_not-a-real-key', cookie: 'session=secret-session' },
    });
    expect(answered.statusCode).toBe(401);

    const requestLines = lines.filter(l => l.req);
    expect(requestLines).toHaveLength(1);
    const [line] = requestLines;
    expect(line).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', url: '/api/v1/payments?limit=1' },
      res: { statusCode: 401 },
    });
    expect(line!.responseTime).toEqual(expect.any(Number));
    expect(line!.reqId).toEqual(expect.any(String));
    expect(lines.some(l => l.msg === 'incoming request')).toBe(false);
    expect(JSON.stringify(lines)).not.toMatch(/not-a-real-key|secret-session/);
  });

  it('makes no request logger for a request that logs nothing but its access line', async () => {
    lines.length = 0;
    const child = vi.spyOn(service.app.log, 'child');
    try {
      const answered = await service.app.inject({ method: 'GET', url: '/health' });
      expect(answered.statusCode).toBe(200);
      expect(child).not.toHaveBeenCalled();
      expect(lines.filter(l => l.req)).toHaveLength(1);
    } finally {
      child.mockRestore();
    }
  });

  it('writes the URL without the values of query parameters named for credentials', async () => {
    lines.length = 0;
    const answered = await service.app.inject({
      method: 'GET',
      url: '/api/v1/payments?limit=1&api_key=sk_live_in-the-url&Token=tok-in-the-url&page=2',
    });
    expect(answered.statusCode).toBe(401);
    const [line] = lines.filter(l => l.req);
    expect(line!.req!.url).toBe('/api/v1/payments?limit=1&api_key=[redacted]&Token=[redacted]&page=2');
    expect(JSON.stringify(lines)).not.toMatch(/in-the-url/);
  });
});
