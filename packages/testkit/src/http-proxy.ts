/**
 * A small HTTP proxy on loopback that records what goes through it: CONNECT tunnels (what
 * undici's ProxyAgent and curl use) and plain forward requests. Host names listed in `hosts`
 * resolve only here, so a client that reaches them proves it went through the proxy. The
 * request lines of plain HTTP carried inside a tunnel are recorded too (`METHOD /path`).
 * @module
 */
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';

export interface StartHttpProxyOptions {
  /** Host names only the proxy resolves, to the address to connect instead (`127.0.0.1`). */
  hosts?: Record<string, string>;
}

export interface HttpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `CONNECT host:port`, and `METHOD /path` of each HTTP request seen, in order. */
  requests: string[];
  close(): Promise<void>;
}

const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP\/1\.[01]\r?$/gm;

export async function startHttpProxy(options: StartHttpProxyOptions = {}): Promise<HttpProxy> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const resolve = (host: string) => options.hosts?.[host] ?? host;
  const server: Server = createServer((req, res) => {
    // A forward request: the absolute URL in the request line.
    const target = new URL(req.url ?? '/');
    requests.push(`${req.method ?? 'GET'} ${target.pathname}${target.search}`);
    const upstream = request(
      {
        host: resolve(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket: Socket, head: Buffer) => {
    requests.push(`CONNECT ${req.url ?? ''}`);
    const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), resolve(host), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
      // Plain HTTP in the tunnel shows its request lines; TLS shows nothing readable.
      socket.on('data', (bytes: Buffer) => {
        for (const match of bytes.toString('latin1').matchAll(REQUEST_LINE))
          requests.push(`${match[1]} ${match[2]}`);
      });
    });
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
