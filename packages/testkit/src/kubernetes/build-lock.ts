/**
 * A lock file that lets one process build while others wait: created with O_EXCL and holding
 * the owner's PID, so a lock left by a killed process is recognised and taken over. Two test
 * files that both need the Kubernetes binaries therefore build them once.
 * @module
 */
import { open, readFile, rm } from 'node:fs/promises';
import { UnavailableError } from '@sluice/errors';
import { formatDuration } from './build-progress.js';
import { KUBE_BUILD_FAILED } from './kube-errors.js';
import { processAlive } from '@sluice/process';

export interface AcquireLockOptions {
  /** Called once when another live process holds the lock, with its PID. */
  onWait?: (ownerPid: number) => void;
  /** Give up after this long; 40 minutes by default (a cold build takes about 12). */
  timeoutMs?: number;
  pollMs?: number;
}

export interface HeldLock {
  release(): Promise<void>;
}

export async function acquireLock(
  path: string,
  options: AcquireLockOptions = {},
): Promise<HeldLock> {
  const timeoutMs = options.timeoutMs ?? 40 * 60_000;
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    if (await tryCreate(path)) return { release: () => rm(path, { force: true }) };
    const owner = await ownerPid(path);
    if (owner === undefined || !processAlive(owner)) {
      // Left by a process that died (or is mid-write): take it over.
      await rm(path, { force: true });
      continue;
    }
    if (!announced) options.onWait?.(owner);
    announced = true;
    if (Date.now() > deadline) throw lockTimeout(path, owner, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}

function lockTimeout(path: string, owner: number, timeoutMs: number): UnavailableError {
  return new UnavailableError(
    KUBE_BUILD_FAILED,
    `Waited ${formatDuration(timeoutMs)} for process ${owner}, which still holds the build lock ${path}`,
    {
      details: { path, ownerPid: owner },
      hint: `let process ${owner} finish; if it is not building Kubernetes, stop it or delete ${path}`,
    },
  );
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function ownerPid(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
