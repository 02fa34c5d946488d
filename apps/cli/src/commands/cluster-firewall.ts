/**
 * `sluice create cluster NAME --runtime R --namespace N` and its `delete`: a cluster behind the
 * firewall, the runtime's own. Through the kube context (as `runner init`), it makes a
 * ServiceAccount in the runtime's namespace, binds it in each target namespace to the role
 * chosen (the built-in ClusterRoles edit, admin or view, or a Role of the rules in a file), and
 * grants the runtime's agent `create` on that one service account's tokens, which is how the
 * runtime is told: for each build that may use the cluster the agent mints a token bound to the
 * build (cluster-credentials.ts in the runner). Then the control plane records the cluster: its
 * name, runtime, namespaces, service account and the server's address, never a credential.
 *
 * As `runner init`: a plan checked by the API server's server-side dry run, `--dry-run DIR`
 * writes the manifests and changes nothing, and each step finds its work done before doing it,
 * so a failed run is finished by running the same command again. Every object carries
 * `sluice.io/cluster=NAME` and `app.kubernetes.io/managed-by=sluice`; `delete cluster` removes
 * the objects with both labels in the namespaces the cluster records, and nothing else.
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import type { KubeResource, ResourceKind } from '@sluice/kube';
import type { Cluster, SluiceClient } from '@sluice/protocol';
import { labelValue } from '@sluice/runtime-spec';
import { yaml } from '../lazy-yaml.js';
import type { Terminal } from '../ui/terminal.js';
import { connectCluster } from '../runner/runner-cluster.js';
import type { RunnerCluster } from '../runner/runner-cluster.js';
import { runSteps } from '../runner/runner-progress.js';
import { defaultKubeconfig } from '../runner/runner-settings.js';
import { serverClient } from './server-resources.js';
import type { ServerOptions } from './server-resources.js';
import { processEnvironment } from '../config.js';

export const CLUSTER_ROLES = ['edit', 'admin', 'view'] as const;
const RBAC = 'rbac.authorization.k8s.io';
const RBAC_V1 = `${RBAC}/v1`;
/** What marks every object of a cluster integration: `delete cluster` selects by both. */
export const CLUSTER_LABEL = 'sluice.io/cluster';
const MANAGED_BY = 'app.kubernetes.io/managed-by';
/** The agent's RoleBinding, as `runner init` and the chart label it. */
const AGENT_SELECTOR = 'app.kubernetes.io/name=sluice-agent';
/** The kinds made, in the order `delete` removes them. */
const KINDS: readonly ResourceKind[] = ['RoleBinding', 'Role', 'ServiceAccount'];

export interface FirewallClusterOptions extends ServerOptions {
  runtime: string;
  /** Comma-separated target namespaces; the first is the steps' default. */
  namespace?: string;
  serviceAccount?: string;
  role?: string;
  roleFile?: string;
  kubeconfigFile?: string;
  kubeContext?: string;
  dryRun?: string;
  projects?: string;
}

export interface FirewallClusterSettings {
  name: string;
  runtime: string;
  /** Where builds run: the service account and the agent's grant live here. */
  runtimeNamespace: string;
  namespaces: string[];
  serviceAccount: string;
  role: (typeof CLUSTER_ROLES)[number] | { rules: unknown[]; file: string };
}

export async function createFirewallCluster(
  term: Terminal,
  name: string,
  options: FirewallClusterOptions,
): Promise<number> {
  const client = serverClient(options);
  const settings = await settingsOf(client, name, options);
  const cluster = connect(options);
  term.err(
    term.paint(
      'bold',
      `Cluster ${name} behind runtime ${settings.runtime}'s firewall: context ${cluster.contextName}, service account ${settings.runtimeNamespace}/${settings.serviceAccount}, role ${roleName(settings)} in ${settings.namespaces.join(', ')}`,
    ),
  );
  await checkNamespaces(cluster, settings);
  const agents = await agentServiceAccounts(cluster, settings.runtimeNamespace);
  const objects = clusterObjects(settings, agents);
  term.err(`Plan (checked by the API server's dry run):`);
  for (const object of objects) {
    const { result, changes } = await cluster.resources.planApply(object);
    const action = result === 'created' ? 'create' : changes.length > 0 ? 'update' : 'unchanged';
    term.err(`  ${action.padEnd(9)}  ${describe(object)}`);
  }
  const existing = await client.call('getCluster', { params: { name } }).catch(() => undefined);
  term.err(`  ${(existing === undefined ? 'register' : 'keep').padEnd(9)}  cluster ${name}`);
  if (options.dryRun !== undefined) {
    writeManifests(options.dryRun, objects);
    term.err(
      `Dry run: ${objects.length} manifests written to ${options.dryRun}; nothing was changed.`,
    );
    return 0;
  }
  return runSteps(
    term,
    [
      ...objects.map((object) => ({
        title: `${describe(object)}`,
        run: async () => `${await cluster.resources.apply(object)}`,
      })),
      {
        title: `Register cluster ${name}`,
        run: () => register(client, settings, existing, cluster.server, options.projects),
      },
    ],
    `Cluster ${name} ready: builds on runtime ${settings.runtime} reach it as kube context "${name}" (kubectl --context ${name}, deploy cluster: ${name}).`,
  );
}

/** Removes the objects `create` made (both labels, the recorded namespaces), then the record. */
export async function deleteFirewallCluster(
  term: Terminal,
  found: Cluster,
  options: ServerOptions & { kubeconfigFile?: string; kubeContext?: string },
): Promise<void> {
  const client = serverClient(options);
  const runtimeNamespace = await runtimeNamespaceOf(client, found.runtime ?? '');
  const cluster = connect(options);
  const labelSelector = `${CLUSTER_LABEL}=${labelValue(found.name)},${MANAGED_BY}=sluice`;
  for (const namespace of new Set([runtimeNamespace, ...found.namespaces]))
    for (const kind of KINDS)
      for (const object of await cluster.resources.list({ kind, namespace, labelSelector })) {
        const ref = { kind, namespace, name: object.metadata.name };
        await cluster.resources.delete(ref);
        term.err(`${kind} ${namespace}/${object.metadata.name} deleted`);
      }
}

function connect(options: { kubeconfigFile?: string; kubeContext?: string }): RunnerCluster {
  return connectCluster(
    options.kubeconfigFile ?? defaultKubeconfig(processEnvironment()),
    options.kubeContext,
  );
}

async function settingsOf(
  client: SluiceClient,
  name: string,
  options: FirewallClusterOptions,
): Promise<FirewallClusterSettings> {
  const runtimeNamespace = await runtimeNamespaceOf(client, options.runtime);
  const namespaces = (options.namespace ?? runtimeNamespace)
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return {
    name,
    runtime: options.runtime,
    runtimeNamespace,
    namespaces,
    serviceAccount: options.serviceAccount ?? `sluice-cluster-${name}`,
    role: roleOf(options),
  };
}

function roleOf(options: FirewallClusterOptions): FirewallClusterSettings['role'] {
  const role = options.role ?? (options.roleFile === undefined ? 'edit' : 'custom');
  if (role === 'custom') {
    if (options.roleFile === undefined)
      throw badCluster('--role custom needs --role-file FILE: a Role (or its rules) in YAML');
    return { rules: rulesIn(options.roleFile), file: options.roleFile };
  }
  const builtIn = CLUSTER_ROLES.find((r) => r === role);
  if (builtIn === undefined)
    throw badCluster(`--role must be ${CLUSTER_ROLES.join(', ')} or custom, got "${role}"`);
  return builtIn;
}

/** A Role or ClusterRole document's `rules`, or a bare list of rules. */
function rulesIn(file: string): unknown[] {
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw badCluster(`Cannot read --role-file ${file}: ${(err as Error).message}`);
  }
  const rules = Array.isArray(doc) ? doc : (doc as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules) || rules.length === 0)
    throw badCluster(
      `--role-file ${file} has no rules: give a Role with \`rules:\`, or a list of rules`,
    );
  return rules;
}

async function runtimeNamespaceOf(client: SluiceClient, runtime: string): Promise<string> {
  const env = await client.call('getRuntimeEnvironment', {
    params: { name: runtime },
    query: { extend: 'true' },
  });
  const scheduler = env.spec['runtimeScheduler'] as
    { type?: string; cluster?: { namespace?: string } } | undefined;
  const namespace = scheduler?.cluster?.namespace;
  if (scheduler?.type !== 'KubernetesPod' || namespace === undefined)
    throw badCluster(
      `Runtime ${runtime} does not run builds in Kubernetes, so no cluster is behind its firewall`,
      'Name a runtime made by sluice runner init, or add a reachable cluster with --kubeconfig-file',
    );
  return namespace;
}

async function checkNamespaces(
  cluster: RunnerCluster,
  settings: FirewallClusterSettings,
): Promise<void> {
  for (const namespace of settings.namespaces)
    if ((await cluster.resources.read({ kind: 'Namespace', name: namespace })) === undefined)
      throw badCluster(
        `Namespace ${namespace} does not exist in context ${cluster.contextName}`,
        `Create it first (kubectl create namespace ${namespace}): a cluster integration never makes or removes namespaces`,
      );
}

/** The service accounts the runtime's agent runs as: the subjects of its RoleBinding there. */
async function agentServiceAccounts(
  cluster: RunnerCluster,
  namespace: string,
): Promise<{ name: string; namespace: string }[]> {
  const bindings = await cluster.resources.list({
    kind: 'RoleBinding',
    namespace,
    labelSelector: AGENT_SELECTOR,
  });
  const subjects = bindings.flatMap(
    (b) =>
      (b as { subjects?: { kind: string; name: string; namespace?: string }[] }).subjects ?? [],
  );
  const accounts = subjects
    .filter((s) => s.kind === 'ServiceAccount')
    .map((s) => ({ name: s.name, namespace: s.namespace ?? namespace }));
  if (accounts.length === 0)
    throw badCluster(
      `No runner agent's RoleBinding (${AGENT_SELECTOR}) in namespace ${namespace} of context ${cluster.contextName}`,
      'Install the runtime there with sluice runner init (or the chart), with that kube context',
    );
  return accounts;
}

export function clusterObjects(
  settings: FirewallClusterSettings,
  agents: { name: string; namespace: string }[],
): KubeResource[] {
  const labels = { [CLUSTER_LABEL]: labelValue(settings.name), [MANAGED_BY]: 'sluice' };
  const meta = (name: string, namespace: string) => ({ name, namespace, labels });
  const own = settings.serviceAccount;
  const subject = { kind: 'ServiceAccount', name: own, namespace: settings.runtimeNamespace };
  const objects: KubeResource[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(own, settings.runtimeNamespace) },
  ];
  for (const namespace of settings.namespaces) {
    const custom = typeof settings.role === 'object';
    if (typeof settings.role === 'object')
      objects.push({
        apiVersion: RBAC_V1,
        kind: 'Role',
        metadata: meta(own, namespace),
        rules: settings.role.rules,
      });
    objects.push({
      apiVersion: RBAC_V1,
      kind: 'RoleBinding',
      metadata: meta(own, namespace),
      roleRef: { apiGroup: RBAC, kind: custom ? 'Role' : 'ClusterRole', name: roleName(settings) },
      subjects: [subject],
    });
  }
  // The agent may mint this one service account's tokens, and no other's.
  const mint = `${own}-token`;
  objects.push(
    {
      apiVersion: RBAC_V1,
      kind: 'Role',
      metadata: meta(mint, settings.runtimeNamespace),
      rules: [
        {
          apiGroups: [''],
          resources: ['serviceaccounts/token'],
          verbs: ['create'],
          resourceNames: [own],
        },
      ],
    },
    {
      apiVersion: RBAC_V1,
      kind: 'RoleBinding',
      metadata: meta(mint, settings.runtimeNamespace),
      roleRef: { apiGroup: RBAC, kind: 'Role', name: mint },
      subjects: agents.map((a) => ({ kind: 'ServiceAccount', ...a })),
    },
  );
  return objects;
}

function roleName(settings: FirewallClusterSettings): string {
  return typeof settings.role === 'object' ? settings.serviceAccount : settings.role;
}

async function register(
  client: SluiceClient,
  settings: FirewallClusterSettings,
  existing: Cluster | undefined,
  server: string,
  projects: string | undefined,
): Promise<string> {
  if (existing !== undefined) {
    if (existing.kind === 'behind-firewall' && existing.runtime === settings.runtime)
      return `cluster ${settings.name} is registered already`;
    throw badCluster(
      `Cluster ${settings.name} exists already, ${existing.kind === 'kubeconfig' ? 'from a kubeconfig' : `behind runtime ${existing.runtime ?? '?'}`}`,
      `Pick another name, or delete it first: sluice delete cluster ${settings.name}`,
    );
  }
  await client.call('createCluster', {
    body: {
      name: settings.name,
      runtime: settings.runtime,
      serviceAccount: settings.serviceAccount,
      namespaces: settings.namespaces,
      server,
      projects: projects
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    },
  });
  return `cluster ${settings.name} registered`;
}

function describe(object: KubeResource): string {
  return `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

function writeManifests(dir: string, objects: KubeResource[]): void {
  mkdirSync(dir, { recursive: true });
  objects.forEach((object, i) => {
    const file = `${String(i + 1).padStart(2, '0')}-${object.kind.toLowerCase()}-${object.metadata.namespace ?? ''}-${object.metadata.name}.yaml`;
    writeFileSync(join(dir, file), yaml().stringify(object, { lineWidth: 0 }));
  });
}

function badCluster(message: string, hint = 'sluice create cluster --help'): InputError {
  return new InputError('SLUICE_CLI_BAD_CLUSTER', message, { hint });
}
