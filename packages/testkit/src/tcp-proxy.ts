/**
 * A TCP proxy on loopback whose connections a test can cut, as when a database's host goes
 * away: `cut()` resets every connection and stops listening (new ones are refused), `restore()`
 * listens again on the same port. For tests of losing and regaining PostgreSQL without
 * stopping a server other tests share.
 * @module
 */
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { freeRestartablePort } from './restartable-port.js';

export interface CuttableProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A proxy to the host and port of `url` (e.g. a `postgresql://` URL). */
export async function startCuttableProxy(url: string): Promise<CuttableProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  // A port no other test file's `listen(0)` or connection takes while the proxy is cut.
  await listen(await freeRestartablePort()).catch(() => listen(0));
  const port = (server.address() as AddressInfo).port;
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  return { url: proxied.toString(), cut: stop, restore: () => listen(port), close: stop };
}
