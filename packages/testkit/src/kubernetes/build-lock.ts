/**
 * A lock file that lets one process build while others wait: created with O_EXCL and holding
 * the owner's PID, so a lock left by a killed process is recognised and taken over. Two test
 * files that both need the Kubernetes binaries therefore build them once.
 * @module
 */
import { open, readFile, rm } from 'node:fs/promises';
import { isRunning } from './proc-scan.js';

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
  const deadline = Date.now() + (options.timeoutMs ?? 40 * 60_000);
  let announced = false;
  for (;;) {
    if (await tryCreate(path)) return { release: () => rm(path, { force: true }) };
    const owner = await ownerPid(path);
    if (owner === undefined || !isRunning(owner)) {
      // Left by a process that died (or is mid-write): take it over.
      await rm(path, { force: true });
      continue;
    }
    if (!announced) options.onWait?.(owner);
    announced = true;
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for lock ${path} held by process ${owner}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
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
