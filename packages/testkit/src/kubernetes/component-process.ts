/**
 * One cluster component (etcd, kube-apiserver, containerd, kubelet, ...) as a child process with
 * its output in its own log file, waited on until a readiness check passes and stopped by its
 * PID. A component that dies while being waited on fails the wait at once, naming its log.
 * @module
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';
import { processAlive, sleep } from '@sluice/process';

export interface ComponentProcess {
  name: string;
  pid: number;
  logPath: string;
  /** Set once the process has exited. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export interface StartComponentOptions {
  logPath: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function startComponent(
  name: string,
  command: readonly [string, ...string[]],
  options: StartComponentOptions,
): ComponentProcess {
  const fd = openSync(options.logPath, 'a');
  const [program, ...args] = command;
  const child = spawn(program, args, {
    stdio: ['ignore', fd, fd],
    env: options.env,
    cwd: options.cwd,
  });
  closeSync(fd);
  const component: ComponentProcess = {
    name,
    pid: child.pid ?? -1,
    logPath: options.logPath,
    exit: undefined,
  };
  child.on('error', () => (component.exit ??= { code: -1, signal: null }));
  child.on('exit', (code, signal) => (component.exit = { code, signal }));
  // Teardown stops components by PID; an unreferenced child never keeps a test process alive.
  child.unref();
  if (component.pid === -1) {
    throw stepFailed(KUBE_UNAVAILABLE, 'Starting the test cluster', `start ${name} (${program})`, {
      logPath: options.logPath,
      hint: `check that ${program} exists and is executable`,
    });
  }
  return component;
}

export interface WaitOptions {
  /** What is being waited for, e.g. "kube-apiserver /readyz"; named in the error. */
  step: string;
  timeoutMs: number;
  /** Fail at once when this component exits. */
  component?: ComponentProcess;
  logPath?: string;
  intervalMs?: number;
}

/** Throws the coded error for `step` when the component has exited. */
export function assertRunning(component: ComponentProcess, step: string): void {
  const died = component.exit;
  if (died === undefined) return;
  const how =
    died.signal === null ? `exited with code ${String(died.code)}` : `was killed by ${died.signal}`;
  throw stepFailed(
    KUBE_UNAVAILABLE,
    'Starting the test cluster',
    `${step}: ${component.name} ${how}`,
    {
      logPath: component.logPath,
    },
  );
}

/** Polls `check` until it returns true; throws a coded error on timeout or component death. */
export async function waitUntil(
  check: () => Promise<boolean>,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const logPath = options.logPath ?? options.component?.logPath;
  for (;;) {
    if (options.component !== undefined) assertRunning(options.component, options.step);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw stepFailed(
        KUBE_UNAVAILABLE,
        'Starting the test cluster',
        `${options.step} (gave up after ${options.timeoutMs / 1000} s)`,
        { logPath },
      );
    }
    await sleep(options.intervalMs ?? 250);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the PID is gone. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) {
      signal(pid, 'SIGKILL');
      await sleep(100);
      return;
    }
    await sleep(50);
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
