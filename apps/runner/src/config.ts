/**
 * Reads the agent's configuration from flags (already split by the CLI) and the environment
 * through the schema of `@sluice/config`, in one pass that reports every problem at once: flags
 * win over variables, numbers are checked for range, and each runtime is named with how to
 * reach it. `*.runtime.yaml` files of a config
 * directory (reference §1.6: `type: runtime`, `name`, `host`, `token`, `crt`, plus our optional
 * `namespace` and `warmPool`) give one agent several clusters; a bad file is a problem naming
 * the file and its field. The agent's pool variables size the pools of its own cluster's
 * runtimes; another cluster's pool (its PriorityClasses are that cluster's) is its file's.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { agentEnv, configError, parseEnv, variableLabel } from '@sluice/config';
import type { AgentEnv, Env } from '@sluice/config';
import type { KubernetesTarget, RunnerConfig, RuntimeTarget } from './runner-config.js';
import { WARM_POOL_DEFAULTS, WARM_POOL_MODES } from './backends/kubernetes/warm-pool-size.js';
import type { WarmPoolMode, WarmPoolSettings } from './backends/kubernetes/warm-pool-size.js';

/** Flag values as the CLI received them; each has an environment variable (see docs). */
export interface RunnerConfigInput {
  serverUrl?: string;
  token?: string;
  concurrency?: string;
  queueSize?: string;
  pollWait?: string;
  heartbeatSeconds?: string;
  reapSeconds?: string;
  httpPort?: string;
  httpHost?: string;
  drainSeconds?: string;
  kubeQps?: string;
  kubeBurst?: string;
  /** Runtime served with the pod's own service account. */
  inClusterRuntime?: string;
  /** Directory of `*.runtime.yaml` files. */
  configDir?: string;
  /** Runtime served through a kubeconfig file (out of cluster). */
  kubeRuntime?: string;
  kubeconfig?: string;
  kubeContext?: string;
  namespace?: string;
  /** Engine pods reach their dind by an alias to its IP instead of cluster DNS. */
  dindHostAlias?: boolean;
  warmPoolMin?: string;
  warmPoolMax?: string;
  warmPoolMode?: string;
  warmPoolPriorityClass?: string;
  warmPoolBuildPriorityClass?: string;
  /** Runtime served by engine processes on this machine's Docker engine. */
  localRuntime?: string;
  dockerHost?: string;
  engineCommand?: string[];
  stateDir?: string;
  stopGraceSeconds?: string;
  standbyEngines?: string;
  podFailureGraceSeconds?: string;
  unschedulableGraceSeconds?: string;
}

/** The variable behind each flag. */
export const RUNNER_ENV = {
  serverUrl: 'SLUICE_SERVER_URL',
  token: 'SLUICE_AGENT_TOKEN',
  concurrency: 'SLUICE_AGENT_CONCURRENCY',
  queueSize: 'SLUICE_AGENT_QUEUE_SIZE',
  pollWait: 'SLUICE_AGENT_POLL_WAIT',
  heartbeatSeconds: 'SLUICE_AGENT_HEARTBEAT_SECONDS',
  reapSeconds: 'SLUICE_AGENT_REAP_SECONDS',
  httpPort: 'SLUICE_AGENT_HTTP_PORT',
  httpHost: 'SLUICE_AGENT_HTTP_HOST',
  drainSeconds: 'SLUICE_AGENT_DRAIN_SECONDS',
  kubeQps: 'SLUICE_KUBE_QPS',
  kubeBurst: 'SLUICE_KUBE_BURST',
  inClusterRuntime: 'SLUICE_IN_CLUSTER_RUNTIME',
  configDir: 'SLUICE_AGENT_CONFIG_DIR',
  kubeRuntime: 'SLUICE_KUBE_RUNTIME',
  kubeconfig: 'KUBECONFIG',
  kubeContext: 'SLUICE_KUBE_CONTEXT',
  namespace: 'SLUICE_NAMESPACE',
  dindHostAlias: 'SLUICE_DIND_HOST_ALIAS',
  warmPoolMin: 'SLUICE_WARM_POOL_MIN',
  warmPoolMax: 'SLUICE_WARM_POOL_MAX',
  warmPoolMode: 'SLUICE_WARM_POOL_MODE',
  warmPoolPriorityClass: 'SLUICE_WARM_POOL_PRIORITY_CLASS',
  warmPoolBuildPriorityClass: 'SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS',
  localRuntime: 'SLUICE_LOCAL_RUNTIME',
  dockerHost: 'DOCKER_HOST',
  stateDir: 'SLUICE_AGENT_STATE_DIR',
  stopGraceSeconds: 'SLUICE_ENGINE_STOP_GRACE_SECONDS',
  standbyEngines: 'SLUICE_STANDBY_ENGINES',
  podFailureGraceSeconds: 'SLUICE_POD_FAILURE_GRACE_SECONDS',
  unschedulableGraceSeconds: 'SLUICE_UNSCHEDULABLE_GRACE_SECONDS',
} as const satisfies Partial<Record<keyof RunnerConfigInput, string>>;

/** The environment with the flags given put in under their variables' names, so they win. */
function withFlags(input: RunnerConfigInput, env: NodeJS.ProcessEnv): Env {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [key, name] of Object.entries(RUNNER_ENV) as [keyof typeof RUNNER_ENV, string][]) {
    const flag = input[key];
    if (flag === true) merged[name] = 'true';
    else if (typeof flag === 'string' && flag !== '') merged[name] = flag;
  }
  return merged;
}

type Values = AgentEnv;

function describeKey(key: keyof typeof RUNNER_ENV): string {
  return variableLabel(agentEnv, RUNNER_ENV[key]);
}

/** @throws InputError `SLUICE_AGENT_CONFIG_INVALID` listing every problem. */
export function parseRunnerConfig(input: RunnerConfigInput, env: NodeJS.ProcessEnv): RunnerConfig {
  const { values: v, problems } = parseEnv(agentEnv, withFlags(input, env));
  const port = v.SLUICE_AGENT_HTTP_PORT;
  const config: RunnerConfig = {
    serverUrl: v.SLUICE_SERVER_URL ?? '',
    token: v.SLUICE_AGENT_TOKEN ?? '',
    concurrency: v.SLUICE_AGENT_CONCURRENCY,
    queueSize: v.SLUICE_AGENT_QUEUE_SIZE,
    pollWaitSeconds: v.SLUICE_AGENT_POLL_WAIT,
    heartbeatMs: v.SLUICE_AGENT_HEARTBEAT_SECONDS * 1000,
    reapIntervalMs: v.SLUICE_AGENT_REAP_SECONDS * 1000,
    drainTimeoutMs: v.SLUICE_AGENT_DRAIN_SECONDS * 1000,
    http: port < 0 ? undefined : { host: v.SLUICE_AGENT_HTTP_HOST, port },
    kubeQps: v.SLUICE_KUBE_QPS,
    kubeBurst: v.SLUICE_KUBE_BURST,
    podFailureGraceMs: v.SLUICE_POD_FAILURE_GRACE_SECONDS * 1000,
    unschedulableGraceMs: v.SLUICE_UNSCHEDULABLE_GRACE_SECONDS * 1000,
    runtimes: runtimeTargets(v, input, problems),
  };
  if (config.runtimes.length === 0) {
    problems.push(
      'No runtime to serve: give --in-cluster-runtime, --config-dir, --kube-runtime with --kubeconfig, or --local-runtime',
    );
  }
  const names = config.runtimes.map((r) => r.name);
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i)))
    problems.push(`Runtime "${name}" is configured twice`);
  if (problems.length > 0)
    throw configError(problems, {
      code: 'SLUICE_AGENT_CONFIG_INVALID',
      whose: "the agent's",
      hint: 'See `sluice agent --help`',
    });
  return config;
}

function runtimeTargets(v: Values, input: RunnerConfigInput, problems: string[]): RuntimeTarget[] {
  const targets: RuntimeTarget[] = [];
  const namespace = v.SLUICE_NAMESPACE;
  const dindHostAlias = v.SLUICE_DIND_HOST_ALIAS || undefined;
  const warmPool = warmPoolSettings(v, problems);
  // The agent's pool variables size the pools of its own cluster's runtimes; a runtime file's
  // cluster (`runner attach`) has a pool only if its file asks for one (`fileWarmPool`).
  const alias = dindHostAlias ? { dindHostAlias } : {};
  const pooled = { ...alias, ...(warmPool === undefined ? {} : { warmPool }) };
  const inCluster = v.SLUICE_IN_CLUSTER_RUNTIME;
  if (inCluster !== undefined)
    targets.push({
      kind: 'kubernetes',
      name: inCluster,
      source: { type: 'in-cluster' },
      namespace,
      ...pooled,
    });
  const kubeRuntime = v.SLUICE_KUBE_RUNTIME;
  if (kubeRuntime !== undefined) {
    const path = v.KUBECONFIG;
    if (path === undefined)
      problems.push(`${describeKey('kubeRuntime')} needs ${describeKey('kubeconfig')}`);
    else {
      const source = { type: 'kubeconfig' as const, path, context: v.SLUICE_KUBE_CONTEXT };
      targets.push({ kind: 'kubernetes', name: kubeRuntime, source, namespace, ...pooled });
    }
  }
  const dir = v.SLUICE_AGENT_CONFIG_DIR;
  if (dir !== undefined)
    targets.push(...runtimeFiles(dir, problems).map((t) => ({ ...t, ...alias })));
  const local = v.SLUICE_LOCAL_RUNTIME;
  if (local !== undefined) {
    const stateDir = v.SLUICE_AGENT_STATE_DIR;
    if (stateDir === undefined)
      problems.push(`${describeKey('localRuntime')} needs ${describeKey('stateDir')}`);
    if (input.engineCommand === undefined || input.engineCommand.length === 0)
      problems.push(`${describeKey('localRuntime')} needs the command that starts an engine`);
    targets.push({
      kind: 'local',
      name: local,
      dockerHost: v.DOCKER_HOST,
      engineCommand: input.engineCommand ?? [],
      stateDir: stateDir ?? '',
      stopGraceSeconds: v.SLUICE_ENGINE_STOP_GRACE_SECONDS,
      standbyEngines: v.SLUICE_STANDBY_ENGINES,
    });
  }
  return targets;
}

/** The warm pool of the agent's own Kubernetes runtimes, if one is asked for (backends/kubernetes/warm-pool.ts). */
function warmPoolSettings(v: Values, problems: string[]): WarmPoolSettings | undefined {
  const mode = v.SLUICE_WARM_POOL_MODE;
  if (!(WARM_POOL_MODES as readonly string[]).includes(mode))
    problems.push(`${describeKey('warmPoolMode')} is "${mode}": give ${modeChoices()}`);
  return poolSettings({
    mode: mode as WarmPoolMode,
    minSize: v.SLUICE_WARM_POOL_MIN,
    maxSize: v.SLUICE_WARM_POOL_MAX,
    priorityClassName: v.SLUICE_WARM_POOL_PRIORITY_CLASS,
    buildPriorityClassName: v.SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS,
  });
}

/** The settings of a pool of at most `maxSize` (at least `minSize`) pods; none when that is 0. */
function poolSettings(given: {
  mode: WarmPoolMode;
  minSize: number;
  maxSize: number;
  priorityClassName?: string | undefined;
  buildPriorityClassName?: string | undefined;
}): WarmPoolSettings | undefined {
  const { priorityClassName, buildPriorityClassName, minSize } = given;
  const maxSize = Math.max(minSize, given.maxSize);
  if (maxSize === 0) return undefined;
  return {
    ...WARM_POOL_DEFAULTS,
    mode: given.mode,
    minSize,
    maxSize,
    ...(priorityClassName === undefined ? {} : { priorityClassName }),
    ...(buildPriorityClassName === undefined ? {} : { buildPriorityClassName }),
  };
}

const modeChoices = () => WARM_POOL_MODES.map((m) => `"${m}"`).join(' or ');
/** The fields of a runtime file's `warmPool`, as `runner attach --warm-pool` writes them. */
const FILE_POOL_FIELDS = [
  'minSize',
  'maxSize',
  'mode',
  'priorityClassName',
  'buildPriorityClassName',
] as const;

/**
 * A runtime file's `warmPool` (`minSize`, `maxSize`, `mode`, and the PriorityClasses of its
 * cluster): that runtime's pool, each bad field a problem naming the file and the field.
 */
function fileWarmPool(
  file: string,
  value: unknown,
  problems: string[],
): WarmPoolSettings | undefined {
  if (value === undefined) return undefined;
  const where = (field: string) => `${file}: field "warmPool${field === '' ? '' : `.${field}`}"`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(
      `${where('')} must be a map (minSize, maxSize, mode), got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  const pool = value as Record<string, unknown>;
  for (const key of Object.keys(pool))
    if (!(FILE_POOL_FIELDS as readonly string[]).includes(key))
      problems.push(`${where(key)} is not a field: give ${FILE_POOL_FIELDS.join(', ')}`);
  const size = (field: 'minSize' | 'maxSize'): number => {
    const n = pool[field] ?? 0;
    if (Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 100) return n as number;
    problems.push(`${where(field)} must be an integer from 0 to 100, got ${JSON.stringify(n)}`);
    return 0;
  };
  const text = (field: 'priorityClassName' | 'buildPriorityClassName'): string | undefined => {
    const name = pool[field];
    if (name === undefined || (typeof name === 'string' && name !== '')) return name;
    problems.push(`${where(field)} must be a PriorityClass name, got ${JSON.stringify(name)}`);
    return undefined;
  };
  const mode = pool['mode'] ?? WARM_POOL_DEFAULTS.mode;
  if (!(WARM_POOL_MODES as readonly unknown[]).includes(mode))
    problems.push(`${where('mode')} is ${JSON.stringify(mode)}: give ${modeChoices()}`);
  return poolSettings({
    mode: mode as WarmPoolMode,
    minSize: size('minSize'),
    maxSize: size('maxSize'),
    priorityClassName: text('priorityClassName'),
    buildPriorityClassName: text('buildPriorityClassName'),
  });
}

/** Every `*.runtime.yaml` of `dir` (reference §1.6), each problem naming its file and field. */
function runtimeFiles(dir: string, problems: string[]): KubernetesTarget[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.runtime.yaml'))
      .sort();
  } catch (err) {
    problems.push(`Cannot read the config directory ${dir}: ${(err as Error).message}`);
    return [];
  }
  if (names.length === 0) problems.push(`${dir} holds no *.runtime.yaml file`);
  return names.flatMap((name) => {
    const file = join(dir, name);
    const target = runtimeFile(file, problems);
    return target === undefined ? [] : [target];
  });
}

function runtimeFile(file: string, problems: string[]): KubernetesTarget | undefined {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${file}: not YAML: ${(err as Error).message}`);
    return undefined;
  }
  const record = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const field = (key: string, required: boolean): string | undefined => {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (required || value !== undefined)
      problems.push(`${file}: field "${key}" must be a non-empty string`);
    return undefined;
  };
  if (record.type !== 'runtime')
    problems.push(`${file}: field "type" must be "runtime", got ${JSON.stringify(record.type)}`);
  const name = field('name', true);
  const host = field('host', true);
  const token = field('token', true);
  const caPem = field('crt', false);
  const namespace = field('namespace', false);
  const warmPool = fileWarmPool(file, record['warmPool'], problems);
  if (name === undefined || host === undefined || token === undefined) return undefined;
  return {
    kind: 'kubernetes',
    name,
    source: { type: 'token', host, token, caPem, file },
    namespace,
    ...(warmPool === undefined ? {} : { warmPool }),
  };
}
