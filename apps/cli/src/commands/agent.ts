/**
 * `sluice agent`'s command line: one flag per field of the runner agent's configuration, each
 * naming its variable (`RUNNER_ENV`), and the command that starts a local runtime's engines:
 * this very CLI's `sluice engine`. The agent's process is `@sluice/runner/main`.
 * @module
 */
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { RUNNER_DEFAULTS, RUNNER_ENV } from '@sluice/runner/main';

type AgentFlag = Exclude<keyof typeof RUNNER_ENV, 'dindHostAlias'>;

const D = RUNNER_DEFAULTS;
const FLAG_HELP: Record<AgentFlag, [placeholder: string, help: string]> = {
  serverUrl: ['url', 'the control plane URL'],
  token: ['token', 'the agent token (shown once when the agent was created)'],
  concurrency: ['n', `builds worked on at once (default ${D.concurrency})`],
  queueSize: ['n', `tasks held before the agent stops asking for more (default ${D.queueSize})`],
  pollWait: ['seconds', `seconds the server holds each long-poll (default ${D.pollWaitSeconds})`],
  heartbeatSeconds: ['seconds', `seconds between heartbeats (default ${D.heartbeatMs / 1000})`],
  reapSeconds: [
    'seconds',
    `seconds between orphan reaper passes, 0 for none (default ${D.reapIntervalMs / 1000})`,
  ],
  httpPort: [
    'port',
    `port of /healthz and /metrics, 0 for any, -1 for none (default ${D.httpPort})`,
  ],
  httpHost: ['address', 'address of /healthz and /metrics (default 0.0.0.0)'],
  drainSeconds: [
    'seconds',
    `seconds a shutdown waits for running tasks (default ${D.drainTimeoutMs / 1000})`,
  ],
  kubeQps: ['n', `Kubernetes requests per second, per cluster (default ${D.kubeQps})`],
  kubeBurst: ['n', `Kubernetes request burst, per cluster (default ${D.kubeBurst})`],
  inClusterRuntime: ['name', "serve this runtime with the pod's own service account"],
  configDir: ['dir', 'serve the runtimes of the *.runtime.yaml files in this directory'],
  kubeRuntime: ['name', 'serve this runtime through --kubeconfig'],
  kubeconfig: ['file', 'the kubeconfig file of --kube-runtime'],
  kubeContext: ['name', 'the context of --kubeconfig (default: its current context)'],
  namespace: ['name', 'namespace of build objects when the control plane does not name one'],
  warmPoolMin: [
    'count',
    'Kubernetes runtimes: pods kept running ahead of builds once none has come for 5 minutes (default 0)',
  ],
  warmPoolMax: [
    'count',
    'Kubernetes runtimes: pods kept running ahead of builds while builds come (default 0: no pool)',
  ],
  warmPoolMode: ['mode', 'fixed, or adaptive: from the builds of the last minute (default fixed)'],
  warmPoolPriorityClass: ['name', 'the PriorityClass of the pool pods (default: none)'],
  warmPoolBuildPriorityClass: [
    'name',
    'a never-preempting PriorityClass for the pods a build makes beside the pool (default: none)',
  ],
  localRuntime: [
    'name',
    "serve this runtime with engine processes on this machine's Docker engine",
  ],
  dockerHost: ['url', 'the Docker engine of --local-runtime (default: the local socket)'],
  stateDir: ['dir', "where --local-runtime keeps its engines' pid files and logs"],
  stopGraceSeconds: [
    'seconds',
    `seconds an engine gets after SIGTERM before SIGKILL (default ${D.stopGraceSeconds})`,
  ],
  standbyEngines: [
    'count',
    `--local-runtime engines started ahead of their builds, waiting for one (default ${D.standbyEngines})`,
  ],
  podFailureGraceSeconds: [
    'seconds',
    `seconds a build pod may wait on its image or container before the build fails (default ${D.podFailureGraceMs / 1000})`,
  ],
  unschedulableGraceSeconds: [
    'seconds',
    `seconds a build pod may stay unschedulable before the build fails; raise it with a cluster autoscaler (default ${D.unschedulableGraceMs / 1000})`,
  ],
};

/** Adds one `--kebab-case <value>` option per configuration field, naming its variable. */
export function addAgentOptions(command: Command): Command {
  for (const [key, [placeholder, help]] of Object.entries(FLAG_HELP) as [
    AgentFlag,
    [string, string],
  ][]) {
    const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    command.option(`--${flag} <${placeholder}>`, `${help} [${RUNNER_ENV[key]}]`);
  }
  command.option(
    '--dind-host-alias',
    `engine pods reach their dind pod by its IP (a hostAliases entry) instead of cluster DNS [${RUNNER_ENV.dindHostAlias}]`,
  );
  return command;
}

/** argv that starts `sluice engine` with this very CLI (apps/cli/bin/sluice.js). */
export function localEngineCommand(): string[] {
  const bin = fileURLToPath(new URL('../../bin/sluice.js', import.meta.url));
  return [process.execPath, bin, 'engine'];
}
