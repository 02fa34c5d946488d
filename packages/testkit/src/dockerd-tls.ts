/**
 * A second, throwaway dockerd behind `--tlsverify`, the way a build's dind runs: its own data
 * root, exec root, pidfile, config and bridge, on a loopback port, so it never touches the
 * machine's engine. The certificates come in as PEM text (the tests make them with
 * `@sluice/pki`; the testkit does not depend on it). Besides the TLS port the daemon listens on
 * a unix socket in its directory, without TLS: test setup (readiness, loading images) goes
 * through it, the code under test through the TLS port. Test files run side by side, each with
 * daemons of its own: every daemon's bridge and subnet are its alone (`reserveSlot`).
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { freeLoopbackPort } from './postgres.js';
import { runCommand, tailLines } from './run-command.js';
import { overlaps, usedRoutes } from './kubernetes/node-network.js';
import { unmountUnder } from './kubernetes/proc-scan.js';
import { makeTempDir } from './temp-dir.js';
import type { TempDir } from './temp-dir.js';

export const DOCKERD_TLS_UNAVAILABLE = 'SLUICE_TEST_DOCKERD_TLS_UNAVAILABLE';
const DOCKERD = '/usr/sbin/dockerd';
const STOP_GRACE_MS = 20_000;

export interface StartTlsDockerdOptions {
  /** The CA whose client certificates the daemon accepts (`--tlscacert`). */
  caPem: string;
  /** The certificate the daemon serves (`--tlscert`) and its key (`--tlskey`). */
  serverCertPem: string;
  serverKeyPem: string;
  /** Loopback addresses to listen on, all on one port; `['127.0.0.1']` by default. */
  addresses?: readonly string[];
  /** How long to wait for the daemon to answer; 60 s by default. */
  timeoutMs?: number;
  /**
   * `--data-root`: a directory the caller owns and keeps after `stop` (a small filesystem of
   * its own, or one a second daemon starts on again); `<its directory>/data` by default.
   */
  dataRoot?: string;
}

export interface TlsDockerd {
  port: number;
  /** `tcp://ADDRESS:PORT` for the first address: what DOCKER_HOST would be. */
  host: string;
  /** The daemon's plain unix socket, for test setup only. */
  socketPath: string;
  /** Copies images from the machine's engine into this daemon's empty image store. */
  loadImages(images: readonly string[]): Promise<void>;
  /** The last lines of the daemon's log, for failure messages. */
  logTail(): Promise<string>;
  /** Stops the daemon (SIGTERM, then SIGKILL after 20 s), removes its bridge and directory. */
  stop(): Promise<void>;
}

export interface DockerCertFiles {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * Writes `ca.pem`, `cert.pem` and `key.pem` into `dir` (created if missing): a directory for
 * DOCKER_CERT_PATH, as the engine pod mounts it. Returns `dir`.
 */
export async function writeDockerCertPath(dir: string, files: DockerCertFiles): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'ca.pem'), files.caPem);
  await writeFile(join(dir, 'cert.pem'), files.certPem);
  await writeFile(join(dir, 'key.pem'), files.keyPem, { mode: 0o600 });
  return dir;
}

/** Counts the daemons this process started: where its search for a free slot begins. */
let startedDaemons = 0;

export async function startTlsDockerd(options: StartTlsDockerdOptions): Promise<TlsDockerd> {
  if (!existsSync(DOCKERD))
    throw unavailable(`${DOCKERD} is missing`, 'run apt-get install -y docker.io');
  const index = startedDaemons++;
  const temp = await makeTempDir('sluice-dockerd-tls-');
  const port = await freeLoopbackPort();
  const addresses = options.addresses ?? ['127.0.0.1'];
  const socketPath = join(temp.path, 'docker.sock');
  const args = await writeMaterial(temp.path, options);
  const listen = [...addresses.map((a) => `-H=tcp://${a}:${port}`), `-H=unix://${socketPath}`];
  let daemon: Daemon | undefined;
  let slot: Slot | undefined;
  const logTail = () => readLogTail(temp.path);
  const stop = () => stopDaemon(daemon, temp, slot);
  try {
    slot = await reserveSlot(index);
    // No --default-address-pool: a dockerd that has one and finds its "bridge" network in a data
    // root it used before deletes the interface docker0 at start (removeDefaultBridgeInterface),
    // the machine engine's, not its own. Its networks' subnets are picked clear of the host's
    // routes, so they do not collide with the machine engine's either.
    const network = [`--bridge=${slot.bridge}`];
    daemon = spawnDockerd(temp.path, [...args, ...network, ...listen]);
    await waitUntilAnswering(daemon, socketPath, options.timeoutMs ?? 60_000, logTail);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port,
    host: `tcp://${addresses[0] ?? '127.0.0.1'}:${port}`,
    socketPath,
    loadImages: (images) => loadImages(temp.path, socketPath, images),
    logTail,
    stop,
  };
}

/** Writes the certificates and an empty config; returns the dockerd flags that use them. */
async function writeMaterial(dir: string, options: StartTlsDockerdOptions): Promise<string[]> {
  const certs = join(dir, 'certs');
  await mkdir(certs, { mode: 0o700 });
  await writeFile(join(certs, 'ca.pem'), options.caPem);
  await writeFile(join(certs, 'server-cert.pem'), options.serverCertPem);
  await writeFile(join(certs, 'server-key.pem'), options.serverKeyPem, { mode: 0o600 });
  // An empty config file, so a daemon.json of the machine's engine (hosts, tls) does not apply.
  await writeFile(join(dir, 'daemon.json'), '{}\n');
  return [
    `--config-file=${join(dir, 'daemon.json')}`,
    `--data-root=${options.dataRoot ?? join(dir, 'data')}`,
    `--exec-root=${join(dir, 'exec')}`,
    `--pidfile=${join(dir, 'dockerd.pid')}`,
    '--iptables=false',
    '--ip6tables=false',
    '--tlsverify',
    `--tlscacert=${join(certs, 'ca.pem')}`,
    `--tlscert=${join(certs, 'server-cert.pem')}`,
    `--tlskey=${join(certs, 'server-key.pem')}`,
  ];
}

/** Slot `n` (0…255): the bridge `sltls<n>` on 198.18.n.1/24. */
const SLOTS = 256;

interface Slot {
  bridge: string;
  /** The bridge's address, with the subnet of the daemon's default network. */
  address: string;
}

/**
 * A bridge of the daemon's own, on a benchmarking-range address nothing routes to. Making the
 * bridge reserves the slot (the kernel makes one link of a name, whoever asks at the same
 * time); a slot whose subnet some route already uses (a bridge another daemon left behind) is
 * given back and skipped. Never `--bridge=none`: with it dockerd deletes
 * the default docker0 interface, which would take the machine's engine (and every other test)
 * down with it.
 */
async function reserveSlot(index: number): Promise<Slot> {
  const first = (process.pid * 7 + index) % SLOTS;
  for (let i = 0; i < SLOTS; i++) {
    const n = (first + i) % SLOTS;
    const slot = { bridge: `sltls${n}`, address: `198.18.${n}.1/24` };
    const made = await runCommand('ip', ['link', 'add', slot.bridge, 'type', 'bridge']);
    if (made.code !== 0) {
      if (/exists/i.test(made.stderr)) continue; // Another daemon's, of this process or another.
      throw unavailable(`ip link add ${slot.bridge} failed: ${made.stderr.trim()}`, 'run as root');
    }
    const routed = await usedRoutes();
    if (routed.some((cidr) => overlaps(cidr, slot.address))) {
      await runCommand('ip', ['link', 'del', slot.bridge]);
      continue;
    }
    const addressed = await runCommand('ip', ['addr', 'add', slot.address, 'dev', slot.bridge]);
    if (addressed.code !== 0) {
      await runCommand('ip', ['link', 'del', slot.bridge]);
      throw unavailable(`ip addr add ${slot.address} failed: ${addressed.stderr.trim()}`);
    }
    return slot;
  }
  throw unavailable(
    `every bridge sltls0…sltls${SLOTS - 1} exists, or its subnets are routed`,
    'delete the bridges left behind: ip link del sltlsN',
  );
}

interface Daemon {
  child: ChildProcess;
  exited: Promise<number | null>;
}

function spawnDockerd(dir: string, args: string[]): Daemon {
  const log = openSync(join(dir, 'dockerd.log'), 'w');
  const child = spawn(DOCKERD, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
    child.once('error', () => resolve(-1));
  });
  return { child, exited };
}

async function waitUntilAnswering(
  daemon: Daemon,
  socketPath: string,
  timeoutMs: number,
  logTail: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void daemon.exited.then((code) => (exitCode = code));
  while (!(await pingsOnSocket(socketPath))) {
    if (exitCode !== undefined)
      throw unavailable(`dockerd exited with code ${String(exitCode)}:\n${await logTail()}`);
    if (Date.now() > deadline)
      throw unavailable(`dockerd did not answer in ${timeoutMs / 1000} s:\n${await logTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Whether GET /_ping on the unix socket answers 200. */
function pingsOnSocket(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function loadImages(
  dir: string,
  socketPath: string,
  images: readonly string[],
): Promise<void> {
  const tar = join(dir, 'images.tar');
  const steps = [
    ['save', '-o', tar, ...images],
    ['-H', `unix://${socketPath}`, 'load', '-i', tar],
  ];
  for (const args of steps) {
    const result = await runCommand('docker', args);
    if (result.code !== 0)
      throw unavailable(
        `docker ${args.join(' ')} failed: ${result.stderr.trim()}`,
        'build the images first with images/build-local.sh (ensureTestImages)',
      );
  }
}

async function stopDaemon(
  daemon: Daemon | undefined,
  temp: TempDir,
  slot: Slot | undefined,
): Promise<void> {
  // Stopped by its own PID only.
  if (daemon !== undefined && daemon.child.exitCode === null && daemon.child.signalCode === null) {
    const { child } = daemon;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await daemon.exited;
    clearTimeout(timer);
  }
  // A container's network namespace the daemon did not release (it was killed, or a container
  // outlived it) stays bind-mounted under exec/netns, and removing it would fail with EBUSY.
  await unmountUnder(temp.path);
  await temp.cleanup();
  if (slot === undefined) return;
  // Only what this daemon reserved: the names are shared with every other test process.
  await runCommand('ip', ['link', 'del', slot.bridge]);
}

async function readLogTail(dir: string): Promise<string> {
  const text = await readFile(join(dir, 'dockerd.log'), 'utf8').catch(() => '');
  return tailLines(text, 20);
}

function unavailable(problem: string, hint?: string): UnavailableError {
  return new UnavailableError(DOCKERD_TLS_UNAVAILABLE, `Test dockerd with TLS: ${problem}`, {
    hint: hint ?? 'read the dockerd log quoted in the message',
  });
}
