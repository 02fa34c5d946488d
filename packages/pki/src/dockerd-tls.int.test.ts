import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestPki } from './pki.test-support.js';
import type { TestPki } from './pki.test-support.js';

// A real dockerd (Debian docker.io) behind --tlsverify with certificates from this package, the
// way a build's dind runs. Its own data, exec root, pidfile and config, no bridge and no
// iptables, on a loopback port: it does not touch the machine's running engine.
const DOCKERD = '/usr/sbin/dockerd';
const START_TIMEOUT_MS = 60_000;

let pki: TestPki;
let other: TestPki;
let dir: string | undefined;
let port: number;
let dockerd: ChildProcess | undefined;
let exited: Promise<number | null> = Promise.resolve(null);

type Reply = { status: number; body: string } | { error: string };

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** GET /version over TLS, trusting only `caPem`; `client` adds a client certificate. */
function getVersion(caPem: string, client?: { certPem: string; keyPem: string }): Promise<Reply> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/version',
        ca: caPem,
        cert: client?.certPem,
        key: client?.keyPem,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ error: err.code ?? err.message }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

/** A throwaway bridge for the test daemon, on a benchmarking-range address nothing routes to. */
const BRIDGE = `sltls${process.pid % 100000}`;

function createBridge(): void {
  execFileSync('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
  execFileSync('ip', ['addr', 'add', `198.18.${process.pid % 250}.1/24`, 'dev', BRIDGE]);
}

function deleteBridge(): void {
  execFileSync('ip', ['link', 'del', BRIDGE], { stdio: 'ignore' });
}

async function writeMaterial(dir: string): Promise<string[]> {
  const certs = join(dir, 'certs');
  await mkdir(certs, { mode: 0o700 });
  await writeFile(join(certs, 'ca.pem'), pki.ca.certPem);
  await writeFile(join(certs, 'server-cert.pem'), pki.server.certPem);
  await writeFile(join(certs, 'server-key.pem'), pki.server.keyPem, { mode: 0o600 });
  // An empty config file, so a daemon.json of the machine's engine (hosts, tls) does not apply.
  await writeFile(join(dir, 'daemon.json'), '{}\n');
  return [
    `--config-file=${join(dir, 'daemon.json')}`,
    `--data-root=${join(dir, 'data')}`,
    `--exec-root=${join(dir, 'exec')}`,
    `--pidfile=${join(dir, 'dockerd.pid')}`,
    // Its own bridge: with --bridge=none dockerd deletes the default docker0 interface, which
    // would take the host's engine down with it.
    `--bridge=${BRIDGE}`,
    '--iptables=false',
    '--ip6tables=false',
    '--tlsverify',
    `--tlscacert=${join(certs, 'ca.pem')}`,
    `--tlscert=${join(certs, 'server-cert.pem')}`,
    `--tlskey=${join(certs, 'server-key.pem')}`,
    `-H=tcp://127.0.0.1:${port}`,
  ];
}

async function logTail(): Promise<string> {
  if (dir === undefined) return '';
  const text = await readFile(join(dir, 'dockerd.log'), 'utf8').catch(() => '');
  return text.split('\n').slice(-20).join('\n');
}

async function waitUntilAnswering(): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    const reply = await getVersion(pki.ca.certPem, pki.client);
    if ('status' in reply) return;
    if (exitCode !== undefined)
      assert.fail(`dockerd exited with code ${String(exitCode)}:\n${await logTail()}`);
    if (Date.now() > deadline)
      assert.fail(
        `dockerd did not answer on :${port} in 60 s (${reply.error}):\n${await logTail()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

before(async () => {
  assert.ok(existsSync(DOCKERD), `${DOCKERD} is missing: run apt-get install -y docker.io`);
  [pki, other] = await Promise.all([createTestPki('dind'), createTestPki('other')]);
  const temp = await realpath(await mkdtemp(join(tmpdir(), 'sluice-pki-dockerd-')));
  dir = temp;
  port = await freeLoopbackPort();
  const args = await writeMaterial(temp);
  createBridge();
  const log = openSync(join(temp, 'dockerd.log'), 'w');
  dockerd = spawn(DOCKERD, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  const started = dockerd;
  exited = new Promise((resolve) => started.once('exit', resolve));
  await waitUntilAnswering();
});

after(async () => {
  // Stopped by its own PID only; SIGKILL if it has not shut down in 20 s.
  const started = dockerd;
  if (started !== undefined && started.exitCode === null) {
    started.kill('SIGTERM');
    const timer = setTimeout(() => started.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  try {
    deleteBridge();
  } catch {
    // Not created: before() failed first.
  }
});

test('GET /version succeeds over mutual TLS with an issued client certificate', async () => {
  const reply = await getVersion(pki.ca.certPem, pki.client);
  assert.ok('status' in reply, `request failed: ${'error' in reply ? reply.error : ''}`);
  assert.equal(reply.status, 200);
  const version = JSON.parse(reply.body) as { Version?: string; ApiVersion?: string };
  assert.match(version.ApiVersion ?? '', /^1\.\d+$/);
});

test('dockerd refuses a client without a certificate', async () => {
  const reply = await getVersion(pki.ca.certPem);
  assert.ok('error' in reply, `expected a refused handshake, got HTTP ${JSON.stringify(reply)}`);
});

test('dockerd refuses a client certificate from another CA', async () => {
  const reply = await getVersion(pki.ca.certPem, other.client);
  assert.ok('error' in reply, `expected a refused handshake, got HTTP ${JSON.stringify(reply)}`);
});

test('a client pinning another CA refuses the dind server certificate', async () => {
  const reply = await getVersion(other.ca.certPem, other.client);
  assert.deepEqual(reply, { error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
});
