/**
 * The control-plane connection over a real HTTP server and a real CONNECT proxy on loopback:
 * a server named outside NO_PROXY is reached through HTTP_PROXY (the name is one only the
 * proxy resolves), one named in NO_PROXY and a loopback one directly, and no start prints
 * undici's experimental warning.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createControlPlaneClient } from './control-plane-fetch.js';

/** A name that resolves nowhere: only the proxy knows where it is. */
const PROXIED_HOST = 'control-plane.sluice.invalid';

let server: Server;
let proxy: Server;
let serverPort = 0;
let proxyUrl = '';
const tunnels: string[] = [];

function listen(s: Server): Promise<number> {
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );
}

before(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ runtimes: [{ name: req.headers.host ?? '', kind: 'local' }] }));
  });
  serverPort = await listen(server);
  // Every tunnel goes to the server, whatever host it asks for.
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    const upstream = connect(serverPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
});

after(async () => {
  server.closeAllConnections();
  proxy.closeAllConnections();
  await Promise.all([server, proxy].map((s) => new Promise((resolve) => s.close(resolve))));
});

async function runtimesVia(serverUrl: string, env: Record<string, string>) {
  const connection = createControlPlaneClient({ serverUrl, token: 'agent-token', env });
  try {
    return (await connection.client.call('agentRuntimes', {})).runtimes;
  } finally {
    await connection.close();
  }
}

test('a server outside NO_PROXY is reached through HTTP_PROXY', async () => {
  tunnels.length = 0;
  const url = `http://${PROXIED_HOST}:${serverPort}`;
  const runtimes = await runtimesVia(url, { HTTP_PROXY: proxyUrl, NO_PROXY: 'other.example' });
  assert.deepEqual(tunnels, [`${PROXIED_HOST}:${serverPort}`]);
  assert.equal(runtimes[0]?.name, `${PROXIED_HOST}:${serverPort}`);
});

test('a loopback server is reached directly, even with a proxy set', async () => {
  tunnels.length = 0;
  const url = `http://127.0.0.1:${serverPort}`;
  const runtimes = await runtimesVia(url, { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl });
  assert.deepEqual(tunnels, []);
  assert.equal(runtimes[0]?.name, `127.0.0.1:${serverPort}`);
});

test('a server named in NO_PROXY is reached directly', async () => {
  tunnels.length = 0;
  // 0.0.0.0 is not loopback to the proxy rule, yet Linux connects it to this machine.
  const url = `http://0.0.0.0:${serverPort}`;
  const env = { HTTP_PROXY: proxyUrl, NO_PROXY: `other.example, 0.0.0.0:${serverPort}` };
  assert.equal((await runtimesVia(url, env))[0]?.name, `0.0.0.0:${serverPort}`);
  assert.deepEqual(tunnels, []);
  await runtimesVia(url, { HTTP_PROXY: proxyUrl });
  assert.deepEqual(
    tunnels,
    [`0.0.0.0:${serverPort}`],
    'without NO_PROXY it goes through the proxy',
  );
});

test('starting a connection prints no experimental warning', async () => {
  // In a process of its own: Node prints a warning once a process, and this file shares its
  // process with the other unit files of the package.
  const client = new URL('./control-plane-fetch.js', import.meta.url).href;
  const script = `const { createControlPlaneClient } = await import(${JSON.stringify(client)});
    const c = createControlPlaneClient({ serverUrl: process.argv[1], token: 't', env: {} });
    await c.client.call('agentRuntimes', {});
    await c.close();`;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, `http://127.0.0.1:${serverPort}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /experimental/i);
});
