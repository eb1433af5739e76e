import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port the kernel hands out for listen(0) comes from its ephemeral range, the same range it takes the local port of
// every outgoing connection from. Between our closing the probe and the real listener (or postgres) binding it, any
// connection in any process may take it. Below that range only another listener can, so the port is picked there.

/** Where the common default ephemeral range starts, for a kernel that does not say. */
const defaultEphemeralLow = 32768;
const lowestPicked = 10_000;
const tries = 50;

/** The lowest port of the kernel's ephemeral range (Linux); elsewhere the common default's. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // not Linux
  }
  return defaultEphemeralLow;
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
  const low = ephemeralLow();
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
