/**
 * The engine processes of the local runtime, one per build, each found again through its pid
 * file `<stateDir>/<buildId>.json` (`{ pid, startedAt, command }`), with the engine's own output
 * in `<buildId>.log`. An engine is detached (its own session and process group): a stop reaches
 * whatever it started, and an agent that dies does not take its builds down. A pid file is
 * trusted only while /proc shows that process alive, running the command it was started with,
 * for that build (`SLUICE_BUILD_ID` in its environment, or for an engine that was a standby the
 * slot its pid file records: engine-standby.ts), so a reused pid is never signalled. An engine
 * whose agent died before writing its pid file is found in /proc and given one.
 * Engine logs and log spools (`log-spool/<buildId>/`) of builds that no longer run are deleted
 * after the retention.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import { processAlive, sleep } from '@sluice/process';
import { standbyBuildMessage } from '@sluice/protocol';
import { retire, STANDBY_SLOT_ENV } from './engine-standby.js';
import type { StandbyEngine } from './engine-standby.js';

export interface PidFile {
  pid: number;
  startedAt: string;
  command: string[];
  /** A standby engine's slot (engine-standby.ts): its build id is not in its environment. */
  slot?: string;
}

export interface EngineProcessesOptions {
  stateDir: string;
  /** argv of `sluice engine`. */
  command: readonly string[];
  logger: Logger;
  /** Engine logs of builds that no longer run are deleted after this long; 3 days by default. */
  logRetentionMs?: number;
  /** An engine this agent started or handed a build ended (whatever the cause). */
  onExit?: (exit: EngineExit) => void;
}

/** How an engine this agent watched ended: its exit code, or the signal that ended it. */
export interface EngineExit {
  buildId: string;
  pid: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** How a stop went: the engine ended on SIGTERM, needed SIGKILL, or was not running. */
export type StopOutcome = 'stopped' | 'killed' | 'not-running';

/** Where the local runtime's engines keep their log spools, under the state directory. */
export const SPOOL_DIR = 'log-spool';
/** A process that ignores SIGKILL this long is stuck in the kernel (uninterruptible I/O). */
const KILL_WAIT_MS = 10_000;
const POLL_MS = 100;
const HAS_PROC = existsSync('/proc/self/stat');

export class EngineProcesses {
  readonly #options: EngineProcessesOptions;
  readonly #children = new Map<string, ChildProcess>();

  private constructor(options: EngineProcessesOptions) {
    this.#options = options;
  }

  static create(options: EngineProcessesOptions): EngineProcesses {
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    return new EngineProcesses(options);
  }

  pidFilePath(buildId: string): string {
    return join(this.#options.stateDir, `${buildId}.json`);
  }

  logPath(buildId: string): string {
    return join(this.#options.stateDir, `${buildId}.log`);
  }

  /** The build's engine if it runs; a pid file of anything else is removed. */
  running(buildId: string): PidFile | undefined {
    const path = this.pidFilePath(buildId);
    let file: PidFile;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as PidFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.#adopt(buildId);
      rmSync(path, { force: true }); // Unreadable: not one we finished writing.
      return undefined;
    }
    if (isEngineOf(file, buildId)) return file;
    rmSync(path, { force: true });
    return undefined;
  }

  /**
   * An engine of the build without a pid file: its agent was killed between starting it and
   * writing the file. Found in /proc (its command and `SLUICE_BUILD_ID`) and given its pid file,
   * so the task handed out again finds it running instead of starting a second engine.
   */
  #adopt(buildId: string): PidFile | undefined {
    const pid = findEngineProcess(this.#options.command, buildId);
    if (pid === undefined) return undefined;
    const file: PidFile = {
      pid,
      startedAt: new Date().toISOString(),
      command: [...this.#options.command],
    };
    writeAtomically(this.pidFilePath(buildId), `${JSON.stringify(file)}\n`);
    this.#options.logger.warn('found an engine without its pid file', { buildId, pid });
    return file;
  }

  /** Every running engine; pid files of dead processes and old logs are removed. */
  list(): { buildId: string; pid: number }[] {
    const names = this.#stateFiles();
    this.#pruneLogs(names);
    return names
      .filter((name) => name.endsWith('.json'))
      .flatMap((name) => {
        const buildId = name.slice(0, -'.json'.length);
        const file = this.running(buildId);
        return file === undefined ? [] : [{ buildId, pid: file.pid }];
      });
  }

  /** Starts the build's engine; resolves once the process exists and its pid file is written. */
  async start(buildId: string, env: NodeJS.ProcessEnv): Promise<PidFile> {
    const [program, ...args] = this.#options.command;
    if (program === undefined) throw new Error('The engine command is empty');
    const out = openSync(this.logPath(buildId), 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(program, args, {
        detached: true,
        stdio: ['ignore', out, out],
        env: { ...env, SLUICE_BUILD_ID: buildId },
      });
    } finally {
      closeSync(out); // The child has its own copy.
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const file: PidFile = {
      pid: child.pid ?? 0,
      startedAt: new Date().toISOString(),
      command: [...this.#options.command],
    };
    writeAtomically(this.pidFilePath(buildId), `${JSON.stringify(file)}\n`);
    this.#watch(buildId, child, file.pid);
    return file;
  }

  /**
   * Hands the build to a standby engine (engine-standby.ts): its pid file first, then its
   * output file becomes the build's log, then the build's environment goes over its channel,
   * which is closed. An agent that dies before the message leaves a pid file of a standby that
   * exits with its channel, so the task handed out again starts an engine. Undefined when the
   * standby is gone (it is retired, and the caller starts one as usual).
   */
  async handOver(
    buildId: string,
    standby: StandbyEngine,
    env: NodeJS.ProcessEnv,
  ): Promise<PidFile | undefined> {
    const file: PidFile = {
      pid: standby.pid,
      startedAt: new Date().toISOString(),
      command: [...this.#options.command],
      slot: standby.slot,
    };
    const vars = Object.fromEntries(
      Object.entries({ ...env, SLUICE_BUILD_ID: buildId }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    try {
      if (!standby.child.connected) throw new Error('the standby engine is gone');
      writeAtomically(this.pidFilePath(buildId), `${JSON.stringify(file)}\n`);
      renameSync(standby.outPath, this.logPath(buildId));
      await new Promise<void>((resolve, reject) =>
        standby.child.send(standbyBuildMessage(vars), (err) => (err ? reject(err) : resolve())),
      );
    } catch (err) {
      this.#options.logger.warn('a standby engine could not take its build', {
        buildId,
        pid: standby.pid,
        error: String(err),
      });
      this.#removePidFile(buildId, standby.pid);
      retire(standby);
      return undefined;
    }
    standby.child.disconnect();
    this.#watch(buildId, standby.child, standby.pid);
    return file;
  }

  /** Whether the build has an engine log already (an earlier engine's, kept and appended to). */
  hasLog(buildId: string): boolean {
    return existsSync(this.logPath(buildId));
  }

  /**
   * SIGTERM to the engine's process group, SIGKILL after `graceMs` (or at once when `signal`
   * aborts), then its pid file goes. An engine that is not running is already stopped.
   */
  async stop(buildId: string, graceMs: number, signal?: AbortSignal): Promise<StopOutcome> {
    const file = this.running(buildId);
    if (file === undefined) return 'not-running';
    let outcome: StopOutcome = 'stopped';
    signalGroup(file.pid, 'SIGTERM');
    if (!(await waitForExit(file.pid, graceMs, signal))) {
      outcome = 'killed';
      signalGroup(file.pid, 'SIGKILL');
      if (!(await waitForExit(file.pid, KILL_WAIT_MS)))
        throw new Error(`Engine process ${file.pid} of build ${buildId} survived SIGKILL`);
    }
    // Whatever the engine started and left behind in its group, gone before this returns.
    const members = groupMembers(file.pid);
    signalGroup(file.pid, 'SIGKILL');
    for (const member of members) await waitForExit(member, KILL_WAIT_MS);
    this.#removePidFile(buildId, file.pid);
    return outcome;
  }

  /** Stops watching the engines this agent started; they keep running. */
  /** The state directory's entries; one removed under the agent is said as such. */
  #stateFiles(): string[] {
    const dir = this.#options.stateDir;
    try {
      return readdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw new UnavailableError(
        'SLUICE_AGENT_STATE_DIR_MISSING',
        `The agent's state directory ${dir} is gone: it was removed while the agent ran, so the engines it started cannot be found`,
        {
          cause: err,
          hint: 'Start the agent again (sluice up: with its data directory back, or another --data-dir)',
        },
      );
    }
  }

  release(): void {
    for (const child of this.#children.values()) child.removeAllListeners('exit');
    this.#children.clear();
  }

  #watch(buildId: string, child: ChildProcess, pid: number): void {
    this.#children.set(buildId, child);
    child.unref();
    child.once('exit', (code, signal) => {
      this.#children.delete(buildId);
      this.#removePidFile(buildId, pid);
      this.#options.logger.info('engine exited', {
        buildId,
        pid,
        exitCode: code,
        signal,
        log: this.logPath(buildId),
      });
      this.#options.onExit?.({ buildId, pid, exitCode: code, signal });
    });
  }

  /** Removes the pid file if it still names `pid` (a newer engine's file stays). */
  #removePidFile(buildId: string, pid: number): void {
    const path = this.pidFilePath(buildId);
    try {
      if ((JSON.parse(readFileSync(path, 'utf8')) as PidFile).pid !== pid) return;
    } catch {
      // Absent or unreadable: removing it is right either way.
    }
    rmSync(path, { force: true });
  }

  #pruneLogs(names: readonly string[]): void {
    const cutoff = Date.now() - (this.#options.logRetentionMs ?? 3 * 24 * 3600_000);
    for (const name of names.filter((n) => n.endsWith('.log'))) {
      const buildId = name.slice(0, -'.log'.length);
      if (names.includes(`${buildId}.json`)) continue;
      removeOlderThan(join(this.#options.stateDir, name), cutoff);
    }
    // The log spools a killed engine left (docs/build-logs.md): kept as long as its output.
    const spools = join(this.#options.stateDir, SPOOL_DIR);
    for (const buildId of existsSync(spools) ? readdirSync(spools) : []) {
      if (!names.includes(`${buildId}.json`)) removeOlderThan(join(spools, buildId), cutoff);
    }
  }
}

/** Removes a file or directory last changed before `cutoff`. */
function removeOlderThan(path: string, cutoff: number): void {
  try {
    if (statSync(path).mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
  } catch {
    // Removed meanwhile.
  }
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * The pid file's process is alive, runs the command it was started with, for this build (its
 * environment names the build, or the standby slot the pid file records).
 */
function isEngineOf(file: PidFile, buildId: string): boolean {
  if (!Number.isInteger(file.pid) || file.pid <= 1 || !processAlive(file.pid)) return false;
  if (!HAS_PROC) return true;
  try {
    const argv = readFileSync(`/proc/${file.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    if (argv.length !== file.command.length || argv.some((a, i) => a !== file.command[i]))
      return false;
  } catch {
    return false;
  }
  try {
    const environ = readFileSync(`/proc/${file.pid}/environ`, 'utf8').split('\0');
    const id =
      file.slot === undefined ? `SLUICE_BUILD_ID=${buildId}` : `${STANDBY_SLOT_ENV}=${file.slot}`;
    return environ.includes(id);
  } catch {
    return true; // Another user's process would not have matched the command line this far.
  }
}

/**
 * The live process leading its own group (an engine is started detached; its children are not
 * leaders) that runs `command` with `SLUICE_BUILD_ID=buildId` in an environment it can read.
 * Every engine has the same command line, so an unreadable environment is never a match here.
 */
function findEngineProcess(command: readonly string[], buildId: string): number | undefined {
  if (!HAS_PROC) return undefined;
  const cmdline = `${command.join('\0')}\0`;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8') !== cmdline) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[2] !== name || fields[0] === 'Z') continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (environ.includes(`SLUICE_BUILD_ID=${buildId}`)) return Number(name);
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return undefined;
}

/** Signals the process group led by `pid`; false when there is no such group. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** The live processes of process group `pgid` (from /proc; none known without it). */
function groupMembers(pgid: number): number[] {
  if (!HAS_PROC) return [];
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command: state, ppid, pgrp.
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp === pgid) members.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

/** Polls until `pid` is gone; true if it is, false when `ms` passed or `signal` aborted first. */
async function waitForExit(pid: number, ms: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid) && Date.now() < deadline && !signal?.aborted)
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), signal);
  return !processAlive(pid);
}
