/**
 * Makes sure a Docker engine answers before integration tests use it. When none does and
 * DOCKER_HOST is unset, installs Debian's docker.io if needed and starts `dockerd` detached,
 * so a fresh machine needs no manual step (reference/libraries.md §0.4).
 * @module
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { aptInstall } from './apt-install.js';
import { readTestkitEnv } from './config.js';
import { withMachineLock } from './machine-lock.js';
import { findExecutable, readTail, runCommand, SYSTEM_BIN_DIRS } from './run-command.js';

export const DOCKER_UNAVAILABLE = 'SLUICE_TEST_DOCKER_UNAVAILABLE';
const MANUAL_FIX = 'apt-get install -y docker.io && dockerd &';
const DEFAULT_SOCKET = '/var/run/docker.sock';
const DEFAULT_PID_FILE = '/var/run/docker.pid';

export interface EnsureDockerEngineOptions {
  log?: (line: string) => void;
  /** How long to wait for a started dockerd to answer; 60 s by default. */
  timeoutMs?: number;
}

export interface DockerEngine {
  /** The engine's unix socket, or the DOCKER_HOST value when it is not a unix socket. */
  socketPath: string;
  /** Whether this call started dockerd. */
  started: boolean;
}

interface DockerdProcess {
  logPath: string;
  pid: number | undefined;
  exit: { code: number | null } | undefined;
  spawnError: Error | undefined;
}

export async function ensureDockerEngine(
  options: EnsureDockerEngineOptions = {},
): Promise<DockerEngine> {
  const log = options.log ?? (() => undefined);
  const { dockerHost } = readTestkitEnv();
  const socketPath = socketPathFor(dockerHost);
  if (await engineAnswers()) return { socketPath, started: false };
  if (dockerHost !== undefined) {
    // Starting a local dockerd would not make DOCKER_HOST answer.
    throw dockerUnavailable(`reach the engine at DOCKER_HOST=${dockerHost}`, {
      hint: 'start the engine DOCKER_HOST points to, or unset DOCKER_HOST to use a local dockerd',
    });
  }
  // Test files run side by side, and each makes sure of the engine first: one starts it.
  return withMachineLock('dockerd-start', async () => {
    if (await engineAnswers()) return { socketPath, started: false };
    const dockerd = await installDockerIfMissing(log);
    const proc = startDockerd(dockerd, log);
    await waitForEngine(proc, options.timeoutMs ?? 60_000);
    log(`dockerd answers on ${socketPath}`);
    return { socketPath, started: true };
  });
}

/** The socket the docker CLI will use for a DOCKER_HOST value (unset means the default). */
export function socketPathFor(dockerHost: string | undefined): string {
  if (dockerHost === undefined) return DEFAULT_SOCKET;
  return dockerHost.startsWith('unix://') ? dockerHost.slice('unix://'.length) : dockerHost;
}

async function engineAnswers(): Promise<boolean> {
  const result = await runCommand('docker', ['version', '--format', '{{.Server.Version}}'], {
    timeoutMs: 10_000,
  });
  return result.code === 0 && result.stdout.trim() !== '';
}

function findDockerBinary(name: string): string | undefined {
  return findExecutable(name, [...readTestkitEnv().path, ...SYSTEM_BIN_DIRS]);
}

async function installDockerIfMissing(log: (line: string) => void): Promise<string> {
  const present = findDockerBinary('dockerd');
  if (present !== undefined && findDockerBinary('docker') !== undefined) return present;
  const result = await aptInstall(['docker.io'], { log });
  if (!result.ok) {
    throw dockerUnavailable(result.step, { details: { output: result.output } });
  }
  const installed = findDockerBinary('dockerd');
  if (installed === undefined) throw dockerUnavailable('find dockerd after installing docker.io');
  return installed;
}

function openDockerdLog(): { fd: number; logPath: string } {
  for (const dir of ['/var/log', tmpdir()]) {
    const logPath = join(dir, 'sluice-dockerd.log');
    try {
      // Truncated per start, so the tail quoted in errors is this attempt's.
      return { fd: openSync(logPath, 'w'), logPath };
    } catch {
      // Not writable here; fall back to the temp dir.
    }
  }
  throw dockerUnavailable(`open a log file for dockerd in /var/log or ${tmpdir()}`);
}

function startDockerd(dockerd: string, log: (line: string) => void): DockerdProcess {
  const { fd, logPath } = openDockerdLog();
  log(`starting ${dockerd} (log: ${logPath})`);
  const proc: DockerdProcess = { logPath, pid: undefined, exit: undefined, spawnError: undefined };
  // Detached and unreferenced: the engine outlives the test process, like a system service.
  const child = spawn(dockerd, [], { detached: true, stdio: ['ignore', fd, fd] });
  proc.pid = child.pid;
  child.on('error', (err) => (proc.spawnError = err));
  child.on('exit', (code) => (proc.exit = { code }));
  child.unref();
  closeSync(fd);
  return proc;
}

async function waitForEngine(proc: DockerdProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Ours ended because another dockerd (started outside the testkit) holds the pid file: that
    // one is the engine to wait for.
    const ended = proc.spawnError !== undefined || proc.exit !== undefined;
    if (ended && !otherDockerdRuns(proc.pid)) {
      const how = proc.spawnError?.message ?? `it exited with code ${String(proc.exit?.code)}`;
      throw dockerUnavailable(`start dockerd (${how})`, { logPath: proc.logPath });
    }
    if (await engineAnswers()) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw dockerUnavailable(`wait ${timeoutMs / 1000} s for dockerd to answer`, {
    logPath: proc.logPath,
  });
}

/** Whether a dockerd other than `ours` runs as the machine's engine (its default pid file). */
function otherDockerdRuns(ours: number | undefined): boolean {
  try {
    const pid = Number(readFileSync(DEFAULT_PID_FILE, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0 || pid === ours) return false;
    // Pids come round again: the pid file of a dockerd long gone may name another program.
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'dockerd';
  } catch {
    return false;
  }
}

interface FailureOptions {
  logPath?: string;
  hint?: string;
  details?: Record<string, unknown>;
}

function dockerUnavailable(step: string, options: FailureOptions = {}): UnavailableError {
  const { logPath } = options;
  const where = logPath === undefined ? '' : ` (dockerd log: ${logPath})`;
  const logTail = logPath === undefined ? undefined : readTail(logPath);
  return new UnavailableError(
    DOCKER_UNAVAILABLE,
    `Docker engine unavailable: could not ${step.replace(/^apt-get/, 'run apt-get')}${where}`,
    {
      details: { step, logPath, logTail, ...options.details },
      hint:
        options.hint ??
        `${logPath === undefined ? '' : `read ${logPath}, then `}run: ${MANUAL_FIX}`,
    },
  );
}
