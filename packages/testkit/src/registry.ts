/**
 * A real Docker registry for tests (Debian's `docker-registry`, installed when missing):
 * started on a free port with its storage in a temporary directory, stopped and removed after.
 * Listening on all addresses lets pods of the test cluster pull through it (as a registry
 * mirror), so images built on this machine reach a dind pod with no internet.
 * @module
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { findOrInstall } from './apt-install.js';
import { freeLoopbackPort } from './postgres.js';
import { runCommand } from './run-command.js';
import { makeTempDir } from './temp-dir.js';

export const REGISTRY_UNAVAILABLE = 'SLUICE_TEST_REGISTRY_UNAVAILABLE';

export interface StartRegistryOptions {
  /** Address to listen on; `0.0.0.0` (default) so pods can reach it. */
  host?: string;
  log?: (line: string) => void;
  /** Require this login (htpasswd basic auth, bcrypt hash made with the system's crypt(3)). */
  auth?: { username: string; password: string };
}

export interface TestRegistry {
  /** `127.0.0.1:<port>`: the address this machine's Docker engine pushes to (insecure by default). */
  address: string;
  port: number;
  logPath: string;
  stop(): Promise<void>;
}

/** Debian's `docker-registry` binary, installing the package when it is missing. */
export async function ensureRegistryBinary(log?: (line: string) => void): Promise<string> {
  const { path, failed } = await findOrInstall('docker-registry', 'docker-registry', { log });
  if (path !== undefined) return path;
  throw new UnavailableError(REGISTRY_UNAVAILABLE, "Debian's docker-registry is not installed", {
    hint: `Run: apt-get install -y docker-registry${failed === undefined ? '' : ` (${failed} failed)`}`,
  });
}

export async function startRegistry(options: StartRegistryOptions = {}): Promise<TestRegistry> {
  const binary = await ensureRegistryBinary(options.log);
  const dir = await makeTempDir('sluice-registry-');
  const port = await freeLoopbackPort();
  const config = join(dir.path, 'config.yml');
  const htpasswd = join(dir.path, 'htpasswd');
  if (options.auth !== undefined) await writeHtpasswd(htpasswd, options.auth);
  await writeFile(
    config,
    [
      'version: 0.1',
      'log: { level: warn }',
      `storage: { filesystem: { rootdirectory: ${join(dir.path, 'data')} }, delete: { enabled: true } }`,
      `http: { addr: "${options.host ?? '0.0.0.0'}:${port}" }`,
      ...(options.auth === undefined
        ? []
        : [`auth: { htpasswd: { realm: sluice-test, path: ${htpasswd} } }`]),
      '',
    ].join('\n'),
  );
  const logPath = join(dir.path, 'registry.log');
  const out = openSync(logPath, 'a');
  const child = spawn(binary, ['serve', config], { stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${port}`;
  await waitForRegistry(address, exited, logPath);
  return {
    address,
    port,
    logPath,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await dir.cleanup();
    },
  };
}

/**
 * The registry reads bcrypt hashes only. Perl's `crypt` is the C library's crypt(3), which on
 * Debian (libxcrypt) makes `$2b$` hashes, so no bcrypt package is needed.
 */
async function writeHtpasswd(
  path: string,
  auth: { username: string; password: string },
): Promise<void> {
  const alphabet = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const salt = Array.from(randomBytes(22), (b) => alphabet[b % 64]).join('');
  const result = await runCommand('perl', [
    '-e',
    'print crypt($ARGV[0], $ARGV[1])',
    auth.password,
    `$2b$05$${salt}`,
  ]);
  if (result.code !== 0 || !result.stdout.startsWith('$2b$')) {
    throw new UnavailableError(
      REGISTRY_UNAVAILABLE,
      'Could not make a bcrypt hash for the test registry',
      {
        hint: `perl's crypt() must support $2b$ (libxcrypt): ${result.stderr || result.stdout}`,
      },
    );
  }
  await writeFile(path, `${auth.username}:${result.stdout.trim()}\n`);
}

async function waitForRegistry(address: string, exited: Promise<void>, logPath: string) {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; i < 100 && !gone; i += 1) {
    try {
      const response = await fetch(`http://${address}/v2/`);
      // 401: up, and asking for the login it was configured with.
      if (response.ok || response.status === 401) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const tail = await runCommand('tail', ['-n', '20', logPath]);
  throw new UnavailableError(REGISTRY_UNAVAILABLE, `docker-registry did not answer on ${address}`, {
    hint: `Read its log:\n${tail.stdout}`,
  });
}
