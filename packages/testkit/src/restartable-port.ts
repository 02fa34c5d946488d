/**
 * Ports for a server a test stops and starts again on the same port (to show what its clients
 * do meanwhile). `freeLoopbackPort` gives a port of the kernel's ephemeral range, which the
 * kernel also hands to any process's `listen(0)` and outgoing connections: with test files
 * running side by side, one of theirs can take the port while the server is down, and the
 * restart fails. A port below that range is only ever taken by whoever asks for it by number.
 * @module
 */
import { readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { freeLoopbackPort } from './postgres.js';

/** Below Kubernetes' NodePorts (30000–32767), which a test cluster's kube-proxy may hold. */
const HIGHEST = 29_999;
const LOWEST = 20_000;

/**
 * A port of 127.0.0.1 that nobody listens on now, chosen at random below the ephemeral range
 * (`ip_local_port_range`), so it stays free while the server that gets it is down.
 */
export async function freeRestartablePort(): Promise<number> {
  const highest = Math.min(HIGHEST, ephemeralLow() - 1);
  for (let attempt = 0; attempt < 50 && highest > LOWEST; attempt++) {
    const port = randomInt(LOWEST, highest + 1);
    if (await listenable(port)) return port;
  }
  // A machine whose ephemeral range starts low: the kernel's choice, as before.
  return freeLoopbackPort();
}

/** The first port of the kernel's ephemeral range (32768 unless configured otherwise). */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const value = Number(low);
    return Number.isInteger(value) && value > 0 ? value : 32_768;
  } catch {
    return 32_768;
  }
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
