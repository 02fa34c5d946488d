/**
 * Reads the agent's configuration from flags (already split by the CLI) and the environment,
 * in one pass that reports every problem at once: flags win over variables, numbers are checked
 * for range, and each runtime is named with how to reach it. `*.runtime.yaml` files of a config
 * directory (reference §1.6: `type: runtime`, `name`, `host`, `token`, `crt`, plus our optional
 * `namespace`) give one agent several clusters; a bad file is a problem naming the file.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InputError } from '@sluice/errors';
import { RUNNER_DEFAULTS } from './runner-config.js';
import type { KubernetesTarget, RunnerConfig, RuntimeTarget } from './runner-config.js';

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
  /** Runtime served by engine processes on this machine's Docker engine. */
  localRuntime?: string;
  dockerHost?: string;
  engineCommand?: string[];
  stateDir?: string;
  stopGraceSeconds?: string;
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
  localRuntime: 'SLUICE_LOCAL_RUNTIME',
  dockerHost: 'DOCKER_HOST',
  stateDir: 'SLUICE_AGENT_STATE_DIR',
  stopGraceSeconds: 'SLUICE_ENGINE_STOP_GRACE_SECONDS',
  podFailureGraceSeconds: 'SLUICE_POD_FAILURE_GRACE_SECONDS',
  unschedulableGraceSeconds: 'SLUICE_UNSCHEDULABLE_GRACE_SECONDS',
} as const satisfies Partial<Record<keyof RunnerConfigInput, string>>;

type TextKey = Exclude<keyof typeof RUNNER_ENV, 'dindHostAlias'>;

class Reader {
  readonly problems: string[] = [];
  readonly #input: RunnerConfigInput;
  readonly #env: NodeJS.ProcessEnv;

  constructor(input: RunnerConfigInput, env: NodeJS.ProcessEnv) {
    this.#input = input;
    this.#env = env;
  }

  flag(key: 'dindHostAlias'): boolean {
    if (this.#input[key] === true) return true;
    const value = this.#env[RUNNER_ENV[key]];
    return value !== undefined && !['', '0', 'false', 'no'].includes(value.toLowerCase());
  }

  text(key: TextKey): string | undefined {
    const flag = this.#input[key];
    if (typeof flag === 'string' && flag !== '') return flag;
    const value = this.#env[RUNNER_ENV[key]];
    return value === undefined || value === '' ? undefined : value;
  }

  number(key: TextKey, fallback: number, min: number, max: number): number {
    const raw = this.text(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      this.problems.push(
        `${describeKey(key)} must be a number from ${min} to ${max}, got "${raw}"`,
      );
      return fallback;
    }
    return value;
  }
}

function describeKey(key: keyof typeof RUNNER_ENV): string {
  const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return `--${flag} (${RUNNER_ENV[key]})`;
}

/** @throws InputError `SLUICE_AGENT_CONFIG_INVALID` listing every problem. */
export function parseRunnerConfig(input: RunnerConfigInput, env: NodeJS.ProcessEnv): RunnerConfig {
  const read = new Reader(input, env);
  const serverUrl = read.text('serverUrl');
  const token = read.text('token');
  if (serverUrl === undefined) read.problems.push(`${describeKey('serverUrl')} is not set`);
  else if (!/^https?:\/\/[^/]/.test(serverUrl))
    read.problems.push(`${describeKey('serverUrl')} must be an http(s) URL, got "${serverUrl}"`);
  if (token === undefined) read.problems.push(`${describeKey('token')} is not set`);
  const port = read.number('httpPort', RUNNER_DEFAULTS.httpPort, -1, 65535);
  const config: RunnerConfig = {
    serverUrl: serverUrl?.replace(/\/+$/, '') ?? '',
    token: token ?? '',
    concurrency: read.number('concurrency', RUNNER_DEFAULTS.concurrency, 1, 1000),
    queueSize: read.number('queueSize', RUNNER_DEFAULTS.queueSize, 1, 100_000),
    pollWaitSeconds: read.number('pollWait', RUNNER_DEFAULTS.pollWaitSeconds, 0, 60),
    heartbeatMs: read.number('heartbeatSeconds', RUNNER_DEFAULTS.heartbeatMs / 1000, 1, 600) * 1000,
    reapIntervalMs:
      read.number('reapSeconds', RUNNER_DEFAULTS.reapIntervalMs / 1000, 0, 86_400) * 1000,
    drainTimeoutMs:
      read.number('drainSeconds', RUNNER_DEFAULTS.drainTimeoutMs / 1000, 0, 3600) * 1000,
    http: port < 0 ? undefined : { host: read.text('httpHost') ?? '0.0.0.0', port },
    kubeQps: read.number('kubeQps', RUNNER_DEFAULTS.kubeQps, 1, 10_000),
    kubeBurst: read.number('kubeBurst', RUNNER_DEFAULTS.kubeBurst, 1, 10_000),
    podFailureGraceMs:
      read.number('podFailureGraceSeconds', RUNNER_DEFAULTS.podFailureGraceMs / 1000, 0, 3600) *
      1000,
    unschedulableGraceMs:
      read.number(
        'unschedulableGraceSeconds',
        RUNNER_DEFAULTS.unschedulableGraceMs / 1000,
        0,
        86_400,
      ) * 1000,
    runtimes: runtimeTargets(read, input),
  };
  if (config.runtimes.length === 0) {
    read.problems.push(
      'No runtime to serve: give --in-cluster-runtime, --config-dir, --kube-runtime with --kubeconfig, or --local-runtime',
    );
  }
  const names = config.runtimes.map((r) => r.name);
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i)))
    read.problems.push(`Runtime "${name}" is configured twice`);
  if (read.problems.length > 0) {
    throw new InputError(
      'SLUICE_AGENT_CONFIG_INVALID',
      `The agent's configuration has ${read.problems.length} problem(s):\n  - ${read.problems.join('\n  - ')}`,
      { details: { problems: read.problems }, hint: 'See `sluice agent --help`' },
    );
  }
  return config;
}

function runtimeTargets(read: Reader, input: RunnerConfigInput): RuntimeTarget[] {
  const targets: RuntimeTarget[] = [];
  const namespace = read.text('namespace');
  const dindHostAlias = read.flag('dindHostAlias') || undefined;
  const inCluster = read.text('inClusterRuntime');
  if (inCluster !== undefined)
    targets.push({
      kind: 'kubernetes',
      name: inCluster,
      source: { type: 'in-cluster' },
      namespace,
      ...(dindHostAlias ? { dindHostAlias } : {}),
    });
  const kubeRuntime = read.text('kubeRuntime');
  if (kubeRuntime !== undefined) {
    const path = read.text('kubeconfig');
    if (path === undefined)
      read.problems.push(`${describeKey('kubeRuntime')} needs ${describeKey('kubeconfig')}`);
    else {
      const source = { type: 'kubeconfig' as const, path, context: read.text('kubeContext') };
      targets.push({
        kind: 'kubernetes',
        name: kubeRuntime,
        source,
        namespace,
        ...(dindHostAlias ? { dindHostAlias } : {}),
      });
    }
  }
  const dir = read.text('configDir');
  if (dir !== undefined)
    targets.push(
      ...runtimeFiles(dir, read.problems).map((t) => (dindHostAlias ? { ...t, dindHostAlias } : t)),
    );
  const local = read.text('localRuntime');
  if (local !== undefined) {
    const stateDir = read.text('stateDir');
    if (stateDir === undefined)
      read.problems.push(`${describeKey('localRuntime')} needs ${describeKey('stateDir')}`);
    if (input.engineCommand === undefined || input.engineCommand.length === 0)
      read.problems.push(`${describeKey('localRuntime')} needs the command that starts an engine`);
    targets.push({
      kind: 'local',
      name: local,
      dockerHost: read.text('dockerHost'),
      engineCommand: input.engineCommand ?? [],
      stateDir: stateDir ?? '',
      stopGraceSeconds: read.number('stopGraceSeconds', RUNNER_DEFAULTS.stopGraceSeconds, 0, 3600),
    });
  }
  return targets;
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
  if (name === undefined || host === undefined || token === undefined) return undefined;
  return {
    kind: 'kubernetes',
    name,
    source: { type: 'token', host, token, caPem, file },
    namespace,
  };
}
