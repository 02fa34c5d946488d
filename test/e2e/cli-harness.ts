/**
 * Runs the built `sluice` binary as a user would, collecting its output and exit code.
 * @module
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { TestDatabases, writePgliteDataDir } from '@sluice/db/testing';

export const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
export const SLUICE_BIN = `${REPO_ROOT}apps/cli/bin/sluice.js`;
/** `sluice agent` as deployed: `sluice-agent`, whose `#!` line gives Node the agent's flags. */
export const SLUICE_AGENT_BIN = `${REPO_ROOT}apps/cli/bin/sluice-agent.js`;

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
  /** What it has printed on stdout so far. */
  stdout(): string;
  /** What it has printed on stderr so far. */
  stderr(): string;
  done: Promise<CliResult>;
}

export interface SluiceRunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to standard input, which is then closed. */
  input?: string;
}

export function startSluice(args: string[], options: SluiceRunOptions = {}): RunningCli {
  const child = spawn(process.execPath, [SLUICE_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  if (options.input !== undefined) child.stdin.end(options.input);
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
    stdout: () => stdout,
    stderr: () => stderr,
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

/**
 * The URL and admin token a `sluice up` started with `--port 0` printed, once it has printed
 * `readyText` (up to 180 s: the first start builds nothing, but may wait on the Docker engine).
 */
export async function waitForUp(
  cli: RunningCli,
  readyText = 'Ctrl-C stops Sluice',
): Promise<{ url: string; token: string }> {
  await cli.waitForOutput(readyText, 180_000);
  const stdout = cli.stdout();
  const url = /Sluice is up at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  // Not a terminal: the token is not printed, only the 0600 file that holds it.
  const tokenFile = /Admin token: in (\S+) \(mode 0600/.exec(stdout)?.[1];
  assert.ok(url !== undefined && tokenFile !== undefined, stdout);
  const token = readFileSync(tokenFile, 'utf8').trim();
  assert.ok(!stdout.includes(token), 'the admin token is not printed off a terminal');
  assert.doesNotMatch(url, /:0$/, 'the printed URL has the real port');
  return { url, token };
}

/** The process is alive and not a zombie (from /proc). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.charAt(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

export function runSluice(args: string[], options: SluiceRunOptions = {}): Promise<CliResult> {
  return startSluice(args, options).done;
}

const SERVER_START_MS = 180_000;

/**
 * `dir`, holding a migrated PGlite database as `sluice server|up --data-dir` leaves it after its
 * first start: for tests of what comes after, which need not pay PGlite's initdb (~6 s of CPU)
 * and the migrations each time. up-local, server-admin-token and config-errors start on empty
 * directories, as a user does.
 */
export async function seededDataDir(dir: string): Promise<string> {
  await writePgliteDataDir(dir);
  return dir;
}

/** A server's database made for one test file; `close` drops it once the server has stopped. */
export interface ServerDatabase {
  target: { url?: string; dataDir?: string };
  close(): Promise<void>;
}

/**
 * A new database of the run's shared PostgreSQL, for a `sluice server` whose behaviour under
 * test does not depend on the database kind: a server on PostgreSQL starts on a third of the
 * CPU of one on PGlite (no WASM to compile, no embedded database to open), and its queries run
 * natively. The server on PGlite stays covered: the int tier runs the API on both kinds where
 * the kind matters, and here `sluice up` (build-cli, web-ui, build-page, approvals, up-local…)
 * and server-restart run it on PGlite.
 */
export async function serverDatabase(): Promise<ServerDatabase> {
  const databases = TestDatabases.create({ kinds: ['postgres'] });
  const { url } = await databases.prepare('postgres');
  return { target: { url }, close: () => databases.close() };
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
}

/**
 * `sluice server` on `port` (default: a free one), on PostgreSQL (`url`) or PGlite (`dataDir`);
 * resolves once it prints its URL.
 */
export function startServer(
  target: { url?: string; dataDir?: string },
  env: NodeJS.ProcessEnv,
  port = 0,
): Promise<RunningServer> {
  const args = [
    SLUICE_BIN,
    'server',
    '--port',
    String(port),
    ...(target.dataDir ? ['--data-dir', target.dataDir] : []),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, DATABASE_URL: target.url ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    // Generous: a loaded machine (test files side by side) opens PGlite slowly. A server that
    // did not start is killed, so that it does not hold its test file open until its timeout.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${SERVER_START_MS} ms: ${out}`));
    }, SERVER_START_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] ?? '' });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

export async function kill(
  server: RunningServer,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
  await exited;
}
