/**
 * `sluice agent`'s environment. Each variable has a flag of the same meaning; the agent passes
 * its flags in under the variables' names, so flags win and a problem names both.
 * @module
 */
import { numberVar, requiredTextVar, switchVar, textVar, urlVar } from './variables.js';
import type { EnvValues } from './parse-env.js';
import { AGENT_DEFAULTS } from './defaults.js';

const SECONDS = 'seconds';

export const agentEnv = {
  SLUICE_SERVER_URL: urlVar({
    description: 'The control plane, required',
    flag: 'server-url',
    required: true,
  }),
  SLUICE_AGENT_TOKEN: requiredTextVar({
    description:
      'The agent token, shown once when the agent was created, required; never passed to engines',
    flag: 'token',
    secret: true,
  }),
  SLUICE_AGENT_CONCURRENCY: numberVar({
    description: 'Builds worked on at once',
    flag: 'concurrency',
    min: 1,
    max: 1000,
    default: AGENT_DEFAULTS.concurrency,
  }),
  SLUICE_AGENT_QUEUE_SIZE: numberVar({
    description: 'Tasks held before the agent stops asking for more',
    flag: 'queue-size',
    min: 1,
    max: 100_000,
    default: AGENT_DEFAULTS.queueSize,
  }),
  SLUICE_AGENT_POLL_WAIT: numberVar({
    description: 'Seconds the server holds each long-poll open',
    flag: 'poll-wait',
    min: 0,
    max: 60,
    fraction: true,
    unit: SECONDS,
    default: AGENT_DEFAULTS.pollWaitSeconds,
  }),
  SLUICE_AGENT_HEARTBEAT_SECONDS: numberVar({
    description: "Seconds between heartbeats, each with every runtime's health",
    flag: 'heartbeat-seconds',
    min: 1,
    max: 600,
    fraction: true,
    default: AGENT_DEFAULTS.heartbeatMs / 1000,
  }),
  SLUICE_AGENT_REAP_SECONDS: numberVar({
    description: 'Seconds between passes of the orphan reaper; 0 turns it off',
    flag: 'reap-seconds',
    min: 0,
    max: 86_400,
    fraction: true,
    default: AGENT_DEFAULTS.reapIntervalMs / 1000,
  }),
  SLUICE_AGENT_HTTP_PORT: numberVar({
    description: 'Port of `/healthz` and `/metrics`; 0 picks a free one, -1 serves nothing',
    flag: 'http-port',
    min: -1,
    max: 65_535,
    default: AGENT_DEFAULTS.httpPort,
  }),
  SLUICE_AGENT_HTTP_HOST: textVar({
    description: 'Address of `/healthz` and `/metrics`',
    flag: 'http-host',
    default: AGENT_DEFAULTS.httpHost,
  }),
  SLUICE_AGENT_DRAIN_SECONDS: numberVar({
    description: 'How long a shutdown waits for running tasks',
    flag: 'drain-seconds',
    min: 0,
    max: 3600,
    fraction: true,
    unit: SECONDS,
    default: AGENT_DEFAULTS.drainTimeoutMs / 1000,
  }),
  SLUICE_KUBE_QPS: numberVar({
    description: 'Kubernetes client rate limit, requests per second per cluster',
    flag: 'kube-qps',
    min: 1,
    max: 10_000,
    fraction: true,
    default: AGENT_DEFAULTS.kubeQps,
  }),
  SLUICE_KUBE_BURST: numberVar({
    description: 'Kubernetes client burst, per cluster',
    flag: 'kube-burst',
    min: 1,
    max: 10_000,
    default: AGENT_DEFAULTS.kubeBurst,
  }),
  SLUICE_IN_CLUSTER_RUNTIME: textVar({
    description: "Serve this runtime with the pod's own service account",
    flag: 'in-cluster-runtime',
  }),
  SLUICE_AGENT_CONFIG_DIR: textVar({
    description:
      "Serve the runtime of each `*.runtime.yaml` file in this directory (`name`, `host`, `token`, `crt`; optional `namespace`, and `warmPool`: that runtime's pool, `minSize`, `maxSize`, `mode`, `priorityClassName`, `buildPriorityClassName`)",
    flag: 'config-dir',
  }),
  SLUICE_KUBE_RUNTIME: textVar({
    description: 'Serve this runtime through `KUBECONFIG`',
    flag: 'kube-runtime',
  }),
  KUBECONFIG: textVar({
    description: 'The kubeconfig file of `SLUICE_KUBE_RUNTIME`',
    flag: 'kubeconfig',
  }),
  SLUICE_KUBE_CONTEXT: textVar({
    description: 'The context of `KUBECONFIG` to use',
    flag: 'kube-context',
    defaultText: 'its current context',
  }),
  SLUICE_NAMESPACE: textVar({
    description: 'Namespace of build objects when the control plane does not name one',
    flag: 'namespace',
  }),
  SLUICE_DIND_HOST_ALIAS: switchVar({
    description:
      'Engine pods reach their dind pod by its IP (a `hostAliases` entry) instead of cluster DNS',
    flag: 'dind-host-alias',
  }),
  SLUICE_WARM_POOL_MIN: numberVar({
    description:
      "Kubernetes runtimes of the agent's own cluster (a `*.runtime.yaml` runtime has its file's `warmPool`): pods kept running ahead of builds once none has come for 5 minutes (docs/warm-pool.md)",
    flag: 'warm-pool-min',
    min: 0,
    max: 100,
    default: AGENT_DEFAULTS.warmPoolMin,
  }),
  SLUICE_WARM_POOL_MAX: numberVar({
    description:
      'Kubernetes runtimes: pods kept running ahead of builds while builds come (`fixed`), or the most the arrival rate may ask (`adaptive`); 0 with a minimum of 0: no pool',
    flag: 'warm-pool-max',
    min: 0,
    max: 100,
    default: AGENT_DEFAULTS.warmPoolMax,
  }),
  SLUICE_WARM_POOL_MODE: textVar({
    description:
      '`fixed`, or `adaptive`: as many pool pods as builds came in the last minute, within the minimum and maximum',
    flag: 'warm-pool-mode',
    default: AGENT_DEFAULTS.warmPoolMode,
  }),
  SLUICE_WARM_POOL_PRIORITY_CLASS: textVar({
    description:
      'The PriorityClass of the pool pods, so that real workloads preempt them (the chart and `runner init --warm-pool` make `sluice-warm-pool`)',
    flag: 'warm-pool-priority-class',
    defaultText: 'none',
  }),
  SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS: textVar({
    description:
      "The PriorityClass of the pods a build makes of its own beside the pool, one that never preempts, so that a burst's builds wait for room instead of preempting pool pods other builds run on (the chart and `runner init --warm-pool` make `sluice-build`)",
    flag: 'warm-pool-build-priority-class',
    defaultText: 'none',
  }),
  SLUICE_LOCAL_RUNTIME: textVar({
    description:
      "Serve this runtime with `sluice engine` processes on this machine's Docker engine",
    flag: 'local-runtime',
  }),
  DOCKER_HOST: textVar({
    description:
      'The Docker engine of the local runtime (`DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH` for TLS)',
    flag: 'docker-host',
    defaultText: 'the local socket',
  }),
  SLUICE_AGENT_STATE_DIR: textVar({
    description:
      "Where the local runtime keeps `<build>.json` (engine pid files), `<build>.log` (engine output) and `log-spool/<build>/` (a killed engine's log spool; both kept 3 days); required with `SLUICE_LOCAL_RUNTIME`",
    flag: 'state-dir',
  }),
  SLUICE_ENGINE_STOP_GRACE_SECONDS: numberVar({
    description: 'Seconds a local engine gets after SIGTERM before SIGKILL',
    flag: 'stop-grace-seconds',
    min: 0,
    max: 3600,
    fraction: true,
    default: AGENT_DEFAULTS.stopGraceSeconds,
  }),
  SLUICE_STANDBY_ENGINES: numberVar({
    description:
      'Local engines started ahead of their builds, loaded and waiting for one (a build then skips their start-up); 0: each engine starts with its build',
    flag: 'standby-engines',
    min: 0,
    max: 16,
    default: AGENT_DEFAULTS.standbyEngines,
  }),
  SLUICE_POD_FAILURE_GRACE_SECONDS: numberVar({
    description:
      'Seconds a build pod may wait on its image or container before the build fails (docs/pod-failures.md)',
    flag: 'pod-failure-grace-seconds',
    min: 0,
    max: 3600,
    fraction: true,
    default: AGENT_DEFAULTS.podFailureGraceMs / 1000,
  }),
  SLUICE_UNSCHEDULABLE_GRACE_SECONDS: numberVar({
    description:
      'Seconds a build pod no node would take (a node selector, a taint) may stay unschedulable before the build fails; a pod that only waits for room on a node (Insufficient cpu) waits at least 15 minutes',
    flag: 'unschedulable-grace-seconds',
    min: 0,
    max: 86_400,
    fraction: true,
    default: AGENT_DEFAULTS.unschedulableGraceMs / 1000,
  }),
};

export type AgentEnv = EnvValues<typeof agentEnv>;
