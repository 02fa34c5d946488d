/**
 * How the long-running processes (the server, the agent, the provisioner, `up`) wait for the
 * user: the first SIGINT or SIGTERM resolves, and the handlers go, so a second Ctrl-C during
 * shutdown is Node's own (it ends the process at once). A `failure` that rejects first (an agent that could not
 * start) rejects instead.
 *
 * Started by `npx sluice …` (`npm exec`), the command runs under `npm → sh -c → node`: npm
 * passes a SIGTERM on to the shell, which dies of it without passing it on, and the command ran on
 * as an orphan. So such a process also watches npm and its own parent, and stops as on SIGTERM
 * when either is gone.
 * @module
 */
import { readFileSync } from 'node:fs';

/** How often a command started by `npm exec` looks for its launcher. */
const LAUNCHER_POLL_MS = 1_000;
const SHELLS = new Set(['sh', 'dash', 'bash']);

/** A process's command name and parent, from /proc; undefined off Linux or once it is gone. */
function procStat(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ppid };
  } catch {
    return undefined;
  }
}

/**
 * The pid of the npm that started this process through `npx`/`npm exec` (directly or through
 * the `sh -c` npm runs commands with); undefined when npm did not, or off Linux.
 */
export function npmLauncher(
  env: Readonly<Record<string, string | undefined>>,
  parent = process.ppid,
): number | undefined {
  if (env['npm_command'] !== 'exec') return undefined;
  const stat = procStat(parent);
  if (stat === undefined) return undefined;
  return SHELLS.has(stat.comm) ? stat.ppid : parent;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Calls `gone` once npm or this process's parent has gone; returns how to stop watching. */
function watchLauncher(env: StopSignalEnv, gone: () => void): () => void {
  const launcher = npmLauncher(env);
  if (launcher === undefined) return () => undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent || !alive(launcher)) gone();
  }, LAUNCHER_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The process's environment (its main's): `npm_command` says whether npm started it. */
export type StopSignalEnv = Readonly<Record<string, string | undefined>>;

export function waitForStopSignal(
  env: StopSignalEnv,
  failure?: Promise<unknown>,
): Promise<NodeJS.Signals> {
  return new Promise((resolve, reject) => {
    const detach = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      unwatch();
    };
    const stop = (signal: NodeJS.Signals) => {
      detach();
      resolve(signal);
    };
    const unwatch = watchLauncher(env, () => stop('SIGTERM'));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    failure?.catch((err: unknown) => {
      detach();
      reject(err instanceof Error ? err : new Error(String(err)));
    });
  });
}
