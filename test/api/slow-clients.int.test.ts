import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let port: number;

beforeAll(async () => {
  service = await startTestService({
    HTTP_REQUEST_TIMEOUT_SECONDS: '2',
    HTTP_HEADERS_TIMEOUT_SECONDS: '1',
    HTTP_IDLE_TIMEOUT_SECONDS: '3',
    HTTP_MAX_CONNECTIONS: '4',
  });
  port = Number(new URL(await service.listen()).port);
});
afterAll(() => service?.close());

type Connection = { socket: net.Socket; closed: Promise<{ afterMs: number; received: string }> };

/** A raw connection that records what the server sent and when it closed the connection. */
async function connect(): Promise<Connection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = Date.now();
  let received = '';
  socket.on('data', chunk => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; received: string }>(resolve =>
    socket.once('close', () => resolve({ afterMs: Date.now() - opened, received })),
  );
  return { socket, closed };
}

/** Sends `text` a byte at a time, every `everyMs`, until the connection closes or `text` ends. */
function trickle(socket: net.Socket, text: string, everyMs: number) {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('a client that holds a connection without finishing its request', () => {
  it('sending its body a byte at a time is answered 408 and closed once the request timeout passes', async () => {
    const { socket, closed } = await connect();
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
    );
    trickle(socket, '{"email":"slow@example.com","password":"' + 'x'.repeat(99_000), 200);
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    // the request timeout is 2 s, checked every second: never the 300 s a slow body held a connection for
    expect(afterMs).toBeGreaterThanOrEqual(1500);
    expect(afterMs).toBeLessThan(8000);
  });

  it('sending its headers a byte at a time is closed once the headers timeout passes', async () => {
    const { socket, closed } = await connect();
    trickle(socket, 'GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'y'.repeat(1000), 200);
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(afterMs).toBeLessThan(6000);
  });

  it('saying nothing at all is closed once the headers timeout passes', async () => {
    const { closed } = await connect();
    const { afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(500);
    expect(afterMs).toBeLessThan(6000);
  });

  it('beyond the connection cap, a new connection is closed at once while the open ones are answered', async () => {
    const held = await Promise.all([connect(), connect(), connect(), connect()]);
    const extra = await connect();
    const { received } = await extra.closed;
    expect(received).toBe('');
    const [first] = held;
    first!.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect((await first!.closed).received).toMatch(/^HTTP\/1\.1 200/);
    for (const { socket } of held) socket.destroy();
  });
});
