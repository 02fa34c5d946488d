/**
 * Runs the built `sluice` binary as a user would, collecting its output and exit code.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
export const SLUICE_BIN = `${REPO_ROOT}apps/cli/bin/sluice.js`;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** Resolves when `text` has appeared on stdout. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  done: Promise<CliResult>;
}

export function startSluice(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): RunningCli {
  const child = spawn(process.execPath, [SLUICE_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiters.filter((w) => stdout.includes(w.text))) waiter.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    child,
    done,
    waitForOutput(text, timeoutMs = 60_000) {
      if (stdout.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `"${text}" did not appear within ${timeoutMs} ms; output so far:\n${stdout}\n${stderr}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({ text, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

export function runSluice(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return startSluice(args, options).done;
}
