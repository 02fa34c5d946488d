/**
 * Standby engines of the local runtime: `sluice engine` processes started ahead of their
 * builds, with an IPC channel to the agent, that load node and the engine's modules and wait
 * (apps/engine/src/main.ts), then say `ready` (the hand-off's messages: @sluice/protocol's
 * engine-standby.ts). A build's engine is then a ready standby
 * handed its build's
 * environment over the channel (`EngineProcesses.handOver`), which takes its start-up out of
 * the time from the build's creation to its first step (bench/local-start), and another is
 * started behind it. A standby is detached like any engine, so that a stop reaches its process
 * group, but it lives only as long as its channel: an agent that stops or dies takes its
 * standbys with it, and they run nothing. Its output goes to `standby-<slot>.out` in the state
 * directory until it becomes a build's `<build>.log`. Each has a random slot, in its
 * environment as `SLUICE_ENGINE_SLOT`, which its build's pid file records: the proof, with the
 * command line, that a pid is still that engine (its build id is not in its environment).
 * A standby that ends before its build is replaced at once, so the next build is not cold; one
 * that ends again soon after is replaced after a back-off (1 s doubling to a minute), so an
 * engine command that fails at start does not spin. Each end is logged with its exit code or
 * signal and the last lines the standby printed.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@sluice/log';
import { backoffDelay } from '@sluice/process';
import { ENGINE_SLOT_VARIABLE, isStandbyReady } from '@sluice/protocol';

export interface EngineStandbyOptions {
  stateDir: string;
  /** argv of `sluice engine`. */
  command: readonly string[];
  /** How many engines wait for builds (0: none, every engine starts with its build). */
  count: number;
  /** The environment every engine of the runtime gets, before its build's own. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/** One standby engine: a running process, waiting on its channel for a build. */
export interface StandbyEngine {
  child: ChildProcess;
  pid: number;
  /** It listens on its channel (it said so): a build sent before would be lost. */
  ready: boolean;
  /** The random id in its environment (`SLUICE_ENGINE_SLOT`) that its pid file records. */
  slot: string;
  /** Its output until it takes a build (`standby-<slot>.out`). */
  outPath: string;
}

/** The variable that tells a standby engine's process apart from any other. */
export const STANDBY_SLOT_ENV = ENGINE_SLOT_VARIABLE;
const OUT_PREFIX = 'standby-';
/** The waits before replacing a standby that ended soon after the last one did. */
const REPLACE_BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** A standby that lived this long ended on its own: the next one is replaced at once again. */
const STABLE_MS = 60_000;
/** How much of a standby's output its end's log line carries. */
const LAST_OUTPUT_CHARS = 1_000;

export class EngineStandby {
  readonly #options: EngineStandbyOptions;
  readonly #waiting: StandbyEngine[] = [];
  #refillTimer: NodeJS.Timeout | undefined;
  /** Standbys that ended before their build, one soon after another (reset by a stable one). */
  #failures = 0;
  #closed = false;

  private constructor(options: EngineStandbyOptions) {
    this.#options = options;
  }

  /** The standbys of an earlier agent went with it: their output files go too. */
  static create(options: EngineStandbyOptions): EngineStandby {
    for (const name of readdirSync(options.stateDir))
      if (name.startsWith(OUT_PREFIX) && name.endsWith('.out'))
        rmSync(join(options.stateDir, name), { force: true });
    return new EngineStandby(options);
  }

  /** A ready standby, no longer this pool's (start another behind it with `refill`). */
  take(): StandbyEngine | undefined {
    const index = this.#waiting.findIndex((standby) => standby.ready);
    if (index < 0) return undefined;
    const [standby] = this.#waiting.splice(index, 1);
    standby?.child.removeAllListeners('exit').removeAllListeners('error');
    standby?.child.removeAllListeners('message');
    if (standby !== undefined) this.#failures = 0;
    return standby;
  }

  /**
   * Starts standbys until `count` wait, after `delayMs` (unless a start is already timed): a
   * standby loading beside a build that is starting would take the CPU from it. A failure to
   * start is logged: engines then start cold.
   */
  refill(delayMs = 0): void {
    if (delayMs > 0) {
      this.#refillTimer ??= setTimeout(() => {
        this.#refillTimer = undefined;
        this.refill();
      }, delayMs).unref();
      return;
    }
    while (!this.#closed && this.#waiting.length < this.#options.count) {
      try {
        this.#waiting.push(this.#spawn());
      } catch (err) {
        this.#options.logger.warn('cannot start a standby engine', { error: String(err) });
        return;
      }
    }
  }

  /** Stops the waiting standbys (SIGTERM to each group) and removes their output files. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#refillTimer);
    for (const standby of this.#waiting.splice(0)) retire(standby);
  }

  #spawn(): StandbyEngine {
    const [program, ...args] = this.#options.command;
    if (program === undefined) throw new Error('The engine command is empty');
    const slot = randomBytes(12).toString('hex');
    const outPath = join(this.#options.stateDir, `${OUT_PREFIX}${slot}.out`);
    const out = openSync(outPath, 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(program, args, {
        detached: true,
        stdio: ['ignore', out, out, 'ipc'],
        env: { ...this.#options.env, [STANDBY_SLOT_ENV]: slot },
      });
    } finally {
      closeSync(out);
    }
    // Neither the process nor its channel keeps the agent running.
    child.unref();
    child.channel?.unref();
    const standby: StandbyEngine = { child, pid: child.pid ?? 0, ready: false, slot, outPath };
    child.once('message', (message) => {
      standby.ready = isStandbyReady(message);
      if (standby.ready) this.#options.logger.debug('standby engine ready', { pid: standby.pid });
    });
    const startedAt = Date.now();
    const gone = (how: Record<string, unknown>) => {
      const index = this.#waiting.indexOf(standby);
      if (index < 0) return;
      this.#waiting.splice(index, 1);
      this.#replaceEnded(standby, { ...how, livedMs: Date.now() - startedAt });
    };
    child.once('error', (err) => gone({ error: err.message }));
    child.once('exit', (exitCode, signal) => gone({ exitCode, signal }));
    return standby;
  }

  /**
   * Logs why a waiting standby ended (its exit, its last output) and starts another: at once,
   * or after the back-off when the one before it ended soon too.
   */
  #replaceEnded(standby: StandbyEngine, how: Record<string, unknown> & { livedMs: number }): void {
    this.#failures = how.livedMs >= STABLE_MS ? 1 : this.#failures + 1;
    const retryInMs = this.#failures <= 1 ? 0 : backoffDelay(this.#failures - 1, REPLACE_BACKOFF);
    this.#options.logger.warn('a standby engine ended before its build', {
      pid: standby.pid,
      ...how,
      lastOutput: lastOutput(standby.outPath),
      retryInMs,
    });
    rmSync(standby.outPath, { force: true });
    if (retryInMs === 0) this.refill();
    else this.refill(retryInMs);
  }
}

/** The end of what a standby printed (why it ended, if it said), or '' if it printed nothing. */
function lastOutput(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-LAST_OUTPUT_CHARS).trim();
  } catch {
    return '';
  }
}

/** Ends a standby that will not take a build: its channel closed, SIGTERM to its group. */
export function retire(standby: StandbyEngine): void {
  if (standby.child.connected) standby.child.disconnect();
  try {
    if (standby.pid > 0) process.kill(-standby.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  rmSync(standby.outPath, { force: true });
}
