import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port the kernel hands out for listen(0) comes from its ephemeral range, the same range it takes the local port of
// every outgoing connection from. Between our closing the probe and the real listener (or postgres) binding it, any
// connection in any process may take it. Below that range only another listener can, so the port is picked there.

const fallbackRange = { low: 32768, high: 60999 };
const lowestPicked = 10_000;
const tries = 50;

/** The kernel's ephemeral range (Linux); elsewhere the common default. */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low!, high: high! };
  } catch {
    // not Linux
  }
  return fallbackRange;
}

function bindable(port: number, host: string): Promise<number | null> {
  return new Promise(resolve => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/** A port free on 127.0.0.1 now and outside the range outgoing connections take theirs from. */
export async function freePort(): Promise<number> {
  const { low } = ephemeralRange();
  if (low - lowestPicked >= 1000) {
    for (let i = 0; i < tries; i++) {
      const candidate = lowestPicked + Math.floor(Math.random() * (low - lowestPicked));
      if ((await bindable(candidate, '127.0.0.1')) !== null) return candidate;
    }
  }
  const port = await bindable(0, '127.0.0.1');
  if (port === null) throw new Error('no free port on 127.0.0.1');
  return port;
}
