/**
 * What `sluice runner init|delete|upgrade` act on, from every source at once: flags win over
 * `--set-value KEY=VALUE`, which wins over the `--values FILE` (the chart's values format, the
 * same file `--generate-helm-values-file` writes), which wins over the install's record (the
 * settings it was made with, install-record.ts), which wins over the wizard's answers, which
 * win over the defaults (and, for a first install only, the shell's proxy variables). The result is the chart's values plus what only the wizard knows (the
 * kube context, the registrations with the control plane, the builds' scheduling); every
 * problem is reported at once, naming the flag or the values field. `--values` and `--set-value`
 * are checked against the chart's values schema as Helm would (`checkInstallValues`): a
 * misspelt key is refused with the one it meant, never ignored.
 * @module
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import { checkInstallValues, deepMerge, isLabelKey, isLabelValue } from '@sluice/runtime-spec';
import type { RuntimeInstallValues } from '@sluice/runtime-spec';
import { yaml } from '../lazy-yaml.js';
import { volumeBackendFlags } from './volume-backend.js';
import { readYamlDocument } from '../yaml-file.js';

/** The flags of `runner init` (and the ones delete/upgrade share), as commander gives them. */
export interface RunnerFlags {
  kubeconfig?: string;
  kubeContext?: string;
  namespace?: string;
  buildNamespace?: string;
  release?: string;
  runtime?: string;
  agentName?: string;
  controlPlaneUrl?: string;
  storageClass?: string;
  buildNodeSelector?: string;
  buildToleration?: string[];
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
  imageRepository?: string;
  imageTag?: string;
  /** The builds' Docker daemon image (default: the agent's registry and tag, `…/dind`). */
  dindImage?: string;
  /** Registries the builds' Docker daemons pull Docker Hub images through (repeatable). */
  registryMirror?: string[];
  /** Registries the builds' Docker daemons may reach over plain HTTP (repeatable). */
  insecureRegistry?: string[];
  setDefault?: boolean;
  testPipeline?: boolean;
  /** volumes.enabled: the volume provisioner and its StorageClass. */
  warmVolumes?: boolean;
  /** volumes.volumeBackend: `local` (the nodes' disks) or `delegate` (a cluster StorageClass). */
  volumeBackend?: string;
  /** volumes.delegateStorageClass: the cluster's StorageClass new volumes come from. */
  storageClassDelegate?: string;
  /** runtime.warmPool: this many pods kept running ahead of builds (docs/warm-pool.md). */
  warmPool?: string;
  values?: string;
  setValue?: string[];
  runtimeSpec?: string;
}

export interface Toleration {
  key: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect?: string;
}

/** Everything an install is: the chart's values and the wizard's own settings. */
export interface RunnerSettings {
  kubeconfig: string;
  /** The kubeconfig context; its current context when undefined. */
  kubeContext: string | undefined;
  release: string;
  /** Where the agent runs. */
  namespace: string;
  agentName: string;
  /** The runtime's registration settings (not in the chart). */
  storageClass: string | undefined;
  buildNodeSelector: Record<string, string>;
  buildTolerations: Toleration[];
  setDefault: boolean;
  testPipeline: boolean;
  /** The builds' Docker daemon: its image and the registries it pulls through. */
  dind: { image?: string; registryMirrors: string[]; insecureRegistries: string[] };
  /** A partial runtime spec merged over the one init writes (`--runtime-spec FILE`). */
  runtimeSpecPatch: Record<string, unknown>;
  /** The chart's values, token aside (it is made at install). */
  values: RuntimeInstallValues & { runtime: { name: string; namespace: string } };
}

/** What an install's record holds (install-record.ts): what a rerun starts from. */
export interface InstallRecord {
  values: Record<string, unknown>;
  agentName: string;
  storageClass?: string;
  buildNodeSelector: Record<string, string>;
  buildTolerations: Toleration[];
  dind: RunnerSettings['dind'];
  runtimeSpecPatch: Record<string, unknown>;
}

/** The answers the wizard may ask for; the rest come from flags or files only. */
export interface WizardAnswers {
  kubeContext?: string;
  namespace?: string;
  runtime?: string;
  controlPlaneUrl?: string;
  storageClass?: string;
  buildNodeSelector?: string;
  buildTolerations?: string;
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
  setDefault?: boolean;
  testPipeline?: boolean;
  imageRepository?: string;
  imageTag?: string;
  warmVolumes?: boolean;
}

export const RUNNER_DEFAULTS = {
  namespace: 'sluice',
  release: 'sluice',
} as const;

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Kubernetes' own namespaces: a runner there shares the cluster's RBAC and quotas. */
const SYSTEM_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'];
/** An image reference as Docker takes one: [registry[:port]/]path[:tag][@digest]. */
const IMAGE =
  /^[a-z0-9]+([._-][a-z0-9]+)*(:\d+)?(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;
/** A registry as dockerd's insecure-registries takes it: host[:port], or a CIDR. */
const REGISTRY_HOST = /^([a-zA-Z0-9.-]+(:\d+)?|\d+\.\d+\.\d+\.\d+\/\d+)$/;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function defaultKubeconfig(env: NodeJS.ProcessEnv): string {
  const first = env['KUBECONFIG']?.split(':').find((p) => p !== '');
  return first ?? join(homedir(), '.kube', 'config');
}

/** `a` of `a.b.c` in values, created on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] ?? ''] = value;
}

function readYamlMap(path: string, flag: string, problems: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`${flag} ${path}: ${(err as Error).message}`);
    return {};
  }
  const read = readYamlDocument(text, path);
  if (!read.ok) {
    problems.push(`${flag} ${read.problem}`);
    return {};
  }
  const value = read.value;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${flag} ${path}: must be a YAML mapping`);
    return {};
  }
  return value as Record<string, unknown>;
}

/** Whether the URL's host is `localhost`, 127.0.0.0/8 or ::1: inside a pod, the pod itself. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

/** `k=v,k2=v2` as a map; each key and value checked as Kubernetes labels are. */
export function parseNodeSelector(text: string, flag: string, problems: string[]) {
  const selector: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const [key, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    if (eq < 0 || !isLabelKey(key) || !isLabelValue(value))
      problems.push(`${flag}: "${pair}" is not KEY=VALUE with a label key and value`);
    else selector[key] = value;
  }
  return selector;
}

/** `key=value:Effect`, `key:Effect` (Exists) or `key` — kubectl taint's own notation. */
export function parseToleration(text: string, flag: string, problems: string[]) {
  const match = /^([^=:]+)(?:=([^:]*))?(?::([A-Za-z]+))?$/.exec(text.trim());
  const [, key = '', value, effect] = match ?? [];
  if (match === null || !isLabelKey(key) || (effect !== undefined && !EFFECTS.includes(effect))) {
    problems.push(
      `${flag}: "${text}" is not KEY[=VALUE][:EFFECT] with EFFECT one of ${EFFECTS.join(', ')}`,
    );
    return undefined;
  }
  const toleration: Toleration =
    value === undefined ? { key, operator: 'Exists' } : { key, operator: 'Equal', value };
  if (effect !== undefined) toleration.effect = effect;
  return toleration;
}

/** A toleration as `--build-toleration` takes it: KEY[=VALUE][:EFFECT]. */
export function tolerationText(t: Toleration): string {
  return `${t.key}${t.value === undefined ? '' : `=${t.value}`}${t.effect === undefined ? '' : `:${t.effect}`}`;
}

/** A node selector as `--build-node-selector` takes it: KEY=VALUE,... */
export function nodeSelectorText(selector: Record<string, string>): string {
  return Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function parseScalar(text: string): unknown {
  try {
    return yaml().parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A name that is lowercase letters, digits and `-`, as agent names must be. */
export function nameFrom(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63)
      .replace(/-+$/, '') || 'cluster'
  );
}

/**
 * The settings from flags, files, answers and defaults.
 * @param defaults.contextName the kubeconfig context init talks to (for the default runtime name).
 * @param defaults.stored the install's record, when it has one: what a flag left out keeps.
 * @throws InputError `SLUICE_RUNNER_SETTINGS_INVALID` listing every problem.
 */
export function resolveRunnerSettings(
  flags: RunnerFlags,
  answers: WizardAnswers,
  defaults: {
    contextName: string;
    controlPlaneUrl?: string;
    env: NodeJS.ProcessEnv;
    stored?: InstallRecord;
  },
): RunnerSettings {
  const problems: string[] = [];
  const { stored } = defaults;
  const fromFile =
    flags.values === undefined ? {} : readYamlMap(flags.values, '--values', problems);
  const setValues: Record<string, unknown> = {};
  for (const pair of flags.setValue ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) problems.push(`--set-value: "${pair}" is not KEY=VALUE (e.g. agent.replicas=2)`);
    else setPath(setValues, pair.slice(0, eq), parseScalar(pair.slice(eq + 1)));
  }
  // Checked as Helm checks the chart's values (values.schema.json), over the chart's defaults.
  for (const [from, given] of [
    [`--values ${flags.values ?? ''}`, fromFile],
    ['--set-value', setValues],
  ] as const)
    for (const issue of checkInstallValues(given, { partial: true }))
      problems.push(`${from}: ${issue.path}: ${issue.message}`);
  // What this run was given, over what the install recorded.
  const given = deepMerge(structuredClone(fromFile), structuredClone(setValues));
  const values = deepMerge(structuredClone(stored?.values ?? {}), structuredClone(given));
  const at = (root: unknown, path: string): unknown =>
    path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], root);
  const get = (path: string): unknown => at(values, path);
  // A setting's source, first to last: its flag, the values given now, the wizard's answer (whose
  // default was the recorded setting), the install's record.
  const text = (flag: string | undefined, answer: string | undefined, path?: string) => {
    const valueAt = (root: unknown) => {
      const value = path === undefined ? undefined : at(root, path);
      return typeof value === 'string' ? value : undefined;
    };
    for (const candidate of [flag, valueAt(given), answer, valueAt(stored?.values)])
      if (candidate !== undefined && candidate !== '') return candidate;
    return undefined;
  };
  const namespace = text(flags.namespace, answers.namespace) ?? RUNNER_DEFAULTS.namespace;
  const buildNamespace = text(flags.buildNamespace, undefined, 'runtime.namespace') ?? namespace;
  const contextName = text(flags.kubeContext, answers.kubeContext) ?? defaults.contextName;
  const runtime =
    text(flags.runtime, answers.runtime, 'runtime.name') ??
    `${nameFrom(contextName)}/${buildNamespace}`;
  const controlPlaneUrl =
    text(flags.controlPlaneUrl, answers.controlPlaneUrl, 'controlPlane.url') ??
    defaults.controlPlaneUrl;
  for (const [flag, ns] of [
    ['--namespace', namespace],
    ['--build-namespace (runtime.namespace)', buildNamespace],
  ] as const)
    if (!NAMESPACE.test(ns) || ns.length > 63)
      problems.push(
        `${flag}: ${JSON.stringify(ns)} is not a namespace name (lowercase letters, digits, -)`,
      );
    else if (SYSTEM_NAMESPACES.includes(ns))
      problems.push(
        `${flag}: ${ns} is a namespace of Kubernetes itself; pass a namespace of the runner's own (the default is sluice)`,
      );
  if (controlPlaneUrl === undefined)
    problems.push(
      '--control-plane-url (controlPlane.url) is not set: the URL pods in the cluster reach the Sluice server at',
    );
  else if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(controlPlaneUrl))
    problems.push(`--control-plane-url: ${JSON.stringify(controlPlaneUrl)} is not an http(s) URL`);
  else if (isLoopbackUrl(controlPlaneUrl))
    problems.push(
      `--control-plane-url: ${controlPlaneUrl} is this machine's loopback address, which the agent's pod cannot reach: pass the address pods in the cluster reach the Sluice server at (a Service, an ingress, or this machine's address on the nodes' network)`,
    );
  if (!/^[A-Za-z0-9][\w./:@-]*$/.test(runtime) || runtime.length > 200)
    problems.push(
      `--runtime: ${JSON.stringify(runtime)} is not a runtime name (letters, digits, . _ - / : @)`,
    );
  // An install with a record keeps its proxies (none included): this shell's are not its own.
  const env = stored === undefined ? defaults.env : {};
  const proxy = {
    httpProxy:
      text(flags.httpProxy, answers.httpProxy, 'proxy.httpProxy') ??
      env['HTTP_PROXY'] ??
      env['http_proxy'] ??
      '',
    httpsProxy:
      text(flags.httpsProxy, answers.httpsProxy, 'proxy.httpsProxy') ??
      env['HTTPS_PROXY'] ??
      env['https_proxy'] ??
      '',
    noProxy:
      text(flags.noProxy, answers.noProxy, 'proxy.noProxy') ??
      env['NO_PROXY'] ??
      env['no_proxy'] ??
      '',
  };
  // An empty flag or answer clears a recorded selector (the wizard's default is the recorded one).
  const selectorText = flags.buildNodeSelector ?? answers.buildNodeSelector;
  const buildNodeSelector =
    selectorText === undefined
      ? (stored?.buildNodeSelector ?? {})
      : parseNodeSelector(selectorText, '--build-node-selector', problems);
  const tolerationTexts = flags.buildToleration?.length
    ? flags.buildToleration
    : answers.buildTolerations?.split(/\s+/).filter(Boolean);
  const buildTolerations =
    tolerationTexts === undefined
      ? (stored?.buildTolerations ?? [])
      : tolerationTexts
          .map((t) => parseToleration(t, '--build-toleration', problems))
          .filter((t): t is Toleration => t !== undefined);
  const release = flags.release ?? RUNNER_DEFAULTS.release;
  if (!NAMESPACE.test(release) || release.length > 53)
    problems.push(
      `--release: ${JSON.stringify(release)} must be a lowercase name of at most 53 characters`,
    );
  const agent = (get('agent') ?? {}) as RuntimeInstallValues['agent'];
  const imageRepository = flags.imageRepository ?? answers.imageRepository;
  const imageTag = flags.imageTag ?? answers.imageTag;
  if (imageRepository || imageTag)
    agent.image = {
      ...agent.image,
      ...(imageRepository ? { repository: imageRepository } : {}),
      ...(imageTag ? { tag: imageTag } : {}),
    };
  const runtimeValues = (get('runtime') ?? {}) as RuntimeInstallValues['runtime'];
  const warmPool = warmPoolFlag(flags.warmPool, problems);
  const dindImage = flags.dindImage ?? stored?.dind.image;
  const dind = {
    ...(dindImage === undefined ? {} : { image: dindImage }),
    registryMirrors: flags.registryMirror ?? stored?.dind.registryMirrors ?? [],
    insecureRegistries: flags.insecureRegistry ?? stored?.dind.insecureRegistries ?? [],
  };
  if (dind.image !== undefined && !IMAGE.test(dind.image))
    problems.push(`--dind-image: ${JSON.stringify(dind.image)} is not an image reference`);
  for (const mirror of dind.registryMirrors)
    if (!/^https?:\/\/[^\s/]+\/?$/.test(mirror))
      problems.push(
        `--registry-mirror: ${JSON.stringify(mirror)} is not a registry URL (http://HOST:PORT or https://HOST)`,
      );
  for (const host of dind.insecureRegistries)
    if (!REGISTRY_HOST.test(host))
      problems.push(
        `--insecure-registry: ${JSON.stringify(host)} is not HOST[:PORT] or a CIDR range`,
      );
  // Warm volumes: the flag, else the values given now, else the answer; a "no" turns off what
  // the record had.
  const backend = volumeBackendFlags(flags, get('volumes.delegateStorageClass'), problems);
  const warm =
    flags.warmVolumes ??
    (backend !== undefined ? true : undefined) ??
    (at(given, 'volumes.enabled') === undefined ? answers.warmVolumes : undefined);
  const switchVolumes = warm === true || (warm === false && get('volumes.enabled') === true);
  const settings: RunnerSettings = {
    kubeconfig: flags.kubeconfig ?? defaultKubeconfig(env),
    kubeContext: text(flags.kubeContext, answers.kubeContext),
    release,
    namespace,
    agentName: flags.agentName ?? stored?.agentName ?? nameFrom(`${contextName}-${buildNamespace}`),
    // An empty answer is "the cluster's default" (the wizard's default was the recorded class).
    storageClass:
      text(flags.storageClass, undefined) ??
      (answers.storageClass === undefined
        ? stored?.storageClass
        : answers.storageClass || undefined),
    buildNodeSelector,
    buildTolerations,
    setDefault: flags.setDefault ?? answers.setDefault ?? false,
    testPipeline: flags.testPipeline ?? answers.testPipeline ?? true,
    dind,
    runtimeSpecPatch:
      flags.runtimeSpec === undefined
        ? (stored?.runtimeSpecPatch ?? {})
        : readYamlMap(flags.runtimeSpec, '--runtime-spec', problems),
    values: {
      ...(values as Partial<RuntimeInstallValues>),
      controlPlane: { url: controlPlaneUrl ?? '' },
      runtime: {
        ...runtimeValues,
        name: runtime,
        namespace: buildNamespace,
        createNamespace: runtimeValues.createNamespace ?? buildNamespace !== namespace,
        ...(warmPool === undefined ? {} : { warmPool }),
      },
      agent: { ...agent, token: '' },
      proxy,
      ...(switchVolumes
        ? {
            volumes: {
              ...(values as Partial<RuntimeInstallValues>).volumes,
              enabled: warm,
              ...backend,
            },
          }
        : {}),
    },
  };
  if (problems.length > 0)
    throw new InputError(
      'SLUICE_RUNNER_SETTINGS_INVALID',
      `The runner's settings have ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`,
      { hint: 'See `sluice runner init --help`', details: { problems } },
    );
  return settings;
}

/** `--warm-pool N`: N pods kept ready, busy or idle (`runtime.warmPool` sizes both N). */
function warmPoolFlag(
  flag: string | undefined,
  problems: string[],
): { minSize: number; maxSize: number } | undefined {
  if (flag === undefined) return undefined;
  const size = Number(flag);
  if (!/^\d+$/.test(flag) || size > 100) {
    problems.push(`--warm-pool: ${JSON.stringify(flag)} is not a number of pods from 0 to 100`);
    return undefined;
  }
  return { minSize: size, maxSize: size };
}
