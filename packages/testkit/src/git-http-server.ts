/**
 * A private git server over HTTP for tests: Node's http server in front of `git http-backend`
 * (the CGI of Debian's git package, spawned per request) serving the bare repositories under
 * one directory, behind basic auth. Listening on all addresses lets step containers reach it
 * at the host's address on the Docker bridge (`dockerHostAddress`). Every request is recorded, with whether
 * its credentials were accepted, so a test can check what a client sent.
 * @module
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnavailableError } from '@sluice/errors';
import { findOrInstall } from './apt-install.js';
import { childEnv } from './config.js';

export const GIT_HTTP_UNAVAILABLE = 'SLUICE_TEST_GIT_HTTP_UNAVAILABLE';
const BACKEND = '/usr/lib/git-core/git-http-backend';

export interface StartGitHttpServerOptions {
  /** The directory holding the bare repositories: `<root>/owner/name.git` is `/owner/name.git`. */
  root: string;
  /** The one login accepted; every request without it gets 401. */
  username: string;
  password: string;
  /**
   * Which client addresses may use it (e.g. a cluster's pods only); others get 403 and are
   * recorded as `forbidden`. Everyone by default.
   */
  allow?: (remoteAddress: string) => boolean;
}

export interface GitHttpRequest {
  method: string;
  /** The path and query, as requested. */
  url: string;
  /**
   * `accepted`, `refused` (wrong login), `anonymous` (no Authorization header) or `forbidden`
   * (from an address `allow` refuses).
   */
  auth: 'accepted' | 'refused' | 'anonymous' | 'forbidden';
  /** The client's address, as the server saw it. */
  from: string;
}

export interface GitHttpServer {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The server's URL through another address of this machine, e.g. a Docker gateway. */
  urlVia(host: string): string;
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

export async function startGitHttpServer(
  options: StartGitHttpServerOptions,
): Promise<GitHttpServer> {
  const found = await findOrInstall('git', 'git');
  if (found.path === undefined)
    throw new UnavailableError(GIT_HTTP_UNAVAILABLE, 'git is not installed', {
      hint: 'Run: apt-get install -y git',
    });
  const requests: GitHttpRequest[] = [];
  const expected = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const header = req.headers.authorization;
    const auth =
      options.allow?.(from) === false
        ? 'forbidden'
        : header === undefined
          ? 'anonymous'
          : header === expected
            ? 'accepted'
            : 'refused';
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', auth, from });
    if (auth === 'forbidden') {
      res.writeHead(403).end(`not for ${from}\n`);
      return;
    }
    if (auth !== 'accepted') {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="sluice-test"' });
      res.end('authentication required\n');
      return;
    }
    serveCgi(req, res, options.root);
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    urlVia: (host) => `http://${host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serveCgi(req: IncomingMessage, res: ServerResponse, root: string): void {
  const url = new URL(req.url ?? '/', 'http://git.test');
  const child = spawn(BACKEND, [], {
    env: childEnv({
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      REMOTE_USER: 'test',
      REMOTE_ADDR: req.socket.remoteAddress ?? '',
    }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headerDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headerDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    headerDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10);
      else if (name !== '') res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => res.end());
  child.on('error', (err) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  });
}
