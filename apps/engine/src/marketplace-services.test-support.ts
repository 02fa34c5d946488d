/**
 * Test-only services for the marketplace step types (step-types/): an HTTP receiver that records
 * each request and answers as the test says (Slack, GitHub, Codecov stand-ins), and a git server
 * over smart HTTP with basic auth (`git http-backend` behind Node's HTTP server). Both listen on
 * every address of the host, and are reached from step containers through the host's address on
 * Docker's default bridge.
 * @module
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCommand } from '@sluice/testkit';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface ReceiverAnswer {
  status?: number;
  body?: string;
  contentType?: string;
}

export interface Receiver {
  /** `http://HOST:PORT` as step containers reach it. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * The host's address on Docker's default bridge, where containers reach the host. Asked of the
 * engine: Node lists no address for docker0 while no container is attached to it.
 */
export async function containerHostAddress(): Promise<string> {
  const format = '{{range .IPAM.Config}}{{.Gateway}}{{end}}';
  const result = await runCommand('docker', ['network', 'inspect', 'bridge', '--format', format]);
  const address = result.stdout.trim();
  if (result.code !== 0 || address === '')
    throw new Error(
      `Docker's default bridge has no gateway address (${result.stderr.trim()}): start dockerd with its default bridge (node packages/testkit/dist/bin/prepare.js)`,
    );
  return address;
}

/** Records every request; `answer` says what to send back (200 with no body by default). */
export async function startReceiver(
  answer: (request: RecordedRequest, receiverUrl: string) => ReceiverAnswer = () => ({}),
): Promise<Receiver> {
  const host = await containerHostAddress();
  const requests: RecordedRequest[] = [];
  let url = '';
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      const reply = answer(request, url);
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' });
      res.end(reply.body ?? '');
    });
  });
  url = `http://${host}:${await listen(server)}`;
  return { url, requests, close: () => close(server) };
}

export interface GitHttpServerOptions {
  /** Directory holding the bare repositories, served as /NAME.git. */
  root: string;
  user: string;
  password: string;
}

export interface GitHttpServer {
  url: string;
  /** Pushes refused for want of the right credentials. */
  refused: number;
  close(): Promise<void>;
}

/** `git http-backend`: fetches for anyone, pushes behind basic auth (other credentials: 401). */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  const host = await containerHostAddress();
  const state = { refused: 0 };
  const server = createServer((req, res) => {
    // As on GitHub for a public repository: anyone may fetch, a push needs the credentials.
    const push = (req.url ?? '').includes('git-receive-pack');
    if (push && req.headers.authorization !== expected) {
      state.refused += 1;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
      res.end();
      return;
    }
    serveGit(req, res, options);
  });
  const port = await listen(server);
  return {
    url: `http://${host}:${port}`,
    get refused() {
      return state.refused;
    },
    close: () => close(server),
  };
}

/** One CGI request to `git http-backend`: its header block, then the body as it comes. */
function serveGit(req: IncomingMessage, res: ServerResponse, options: GitHttpServerOptions): void {
  const [path = '', query = ''] = (req.url ?? '').split(/\?(.*)/s);
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      REMOTE_USER: options.user,
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(path),
      QUERY_STRING: query,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: req.headers['content-length'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    started = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const [name = '', value = ''] = line.split(/:\s*(.*)/s);
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => res.end());
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
