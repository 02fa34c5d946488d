/**
 * Runs a command without a shell and collects its output. The testkit drives docker, git, apt,
 * initdb and psql through their CLIs, so this is its only way out to the machine.
 * @module
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface RunCommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user and group (root only): PostgreSQL refuses to run as root. */
  uid?: number;
  gid?: number;
  input?: string;
  /** Called with each complete stdout line as it arrives. */
  onLine?: (line: string) => void;
  timeoutMs?: number;
}

export interface CommandResult {
  /** Exit code, or -1 when the command could not be started or was killed. */
  code: number;
  stdout: string;
  stderr: string;
  /** Set when the command could not be started (ENOENT for a missing binary). */
  spawnError: NodeJS.ErrnoException | undefined;
}

/** Never rejects: callers decide which failures are errors and how to word them. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      uid: options.uid,
      gid: options.gid,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!options.onLine) return;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (err) => (spawnError = err));
    child.on('close', (code) => {
      if (pending !== '') options.onLine?.(pending);
      resolve({ code: spawnError === undefined ? (code ?? -1) : -1, stdout, stderr, spawnError });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** The first executable `name` in `dirs`, or undefined. */
export function findExecutable(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}

/** The last `count` non-empty lines of some output, for error details. */
export function tailLines(text: string, count: number): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count)
    .join('\n');
}

/** The last `count` non-empty lines of a log file, for error details; undefined if unreadable. */
export function readTail(path: string, count = 20): string | undefined {
  try {
    return tailLines(readFileSync(path, 'utf8'), count);
  } catch {
    return undefined;
  }
}

/** Where Debian puts system binaries; searched after PATH because /usr/sbin is often missing. */
export const SYSTEM_BIN_DIRS = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
] as const;
