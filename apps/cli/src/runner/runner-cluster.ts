/**
 * The cluster a runner is installed in, as `sluice runner init|delete|upgrade` reach it: the
 * kubeconfig context, the client, and the preflight checks init runs before it acts (the API
 * server answers, its version is in the supported range, a node is Ready and one has the build
 * node selector's labels, the caller may do what init does, the builds' volumes have a
 * StorageClass and it exists, and how it binds). Each check is one line: passed, a warning, or a
 * failure that says what to do.
 * @module
 */
import { AGENT_PERMISSIONS, KubeClient, KubeResources, listKubeContexts } from '@sluice/kube';
import type { KubePermission, KubeResource } from '@sluice/kube';
import { volumesStorageClass } from '@sluice/runtime-spec';
import type { RunnerSettings } from './runner-settings.js';
import { processEnvironment } from '../config.js';

/** Kubernetes minor versions Sluice's objects are made for (DESIGN.md, "In the cluster"). */
export const SUPPORTED_KUBERNETES = { min: 20, max: 36 } as const;

export interface RunnerCluster {
  contextName: string;
  server: string;
  client: KubeClient;
  resources: KubeResources;
}

export function connectCluster(kubeconfig: string, context: string | undefined): RunnerCluster {
  const contextName = context ?? listKubeContexts(kubeconfig).current ?? '';
  const client = KubeClient.create({
    source: { type: 'kubeconfig', path: kubeconfig, ...(context ? { context } : {}) },
    env: processEnvironment(),
  });
  return { contextName, server: client.server, client, resources: new KubeResources(client) };
}

export interface Check {
  status: 'ok' | 'warn' | 'fail';
  text: string;
  /** What to do about a failure or a warning. */
  hint?: string;
}

const INSTALL_VERBS = ['get', 'create', 'patch', 'delete'];
const APPS = 'apps';
const RBAC = 'rbac.authorization.k8s.io';

/** What init does in the agent's namespace and in the runtime's. */
export function installPermissions(settings: RunnerSettings): Map<string, KubePermission[]> {
  const perms = new Map<string, KubePermission[]>();
  const add = (namespace: string, list: KubePermission[]) =>
    perms.set(namespace, [...(perms.get(namespace) ?? []), ...list]);
  const each = (resource: string, group?: string): KubePermission[] =>
    INSTALL_VERBS.map((verb) => ({ verb, resource, ...(group ? { group } : {}) }));
  add(settings.namespace, [
    ...each('deployments', APPS),
    ...each('serviceaccounts'),
    ...each('secrets'),
    // The install's record (install-record.ts).
    ...each('configmaps'),
  ]);
  const runtimeNamespace = settings.values.runtime.namespace;
  add(runtimeNamespace, [
    ...each('roles', RBAC),
    ...each('rolebindings', RBAC),
    ...each('serviceaccounts'),
    // RBAC lets a Role grant only what its maker holds.
    ...AGENT_PERMISSIONS,
  ]);
  for (const [ns, list] of perms)
    perms.set(
      ns,
      list.filter(
        (p, i) =>
          list.findIndex(
            (q) => q.verb === p.verb && q.resource === p.resource && q.group === p.group,
          ) === i,
      ),
    );
  return perms;
}

function versionCheck(gitVersion: string, minor: string): Check {
  const n = Number.parseInt(minor, 10);
  const { min, max } = SUPPORTED_KUBERNETES;
  if (Number.isFinite(n) && n >= min && n <= max)
    return { status: 'ok', text: `Kubernetes ${gitVersion} is supported (1.${min} to 1.${max})` };
  return {
    status: 'fail',
    text: `Kubernetes ${gitVersion} is outside the supported range 1.${min} to 1.${max}`,
    hint: 'Install on a supported cluster: the objects use only API versions served across that range',
  };
}

/** Whether the node has every label of the selector. */
function matches(node: KubeResource, selector: Record<string, string>): boolean {
  const labels = node.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

async function nodesCheck(
  resources: KubeResources,
  selector: Record<string, string>,
): Promise<Check[]> {
  let nodes: KubeResource[];
  try {
    nodes = await resources.list({ kind: 'Node' });
  } catch (err) {
    return [
      {
        status: 'warn',
        text: `Could not list nodes: ${(err as Error).message}`,
        hint: 'init goes on; builds need a Ready node that can run them',
      },
    ];
  }
  const ready = nodes.filter((node) =>
    (
      (node['status'] as { conditions?: { type: string; status: string }[] })?.conditions ?? []
    ).some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  if (ready.length === 0)
    return [
      {
        status: 'fail',
        text: `No Ready node (${nodes.length} node(s))`,
        hint: 'kubectl get nodes; kubectl describe node NAME shows why a node is not Ready',
      },
    ];
  const checks: Check[] = [
    { status: 'ok', text: `${ready.length} of ${nodes.length} node(s) Ready` },
  ];
  if (Object.keys(selector).length === 0) return checks;
  const text = Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const fit = ready.filter((node) => matches(node, selector));
  checks.push(
    fit.length > 0
      ? { status: 'ok', text: `${fit.length} Ready node(s) match the build node selector ${text}` }
      : {
          status: 'fail',
          text: `No Ready node has the labels of the build node selector ${text}: every build would stay Pending`,
          hint: `kubectl get nodes --show-labels; label the build nodes (kubectl label node NAME ${text}) or pass another --build-node-selector`,
        },
  );
  return checks;
}

function bindingMode(storageClass: KubeResource): string {
  const mode = storageClass['volumeBindingMode'];
  return typeof mode === 'string' ? mode : 'Immediate';
}

/** The StorageClass the builds' volume claims name: --storage-class, else --runtime-spec's. */
function buildStorageClass(settings: RunnerSettings): string | undefined {
  const patch = settings.runtimeSpecPatch as {
    dockerDaemonScheduler?: { pvcs?: { dind?: { storageClassName?: unknown } } };
  };
  const patched = patch.dockerDaemonScheduler?.pvcs?.dind?.storageClassName;
  return settings.storageClass ?? (typeof patched === 'string' ? patched : undefined);
}

async function storageCheck(resources: KubeResources, settings: RunnerSettings): Promise<Check> {
  const name = buildStorageClass(settings);
  const { volumes } = settings.values;
  if (name === undefined && volumes?.enabled === true)
    return {
      status: 'ok',
      text: `Builds use the volume provisioner's StorageClass ${volumesStorageClass(volumes, settings.values.runtime.namespace)} (init makes it)`,
    };
  if (name === undefined) {
    const classes = await resources.list({ kind: 'StorageClass' }).catch(() => []);
    const fallback = classes.find(
      (c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
    );
    return fallback === undefined
      ? {
          status: 'fail',
          text: "No StorageClass for the builds' volumes: no --storage-class, no --warm-volumes, and the cluster has no default StorageClass",
          hint: "Every build's volume claim would stay Pending: pass --storage-class NAME (kubectl get storageclass lists them), or --warm-volumes for Sluice's own volume provisioner",
        }
      : {
          status: 'ok',
          text: `Builds use the default StorageClass ${fallback.metadata.name} (${bindingMode(fallback)})`,
        };
  }
  const found = await resources.read({ kind: 'StorageClass', name });
  if (found === undefined)
    return {
      status: 'fail',
      text: `StorageClass ${name} does not exist`,
      hint: 'kubectl get storageclass lists them; pass one with --storage-class',
    };
  const mode = bindingMode(found);
  return {
    status: 'ok',
    text: `StorageClass ${name} exists (provisioner ${typeof found['provisioner'] === 'string' ? found['provisioner'] : '?'}, binding ${mode})`,
  };
}

/** The checks, in order; a failure of the first (the API server) skips the rest. */
export async function preflight(
  cluster: RunnerCluster,
  settings: RunnerSettings,
): Promise<Check[]> {
  const checks: Check[] = [];
  let version;
  try {
    version = await cluster.client.serverVersion();
  } catch (err) {
    return [
      {
        status: 'fail',
        text: `The API server ${cluster.server} (context ${cluster.contextName}) does not answer: ${(err as Error).message}`,
        hint: 'Check the kube context (--kube-context) and that the cluster is up: kubectl version',
      },
    ];
  }
  checks.push({ status: 'ok', text: `API server ${cluster.server} answers` });
  checks.push(versionCheck(version.gitVersion, version.minor));
  checks.push(...(await nodesCheck(cluster.resources, settings.buildNodeSelector)));
  for (const namespace of new Set([settings.namespace, settings.values.runtime.namespace])) {
    if ((await cluster.resources.read({ kind: 'Namespace', name: namespace })) !== undefined)
      continue;
    const missing = await cluster.client.missingPermissions('', [
      { verb: 'create', resource: 'namespaces' },
    ]);
    checks.push(
      missing.length === 0
        ? { status: 'ok', text: `Namespace ${namespace} is missing; init will create it` }
        : {
            status: 'fail',
            text: `Namespace ${namespace} is missing and creating namespaces is not allowed`,
            hint: `Ask a cluster admin: kubectl create namespace ${namespace}`,
          },
    );
  }
  for (const [namespace, needs] of installPermissions(settings)) {
    const missing = await cluster.client.missingPermissions(namespace, needs);
    const names = missing.map((p) => `${p.verb} ${p.resource}${p.group ? `.${p.group}` : ''}`);
    checks.push(
      missing.length === 0
        ? { status: 'ok', text: `May install in namespace ${namespace}` }
        : {
            status: 'fail',
            text: `Not allowed in namespace ${namespace}: ${names.join(', ')}`,
            hint: 'Ask a cluster admin for these rights, or run init with an admin kube context',
          },
    );
  }
  checks.push(await storageCheck(cluster.resources, settings));
  return checks;
}
