/**
 * A lock over every process of the machine, for a set-up step that test files run side by side
 * would otherwise take at once (starting the Docker engine): util-linux's `flock` on a file in
 * the temp dir, held by a child process for as long as the step runs. The kernel gives the lock
 * to one holder at a time and drops it when its holder ends, so a test process that dies
 * mid-step leaves no stale lock behind.
 * @module
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `step` holding the machine-wide lock `name`, waiting for whoever holds it now. */
export async function withMachineLock<T>(name: string, step: () => Promise<T>): Promise<T> {
  const file = join(tmpdir(), `sluice-${name}.lock`);
  // `cat` keeps the lock until its stdin closes: when the step ends, or with this process.
  const holder = spawn('flock', [file, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => {
    holder.once('error', () => resolve());
    holder.once('exit', () => resolve());
  });
  const held = await new Promise<boolean>((resolve) => {
    holder.stdout.once('data', () => resolve(true));
    // No flock on this machine (or it failed): the step runs unguarded, as it did before.
    void exited.then(() => resolve(false));
  });
  try {
    return await step();
  } finally {
    if (held) holder.stdin.end();
    await exited;
  }
}
