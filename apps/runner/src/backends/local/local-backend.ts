/**
 * The local runtime (`LocalBackend`): each build's engine is a `sluice engine` child process on
 * this machine, its own failure domain, against this machine's Docker engine. `RunEngine`
 * starts it (once: a running engine of the build means the task is done), `StopEngine` stops
 * it (SIGTERM, SIGKILL after the grace period) and removes whatever Docker objects of the
 * build it left. Engines get the agent's environment without the agent's credentials, plus
 * their build's server URL and engine token; their output goes to a file, never to the
 * agent's log. Every container and network an engine makes carries the runtime's owner label
 * (a hash of the agent's state directory): what a build's engine left when it was killed with
 * no chance to clean up (its process group killed mid-step, the machine restarted) is listed
 * for the reaper, which removes it once the control plane says the build is over; another
 * runtime's objects on the same Docker engine never are.
 * @module
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { describeError } from '@sluice/errors';
import { DOCKER_LABELS } from '@sluice/labels';
import type { Logger } from '@sluice/log';
import type { RuntimeHealth, Task } from '@sluice/protocol';
import { RUNNER_ENV } from '../../config.js';
import type { LocalTarget } from '../../runner-config.js';
import { TaskFailure } from '../../runtime-backend.js';
import type {
  BuildObjectRef,
  ReportInfrastructureError,
  RuntimeBackend,
} from '../../runtime-backend.js';
import { abnormalExit, engineExitReport } from './engine-exit-report.js';
import { EngineProcesses, SPOOL_DIR } from './engine-processes.js';
import type { EngineExit, PidFile, StopOutcome } from './engine-processes.js';
import { EngineStandby } from './engine-standby.js';
import {
  checkDocker,
  checkEngineCommand,
  localDockerEndpoint,
  localDockerHost,
} from './local-health.js';

export interface LocalBackendOptions {
  logger: Logger;
  /** Stop every running engine on `close()`: `sluice up` ends its builds `terminated` on Ctrl-C. */
  stopEnginesOnClose?: boolean;
  /** The agent's environment, which engines inherit without its credentials (its main's). */
  env?: NodeJS.ProcessEnv;
}

/** Credentials of the agent and the control plane that an engine has no business holding. */
const WITHHELD_ENV = [
  RUNNER_ENV.token,
  'SLUICE_TOKEN',
  'SLUICE_BOOTSTRAP_TOKEN',
  'SLUICE_SECRET_KEY',
  'DATABASE_URL',
];
/** The next standby engine starts this long after one took a build, not beside its start. */
const REFILL_DELAY_MS = 1_000;
const BUILD_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

export function createLocalBackend(
  target: LocalTarget,
  options: LocalBackendOptions,
): RuntimeBackend {
  return LocalBackend.create(target, options);
}

class LocalBackend implements RuntimeBackend {
  readonly kind = 'local' as const;
  readonly runtime: string;
  readonly #target: LocalTarget;
  readonly #options: LocalBackendOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly #log: Logger;
  readonly #engines: EngineProcesses;
  /** Engines started ahead of their builds (`standbyEngines`), or none. */
  readonly #standby: EngineStandby | undefined;
  /** Starts in flight per build, so the same task applied twice at once starts one engine. */
  readonly #starting = new Map<string, Promise<void>>();
  /** Builds whose engine is being stopped: `Stopping` in the agent's metrics. */
  readonly #stopping = new Set<string>();
  /** Builds whose engine the agent stopped: its exit is not a failure (kept until it is seen). */
  readonly #stopped = new Set<string>();
  /** Each running build's engine token, masked in what its engine's exit reports. */
  readonly #tokens = new Map<string, string>();
  /** How an engine that ended on its own is reported, once the agent's monitor runs. */
  #report: ReportInfrastructureError | undefined;
  #docker: DockerClient | undefined;
  #closed = false;
  /** The `io.sluice.owner` label of this runtime's builds' Docker objects. */
  readonly #owner: string;
  /** Why the last listing of leftovers failed, said once until it changes or works again. */
  #leftoversFailure: string | undefined;

  private constructor(target: LocalTarget, options: LocalBackendOptions) {
    this.runtime = target.name;
    this.#target = target;
    this.#options = options;
    this.#env = options.env ?? {};
    this.#log = options.logger.child({ component: 'local-backend' });
    this.#owner = dockerOwner(target.stateDir);
    this.#engines = EngineProcesses.create({
      stateDir: target.stateDir,
      command: target.engineCommand,
      logger: this.#log,
      onExit: (exit) => void this.#engineExited(exit),
    });
    const count = target.standbyEngines ?? 0;
    if (count > 0) {
      this.#standby = EngineStandby.create({
        stateDir: target.stateDir,
        command: target.engineCommand,
        count,
        env: this.#engineEnv({}),
        logger: this.#log,
      });
      this.#standby.refill();
    }
  }

  static create(target: LocalTarget, options: LocalBackendOptions): LocalBackend {
    return new LocalBackend(target, options);
  }

  async apply(task: Task, signal: AbortSignal): Promise<void> {
    if (this.#closed)
      throw new TaskFailure(`The local runtime "${this.runtime}" is shutting down`, {
        retriable: true,
      });
    if (task.type === 'RunEngine') return this.#runEngineOnce(task);
    if (task.type === 'StopEngine') return this.#stopEngine(buildIdOf(task), signal);
    throw new TaskFailure(
      `The local runtime "${this.runtime}" cannot carry out ${task.type} tasks, only RunEngine and StopEngine: the build's runtime environment should extend system/default/local`,
      { retriable: false },
    );
  }

  async health(): Promise<RuntimeHealth> {
    const checks = [
      await checkDocker(localDockerHost(this.#target, this.#env), () => this.#dockerClient()),
      checkEngineCommand(this.#target.engineCommand, this.#env),
    ];
    const failed = checks.filter((c) => !c.ok);
    const message =
      failed.length === 0
        ? checks.map((c) => c.message).join('; ')
        : failed.map((c) => c.message).join('; ');
    return { name: this.runtime, healthy: failed.length === 0, message, checks };
  }

  /**
   * The local runtime's counterpart of the pod monitor: nothing to poll, since each engine's
   * exit is seen as it happens; until `signal` aborts, one that ended on its own before its
   * build did is reported (`#engineExited`).
   */
  async monitor(options: {
    report: ReportInfrastructureError;
    signal: AbortSignal;
  }): Promise<void> {
    this.#report = options.report;
    if (options.signal.aborted) return;
    await new Promise((resolve) =>
      options.signal.addEventListener('abort', resolve, { once: true }),
    );
    this.#report = undefined;
  }

  /**
   * Each running engine, and the containers and networks of builds whose engine no longer runs
   * (`#leftovers`): what the reaper removes once their builds are over.
   */
  async listBuildObjects(): Promise<BuildObjectRef[]> {
    const engines: BuildObjectRef[] = this.#engines.list().map(({ buildId, pid }) => ({
      buildId,
      kind: 'EngineProcess',
      name: String(pid),
      phase: this.#stopping.has(buildId) ? 'Stopping' : 'Running',
    }));
    const running = new Set(engines.map((ref) => ref.buildId));
    const leftovers = await this.#leftovers();
    return [...engines, ...leftovers.filter((ref) => !running.has(ref.buildId))];
  }

  async deleteBuildObjects(refs: BuildObjectRef[]): Promise<void> {
    const engines = new Set(refs.filter((r) => r.kind === 'EngineProcess').map((r) => r.buildId));
    for (const buildId of engines) await this.#stopEngine(buildId);
    // Stopping an engine removed its build's Docker objects too.
    const left = new Set(refs.map((r) => r.buildId).filter((id) => !engines.has(id)));
    for (const buildId of left) await this.#removeDockerLeftovers(buildId);
  }

  /**
   * The containers and networks carrying this runtime's owner label, by build. A Docker engine
   * that does not answer lists none: the engines are still listed, and the failure is logged
   * once until it changes.
   */
  async #leftovers(): Promise<BuildObjectRef[]> {
    const owned = { [DOCKER_LABELS.owner]: this.#owner };
    const buildOf = (labels: Record<string, string>) => labels[DOCKER_LABELS.build] ?? '';
    try {
      const docker = this.#dockerClient();
      const containers = await docker.listContainers(owned);
      const networks = await docker.listLabelledNetworks(owned);
      if (this.#leftoversFailure !== undefined) this.#log.info('Docker answers the reaper again');
      this.#leftoversFailure = undefined;
      const refs: BuildObjectRef[] = [
        ...containers.map((c) => ({
          buildId: buildOf(c.labels),
          kind: 'Container',
          name: c.name,
          phase: c.state,
        })),
        ...networks.map((n) => ({ buildId: buildOf(n.labels), kind: 'Network', name: n.name })),
      ];
      return refs.filter((ref) => BUILD_ID.test(ref.buildId));
    } catch (err) {
      const reason = describeError(err);
      if (this.#leftoversFailure !== reason)
        this.#log.warn("cannot list the builds' Docker objects for the reaper", { reason });
      this.#leftoversFailure = reason;
      return [];
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#starting.values());
    this.#standby?.close();
    try {
      if (this.#options.stopEnginesOnClose) {
        const running = this.#engines.list();
        if (running.length > 0) this.#log.info('stopping engines', { builds: running.length });
        await Promise.all(running.map(({ buildId }) => this.#stopEngine(buildId).catch(() => {})));
      }
    } finally {
      this.#engines.release();
    }
  }

  async #runEngineOnce(task: Task): Promise<void> {
    const buildId = buildIdOf(task);
    const inFlight = this.#starting.get(buildId);
    if (inFlight !== undefined) return inFlight;
    const start = this.#runEngine(task, buildId).finally(() => this.#starting.delete(buildId));
    this.#starting.set(buildId, start);
    return start;
  }

  async #runEngine(task: Task, buildId: string): Promise<void> {
    const running = this.#engines.running(buildId);
    if (running !== undefined) {
      this.#log.info('engine already running', { buildId, pid: running.pid });
      return;
    }
    const env = this.#engineEnv({
      ...runtimeEnv(task),
      SLUICE_SERVER_URL: specText(task, 'serverUrl'),
      SLUICE_ENGINE_TOKEN: specText(task, 'engineToken'),
    });
    this.#tokens.set(buildId, env.SLUICE_ENGINE_TOKEN ?? '');
    try {
      const { pid, slot } = await this.#startEngine(buildId, env);
      const log = this.#engines.logPath(buildId);
      this.#log.info('engine started', { buildId, pid, log, standby: slot !== undefined });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TaskFailure(
        `Cannot start the engine of build ${buildId} with "${this.#target.engineCommand.join(' ')}": ${describeError(err)}`,
        { retriable: code !== 'ENOENT' && code !== 'EACCES', cause: err },
      );
    }
  }

  /** A standby engine handed the build if one waits (another is started behind it), else a new one. */
  async #startEngine(buildId: string, env: NodeJS.ProcessEnv): Promise<PidFile> {
    // A build's log is appended to, never replaced by a standby's: such a build starts cold.
    const standby = this.#engines.hasLog(buildId) ? undefined : this.#standby?.take();
    try {
      const handed = standby && (await this.#engines.handOver(buildId, standby, env));
      return handed || (await this.#engines.start(buildId, env));
    } finally {
      this.#standby?.refill(REFILL_DELAY_MS);
    }
  }

  /** Every engine's environment: the agent's without its credentials, with the runtime's Docker. */
  #engineEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
    return engineEnv(this.#env, {
      ...extra,
      DOCKER_HOST: this.#target.dockerHost,
      SLUICE_ENGINE_DOCKER_OWNER: this.#owner,
      // Beside the pid files, not in whatever directory the agent was started from.
      SLUICE_LOG_SPOOL_DIR:
        this.#env.SLUICE_LOG_SPOOL_DIR || join(this.#target.stateDir, SPOOL_DIR),
    });
  }

  async #stopEngine(buildId: string, signal?: AbortSignal): Promise<void> {
    this.#stopping.add(buildId);
    this.#stopped.add(buildId);
    try {
      await this.#stopEngineNow(buildId, signal);
    } finally {
      this.#stopping.delete(buildId);
    }
  }

  async #stopEngineNow(buildId: string, signal?: AbortSignal): Promise<void> {
    let outcome: StopOutcome;
    try {
      const graceMs = this.#target.stopGraceSeconds * 1000;
      outcome = await this.#engines.stop(buildId, graceMs, signal);
    } catch (err) {
      throw new TaskFailure(`Cannot stop the engine of build ${buildId}: ${describeError(err)}`, {
        retriable: true,
        cause: err,
      });
    }
    if (outcome !== 'not-running') this.#log.info('engine stopped', { buildId, how: outcome });
    else this.#stopped.delete(buildId);
    await this.#removeDockerLeftovers(buildId);
  }

  /**
   * An engine that ended while the agent was not stopping it is reported: the control plane
   * ends (or retries) its build naming how, and leaves a build that had finished alone. An
   * engine that exits 0 has reported its build's end, so that report is ignored; one that exits
   * 0 without having done so (a standby whose hand-off failed) would otherwise leave its build
   * `elected` until a workflow limit. What a killed or crashed one left in Docker is removed.
   */
  async #engineExited(exit: EngineExit): Promise<void> {
    const token = this.#tokens.get(exit.buildId);
    this.#tokens.delete(exit.buildId);
    const stopped = this.#stopped.delete(exit.buildId);
    if (stopped) return;
    // Killed or crashed, it could not remove its containers and network: removed before the
    // report, since the control plane may hand the build to a new engine that makes its own.
    if (abnormalExit(exit)) await this.#removeDockerLeftovers(exit.buildId);
    const report = this.#report;
    if (report === undefined) return;
    const body = engineExitReport(exit, this.#engines.logPath(exit.buildId), [token ?? '']);
    const log = { buildId: exit.buildId, pid: exit.pid, reason: body.reason };
    try {
      const answer = await report(exit.buildId, body);
      if (answer.action !== 'ignored') this.#log.warn('build engine failed', { ...log, ...answer });
    } catch (err) {
      this.#log.warn('engine failure not reported', { ...log, error: describeError(err) });
    }
  }

  /** One client for the health checks and the clean-up, made on first use (TLS files read once). */
  #dockerClient(): DockerClient {
    return (this.#docker ??= DockerClient.create(localDockerEndpoint(this.#target, this.#env)));
  }

  /**
   * An engine cleans up after itself unless it was killed or crashed; whatever it left is
   * removed here. Best effort: the build is over, so a Docker failure is only logged.
   */
  async #removeDockerLeftovers(buildId: string): Promise<void> {
    try {
      const docker = this.#dockerClient();
      const labels = { [DOCKER_LABELS.build]: buildId };
      const containers = await docker.listContainers(labels);
      for (const c of containers) await docker.removeContainer(c.id);
      const networks = await docker.listNetworks(labels);
      for (const name of networks) await docker.removeNetwork(name);
      if (containers.length + networks.length > 0)
        this.#log.info('removed what the engine left', {
          buildId,
          containers: containers.map((c) => c.name).join(', '),
          networks: networks.join(', '),
        });
    } catch (err) {
      this.#log.warn("cannot remove the build's containers", {
        buildId,
        reason: describeError(err),
      });
    }
  }
}

/** The owner label of a local runtime's Docker objects: its state directory's, hashed. */
export function dockerOwner(stateDir: string): string {
  return createHash('sha256').update(resolve(stateDir)).digest('hex').slice(0, 16);
}

function specText(task: Task, key: string): string {
  const value = task.spec[key];
  if (typeof value === 'string' && value !== '') return value;
  throw new TaskFailure(
    `${task.type} task ${task.id} has no "${key}" in its spec${key === 'serverUrl' ? ': set SLUICE_PUBLIC_URL on the control plane' : ''}`,
    { retriable: false },
  );
}

function buildIdOf(task: Task): string {
  const buildId = specText(task, 'buildId');
  if (!BUILD_ID.test(buildId))
    throw new TaskFailure(`${task.type} task ${task.id} names an invalid build id "${buildId}"`, {
      retriable: false,
    });
  return buildId;
}

/** What the runtime spec gives its engine (`renderLocalEngineEnv`); only those names are taken. */
const RUNTIME_ENV =
  /^(SLUICE_USER_ENV_\w+|SLUICE_USER_VOLUME_MOUNTS|(https?|no)_proxy|(HTTPS?|NO)_PROXY)$/;

function runtimeEnv(task: Task): Record<string, string> {
  const env = task.spec.env;
  if (env === null || typeof env !== 'object') return {};
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        RUNTIME_ENV.test(entry[0]) && typeof entry[1] === 'string',
    ),
  );
}

/** The agent's environment without its credentials, with `extra` set (undefined: left as is). */
function engineEnv(
  env: NodeJS.ProcessEnv,
  extra: Record<string, string | undefined>,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of WITHHELD_ENV) delete out[name];
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) out[name] = value;
  return out;
}
