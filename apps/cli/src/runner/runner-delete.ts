/**
 * `sluice runner delete`: removes one install `runner init` made (or its chart), exactly: the
 * objects carrying its instance label (`installSelector`: release and namespace), its warm
 * volumes (the PersistentVolumes of its StorageClass) with their directories on the nodes, its
 * agent registration and its runtime environment, and what `runner attach` made for each runtime
 * it gave the agent (found from the agent's `*.runtime.yaml` files: the objects in the other
 * cluster, through the kube context attach used, and the runtime's registration); never another
 * install's or the user's. It lists all of that first and asks (default no) unless `--yes`.
 *
 * The order keeps the volumes' data from outliving what removes it: the Deployments first (no
 * new build, no new claim), then the StorageClass (the volume agents make no more spares), then
 * the volumes, each held by its finalizer until the volume agent of its node has removed its
 * directory (the claims and pods of builds still running on them go first), and only then the
 * volume agent's DaemonSet and the rest; namespaces last, and only those init created.
 * `--keep-volumes` keeps the volumes and their directories for an install with the same
 * StorageClass name, without the finalizer no agent would be left to lift.
 * @module
 */
import { describeError, InputError } from '@sluice/errors';
import { describeResource } from '@sluice/kube';
import type { KubeResource, ResourceRef } from '@sluice/kube';
import {
  deleteThroughDelegatePatch,
  hasVolumeFinalizer,
  isDelegated,
  VOLUME_ANNOTATIONS,
  volumeSummary,
  withoutFinalizer,
} from '@sluice/provisioner';
import type { SluiceClient } from '@sluice/protocol';
import { installSelector, labelValue } from '@sluice/runtime-spec';
import type { Terminal } from '../ui/terminal.js';
import { serverClient } from '../commands/server-resources.js';
import { connectCluster } from './runner-cluster.js';
import type { RunnerCluster } from './runner-cluster.js';
import { runtimesSecretName } from './runner-attach.js';
import { defaultKubeconfig } from './runner-settings.js';
import { yaml } from '../lazy-yaml.js';
import { findInstall } from './runner-manage.js';
import type { Install, RunnerManageOptions } from './runner-manage.js';
import { notFound, TEST_PROJECT, testPipelineName } from './runner-steps.js';
import { processEnvironment } from '../config.js';

export interface RunnerDeleteOptions extends RunnerManageOptions {
  yes?: boolean;
  keepVolumes?: boolean;
}

/** How long the volume agents have to remove the volumes' directories, and namespaces to go. */
const WAIT_MS = 120_000;

const NAMESPACED_KINDS = [
  'DaemonSet',
  'RoleBinding',
  'Role',
  'Secret',
  'ConfigMap',
  'ServiceAccount',
];

/**
 * The objects of the install `release` in `namespaces`, in the order they are removed, in two
 * parts: what stops new work (the Deployments, the StorageClass), and what goes once the volumes
 * have (the volume agent and the rest, namespaces last).
 */
async function installedObjects(
  cluster: RunnerCluster,
  release: string,
  namespaces: string[],
): Promise<{ first: ResourceRef[]; then: ResourceRef[] }> {
  const labelSelector = installSelector(release, namespaces[0] ?? '');
  const { resources } = cluster;
  const namespaced = async (kind: string) => {
    const refs: ResourceRef[] = [];
    for (const namespace of [...new Set(namespaces)])
      for (const object of await resources.list({ kind, namespace, labelSelector }))
        refs.push({ kind, namespace, name: object.metadata.name });
    return refs;
  };
  const clusterWide = async (kind: string) =>
    (await resources.list({ kind, labelSelector })).map((o) => ({ kind, name: o.metadata.name }));
  const first = [...(await namespaced('Deployment')), ...(await clusterWide('StorageClass'))];
  const then: ResourceRef[] = [];
  for (const kind of NAMESPACED_KINDS) then.push(...(await namespaced(kind)));
  for (const kind of ['ClusterRoleBinding', 'ClusterRole', 'PriorityClass', 'Namespace'])
    then.push(...(await clusterWide(kind)));
  return { first, then };
}

/**
 * The warm pool's pods of the install's runtime: the agent made them, so they carry its
 * runtime's labels, not the install's (their claims and Secrets are theirs, and go with them).
 */
async function warmPoolPods(
  cluster: RunnerCluster,
  runtime: string | undefined,
  namespace: string,
): Promise<ResourceRef[]> {
  if (runtime === undefined) return [];
  const labelSelector = `app.kubernetes.io/managed-by=sluice,sluice.io/runtime=${labelValue(runtime)},sluice.io/warm-pool`;
  const pods = await cluster.resources.list({ kind: 'Pod', namespace, labelSelector });
  return pods.map((pod) => ({ kind: 'Pod', namespace, name: pod.metadata.name }));
}

/** A runtime `runner attach` gave the install's agent, from its `*.runtime.yaml`. */
interface Attached {
  runtime: string;
  namespace: string;
  kubeContext: string | undefined;
  release: string | undefined;
  /** What attach made there, when its context is in the kubeconfig. */
  cluster?: RunnerCluster;
  /** Why its cluster could not be read through that context. */
  unreachable?: string;
  objects?: ResourceRef[];
}

/**
 * A `*.runtime.yaml` of the runtimes Secret as a map; one that is not YAML (edited by hand) is an
 * empty map, so delete still lists it (by its key) as left rather than failing whole.
 */
export function parseRuntimeFile(encoded: string): Record<string, unknown> {
  try {
    const doc: unknown = yaml().parse(Buffer.from(encoded, 'base64').toString('utf8'));
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The attached runtimes (the agent's runtimes Secret), with what attach made for each. */
async function attachedRuntimes(install: Install, kubeconfig: string): Promise<Attached[]> {
  const secret = await install.cluster.resources.read({
    kind: 'Secret',
    namespace: install.namespace,
    name: runtimesSecretName(install.release),
  });
  const found: Attached[] = [];
  for (const [key, encoded] of Object.entries((secret?.['data'] ?? {}) as Record<string, string>)) {
    if (!key.endsWith('.runtime.yaml')) continue;
    const file = parseRuntimeFile(encoded);
    const text = (field: string) => (typeof file[field] === 'string' ? file[field] : undefined);
    const attached: Attached = {
      runtime: text('name') ?? key,
      namespace: text('namespace') ?? '',
      kubeContext: text('kubeContext'),
      release: text('release'),
    };
    if (attached.kubeContext !== undefined && attached.release !== undefined) {
      try {
        attached.cluster = connectCluster(kubeconfig, attached.kubeContext);
        const objects = await installedObjects(attached.cluster, attached.release, [
          attached.namespace,
        ]);
        // Its pool's pods first (`runner attach --warm-pool`): the agent is gone by then.
        const pool = await warmPoolPods(attached.cluster, attached.runtime, attached.namespace);
        attached.objects = [...pool, ...objects.first, ...objects.then];
      } catch (err) {
        // Not in this kubeconfig, or not reachable: named as left, with why and the command.
        delete attached.cluster;
        attached.unreachable = describeError(err);
      }
    }
    found.push(attached);
  }
  return found;
}

/** The PersistentVolumes of the install's StorageClasses: its warm volumes and spares. */
async function installVolumes(
  cluster: RunnerCluster,
  storageClasses: string[],
): Promise<KubeResource[]> {
  if (storageClasses.length === 0) return [];
  return (await cluster.resources.list({ kind: 'PersistentVolume' })).filter((pv) =>
    storageClasses.includes(
      (pv['spec'] as { storageClassName?: string } | undefined)?.storageClassName ?? '',
    ),
  );
}

/** Where a volume's data is: its directory and node. */
function placeOf(pv: KubeResource): string {
  const spec = pv['spec'] as
    { local?: { path?: string }; hostPath?: { path?: string } } | undefined;
  if (isDelegated(pv))
    return `a disk of StorageClass ${pv.metadata.annotations?.[VOLUME_ANNOTATIONS.delegateClass] ?? '?'}`;
  const path = spec?.local?.path ?? spec?.hostPath?.path ?? '(no directory)';
  return `${path} on node ${volumeSummary(pv).node ?? '(unknown)'}`;
}

function describeVolume(pv: KubeResource): string {
  const v = volumeSummary(pv);
  const use = v.status === 'in use' ? `in use by claim ${v.claim ?? '?'}` : v.status;
  return `PersistentVolume ${v.name} (${use}; ${placeOf(pv)})`;
}

export async function runnerDelete(
  term: Terminal,
  options: RunnerDeleteOptions,
  confirm: ((question: string) => Promise<boolean>) | undefined,
): Promise<number> {
  const install = await findInstall(options);
  const client = serverClient(options);
  const objects = await installedObjects(install.cluster, install.release, [
    install.namespace,
    install.buildNamespace,
  ]);
  // After the agent (which would make more) and before the volumes they hold.
  objects.first.push(
    ...(await warmPoolPods(install.cluster, install.runtime, install.buildNamespace)),
  );
  const attached = await attachedRuntimes(
    install,
    options.kubeconfig ?? defaultKubeconfig(processEnvironment()),
  );
  const classes = objects.first.filter((r) => r.kind === 'StorageClass').map((r) => r.name);
  const volumes = await installVolumes(install.cluster, classes);
  const { items } = await client.call('listAgents');
  const agent = items.find((a) => a.name === install.agentName);
  const runtime =
    install.runtime === undefined
      ? undefined
      : await client
          .call('getRuntimeEnvironment', { params: { name: install.runtime } })
          .catch(notFound);
  const testPipeline = await client
    .call('getPipelineByName', {
      params: { project: TEST_PROJECT, name: testPipelineName(install.agentName) },
    })
    .catch(notFound);
  const all = [...objects.first, ...objects.then];
  if (all.length === 0 && agent === undefined && runtime === undefined && attached.length === 0) {
    term.err(
      `No runner ${install.release} in namespace ${install.namespace} of context ${install.cluster.contextName}, and no agent ${install.agentName}: nothing to delete.`,
    );
    return 0;
  }
  term.err(`Will remove, from context ${install.cluster.contextName}:`);
  for (const ref of objects.first) term.err(`  ${describeResource(ref)}`);
  if (!options.keepVolumes) {
    for (const pv of volumes) term.err(`  ${describeVolume(pv)}`);
    if (volumes.length > 0)
      term.err('  and their directories (the volume agent of each node removes them first)');
  }
  for (const ref of objects.then) term.err(`  ${describeResource(ref)}`);
  for (const a of attached.filter((x) => x.objects !== undefined && x.objects.length > 0)) {
    term.err(`from context ${a.kubeContext ?? '?'} (runtime ${a.runtime}, attached):`);
    for (const ref of a.objects ?? []) term.err(`  ${describeResource(ref)}`);
  }
  term.err('and from the control plane:');
  if (agent) term.err(`  agent ${agent.name}`);
  if (runtime) term.err(`  runtime environment ${runtime.name}`);
  for (const a of attached) term.err(`  runtime environment ${a.runtime} (attached)`);
  for (const a of attached.filter((x) => x.cluster === undefined))
    term.err(
      a.kubeContext === undefined || a.release === undefined
        ? `and leaves what attach made for runtime ${a.runtime} in namespace ${a.namespace} of its cluster (attached before delete could find it): remove its objects labelled app.kubernetes.io/managed-by=sluice there`
        : `and leaves what attach made for runtime ${a.runtime}: its cluster could not be read through context ${a.kubeContext} (${a.unreachable ?? 'unknown'}); once it can, run sluice runner delete --kube-context ${a.kubeContext} -n ${a.namespace} --release ${a.release}`,
    );
  if (options.keepVolumes && volumes.length > 0)
    term.err(
      `and keeps ${volumes.length} PersistentVolume(s) of StorageClass ${classes.join(', ')} with their directories (--keep-volumes): an install with the same StorageClass reuses them`,
    );
  // The server keeps a pipeline while it has builds: they are history, not the install's.
  if (testPipeline)
    term.err(
      `and keeps the test pipeline ${TEST_PROJECT}/${testPipeline.name}: its builds are the runtime's history`,
    );
  if (!(await confirmed(term, options, confirm))) return 1;
  const remove = async (refs: ResourceRef[]) => {
    for (const ref of refs) {
      const result = await install.cluster.resources.delete(ref);
      // A namespace goes once everything in it has: it is Terminating until then.
      term.err(
        `  ${describeResource(ref)} ${ref.kind === 'Namespace' && result === 'deleted' ? 'terminating' : result}`,
      );
    }
  };
  await remove(objects.first);
  if (options.keepVolumes) await keepVolumes(term, install.cluster, volumes);
  else await removeVolumes(term, install.cluster, volumes);
  await remove(objects.then);
  for (const a of attached)
    if (a.cluster !== undefined) {
      const there = a.cluster;
      for (const ref of a.objects ?? []) {
        const result = await there.resources.delete(ref);
        term.err(`  ${describeResource(ref)} (context ${there.contextName}) ${result}`);
      }
    }
  if (agent) {
    await client.call('deleteAgent', { params: { agentId: agent.id } }).catch(notFound);
    term.err(`  agent ${agent.name} deleted`);
  }
  if (runtime) await deleteRuntime(term, client, runtime.name);
  for (const a of attached) await deleteRuntime(term, client, a.runtime);
  const namespacesOf = (refs: ResourceRef[]) =>
    refs.filter((ref) => ref.kind === 'Namespace').map((ref) => ref.name);
  await waitNamespacesGone(term, install.cluster, namespacesOf(objects.then));
  for (const a of attached)
    if (a.cluster !== undefined)
      await waitNamespacesGone(term, a.cluster, namespacesOf(a.objects ?? []));
  return 0;
}

async function confirmed(
  term: Terminal,
  options: RunnerDeleteOptions,
  confirm: ((question: string) => Promise<boolean>) | undefined,
): Promise<boolean> {
  if (options.yes) return true;
  if (confirm === undefined)
    throw new InputError('SLUICE_RUNNER_DELETE_UNCONFIRMED', 'Not deleted: no terminal to ask', {
      hint: 'Pass --yes to delete without asking',
    });
  if (await confirm('Delete all of this?')) return true;
  term.err('Nothing was deleted.');
  return false;
}

/**
 * Deletes the volumes (the claims of builds still on them first, and those builds' pods), then
 * waits for each to go: its finalizer holds it until the volume agent of its node has removed
 * its directory. One still there after `WAIT_MS` (no agent runs on its node) goes without it,
 * and its directory is named as left behind.
 */
async function removeVolumes(
  term: Terminal,
  cluster: RunnerCluster,
  volumes: KubeResource[],
): Promise<void> {
  const { resources } = cluster;
  for (const pv of volumes) {
    await releaseClaim(cluster, pv);
    // A cloud disk goes back to its driver to be deleted; deleting the object would orphan it.
    if (isDelegated(pv)) await giveBackToDelegate(cluster, pv);
    else await resources.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
  }
  const deadline = Date.now() + WAIT_MS;
  let left = volumes;
  while (left.length > 0) {
    const still: KubeResource[] = [];
    for (const pv of left) {
      const now = await resources.read({ kind: 'PersistentVolume', name: pv.metadata.name });
      if (now === undefined)
        term.err(
          `  PersistentVolume ${pv.metadata.name} deleted, and ${isDelegated(pv) ? `its disk (${placeOf(pv)}) by its driver` : `its directory ${placeOf(pv)}`}`,
        );
      else still.push(now);
    }
    left = still;
    if (left.length > 0 && Date.now() > deadline) {
      for (const pv of left) await dropFinalizer(cluster, pv);
      term.err(
        `  PersistentVolume ${left.map((pv) => pv.metadata.name).join(', ')} deleted without the volume agent after ${WAIT_MS / 1000} s; left on the nodes: ${left.map(placeOf).join('; ')} (remove them by hand)`,
      );
      return;
    }
    if (left.length > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A build still on the volume: its pods, then its claim, so the volume can go. */
async function releaseClaim(cluster: RunnerCluster, pv: KubeResource): Promise<void> {
  const ref = (pv['spec'] as { claimRef?: { namespace?: string; name?: string } } | undefined)
    ?.claimRef;
  if (ref?.namespace === undefined || ref.name === undefined) return;
  const { resources } = cluster;
  const claim = { kind: 'PersistentVolumeClaim', namespace: ref.namespace, name: ref.name };
  if ((await resources.read(claim)) === undefined) return;
  for (const pod of await resources.list({ kind: 'Pod', namespace: ref.namespace })) {
    const uses = (
      (pod['spec'] as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] })
        ?.volumes ?? []
    ).some((v) => v.persistentVolumeClaim?.claimName === ref.name);
    if (uses)
      await resources.delete({ kind: 'Pod', namespace: ref.namespace, name: pod.metadata.name });
  }
  await resources.delete(claim);
}

/**
 * A delegated volume gets back its StorageClass and reclaim policy Delete: being released, its
 * driver deletes the disk and then the object (re-read on a conflict, as below).
 */
async function giveBackToDelegate(cluster: RunnerCluster, pv: KubeResource): Promise<void> {
  const ref = { kind: 'PersistentVolume', name: pv.metadata.name };
  let current: KubeResource | undefined = pv;
  for (let attempt = 0; attempt < 3 && current !== undefined; attempt++) {
    const patch = deleteThroughDelegatePatch(current, 'sluice runner delete');
    if (
      await cluster.resources.patch(ref, patch).then(
        () => true,
        () => false,
      )
    )
      return;
    current = await cluster.resources.read(ref);
  }
}

/** Drops the volume finalizer (re-read on a conflict: the controller-manager writes too). */
async function dropFinalizer(cluster: RunnerCluster, pv: KubeResource): Promise<void> {
  const ref = { kind: 'PersistentVolume', name: pv.metadata.name };
  let current: KubeResource | undefined = pv;
  for (let attempt = 0; attempt < 3 && current !== undefined; attempt++) {
    if (!hasVolumeFinalizer(current)) return;
    const done = await cluster.resources
      .patch(ref, withoutFinalizer(current))
      .then(() => true)
      .catch(() => false);
    if (done) return;
    current = await cluster.resources.read(ref);
  }
}

/** Kept volumes lose the finalizer: without a volume agent, deleting one by hand would hang. */
async function keepVolumes(
  term: Terminal,
  cluster: RunnerCluster,
  volumes: KubeResource[],
): Promise<void> {
  for (const pv of volumes) {
    await dropFinalizer(cluster, pv);
    term.err(`  ${describeVolume(pv)} kept`);
  }
}

/** Until each deleted namespace is gone, or 2 minutes, saying which are still terminating. */
async function waitNamespacesGone(
  term: Terminal,
  cluster: RunnerCluster,
  names: string[],
): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let left = names;
  while (left.length > 0) {
    const still: string[] = [];
    for (const name of left)
      if (await cluster.resources.read({ kind: 'Namespace', name })) still.push(name);
    for (const name of left.filter((n) => !still.includes(n)))
      term.err(`  Namespace ${name} deleted`);
    left = still;
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      term.err(
        `  Namespace ${left.join(', ')} still terminating after ${WAIT_MS / 1000} s: kubectl get namespace ${left.join(' ')}; kubectl api-resources --verbs=list --namespaced -o name shows what may hold it`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function deleteRuntime(term: Terminal, client: SluiceClient, name: string): Promise<void> {
  await client.call('deleteRuntimeEnvironment', { params: { name } }).catch(notFound);
  term.err(`  runtime environment ${name} deleted`);
}
