/**
 * `sluice runner delete` and `sluice runner upgrade`, on an install `runner init` made. The
 * install is found from its agent Deployment (`<release>-agent` in the namespace): its
 * environment names the runtime and the runtime's namespace, and the instance label with the
 * install's namespace (`installSelector`) finds every object of this install and of no other.
 * Delete lists exactly what it will remove (objects, the agent registration, the runtime
 * environment), asks (default no) unless `--yes`, and removes them; a namespace is removed only
 * when init created it. Upgrade moves every component to another image tag (from the install's
 * record) and waits for the rollouts.
 * @module
 */
import { InputError } from '@sluice/errors';
import { describeChange, describeResource } from '@sluice/kube';
import { installSelector, RUNTIME_INSTALL_DEFAULTS } from '@sluice/runtime-spec';
import type { KubeResource, ResourceRef } from '@sluice/kube';
import type { SluiceClient } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { serverClient } from '../commands/server-resources.js';
import type { ServerOptions } from '../commands/server-resources.js';
import { connectCluster } from './runner-cluster.js';
import type { RunnerCluster } from './runner-cluster.js';
import { installRecordName, readInstallRecord } from './install-record.js';
import {
  agentObjectName,
  describeObject,
  installObjects,
  runtimeSpecFor,
} from './runner-install.js';
import {
  defaultKubeconfig,
  nameFrom,
  resolveRunnerSettings,
  RUNNER_DEFAULTS,
} from './runner-settings.js';
import {
  notFound,
  registerRuntime,
  runtimeChanges,
  TEST_PROJECT,
  testPipelineName,
} from './runner-steps.js';

export interface RunnerManageOptions extends ServerOptions {
  kubeconfig?: string;
  kubeContext?: string;
  namespace?: string;
  release?: string;
  agentName?: string;
}

interface Install {
  cluster: RunnerCluster;
  namespace: string;
  release: string;
  deployment: KubeResource | undefined;
  runtime: string | undefined;
  buildNamespace: string;
  agentName: string;
}

type Container = { name: string; image?: string; env?: { name: string; value?: string }[] };

function agentContainer(deployment: KubeResource | undefined): Container | undefined {
  const spec = deployment?.['spec'] as
    { template?: { spec?: { containers?: Container[] } } } | undefined;
  return spec?.template?.spec?.containers?.find((c) => c.name === 'agent');
}

async function findInstall(options: RunnerManageOptions): Promise<Install> {
  const cluster = connectCluster(
    options.kubeconfig ?? defaultKubeconfig(process.env),
    options.kubeContext,
  );
  const namespace = options.namespace ?? RUNNER_DEFAULTS.namespace;
  const release = options.release ?? RUNNER_DEFAULTS.release;
  const deployment = await cluster.resources.read({
    kind: 'Deployment',
    namespace,
    name: agentObjectName(release),
  });
  const env = new Map(agentContainer(deployment)?.env?.map((e) => [e.name, e.value]) ?? []);
  const buildNamespace = env.get('SLUICE_NAMESPACE') ?? namespace;
  return {
    cluster,
    namespace,
    release,
    deployment,
    // Without its Deployment (deleted, or a chart install of --generate-helm-values-file never
    // made), the install's runtime is the one init names by default for this context.
    runtime:
      env.get('SLUICE_IN_CLUSTER_RUNTIME') ??
      (deployment === undefined ? `${nameFrom(cluster.contextName)}/${buildNamespace}` : undefined),
    buildNamespace,
    agentName: options.agentName ?? nameFrom(`${cluster.contextName}-${buildNamespace}`),
  };
}

/** The install's objects, in the order they are removed: the agent first, namespaces last. */
async function installedObjects(install: Install): Promise<ResourceRef[]> {
  const labelSelector = installSelector(install.release, install.namespace);
  const { resources } = install.cluster;
  const found: ResourceRef[] = [];
  const namespaces = [...new Set([install.namespace, install.buildNamespace])];
  for (const kind of [
    'Deployment',
    'DaemonSet',
    'RoleBinding',
    'Role',
    'Secret',
    'ConfigMap',
    'ServiceAccount',
  ])
    for (const namespace of namespaces)
      for (const object of await resources.list({ kind, namespace, labelSelector }))
        found.push({ kind, namespace, name: object.metadata.name });
  // The volume provisioner's cluster-wide objects (volumes.enabled); its volumes stay.
  for (const kind of ['ClusterRoleBinding', 'ClusterRole', 'StorageClass'])
    for (const object of await resources.list({ kind, labelSelector }))
      found.push({ kind, name: object.metadata.name });
  for (const object of await resources.list({ kind: 'Namespace', labelSelector }))
    found.push({ kind: 'Namespace', name: object.metadata.name });
  return found;
}

export async function runnerDelete(
  term: Terminal,
  options: RunnerManageOptions & { yes?: boolean },
  confirm: ((question: string) => Promise<boolean>) | undefined,
): Promise<number> {
  const install = await findInstall(options);
  const client = serverClient(options);
  const objects = await installedObjects(install);
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
  if (objects.length === 0 && agent === undefined && runtime === undefined) {
    term.err(
      `No runner ${install.release} in namespace ${install.namespace} of context ${install.cluster.contextName}, and no agent ${install.agentName}: nothing to delete.`,
    );
    return 0;
  }
  term.err(`Will remove, from context ${install.cluster.contextName}:`);
  for (const ref of objects) term.err(`  ${describeResource(ref)}`);
  term.err('and from the control plane:');
  if (agent) term.err(`  agent ${agent.name}`);
  if (runtime) term.err(`  runtime environment ${runtime.name}`);
  // The server keeps a pipeline while it has builds: they are history, not the install's.
  if (testPipeline)
    term.err(
      `and keeps the test pipeline ${TEST_PROJECT}/${testPipeline.name}: its builds are the runtime's history`,
    );
  if (!options.yes) {
    if (confirm === undefined)
      throw new InputError('SLUICE_RUNNER_DELETE_UNCONFIRMED', 'Not deleted: no terminal to ask', {
        hint: 'Pass --yes to delete without asking',
      });
    if (!(await confirm('Delete all of this?'))) {
      term.err('Nothing was deleted.');
      return 1;
    }
  }
  for (const ref of objects) {
    const result = await install.cluster.resources.delete(ref);
    // A namespace goes once everything in it has: it is Terminating until then.
    term.err(
      `  ${describeResource(ref)} ${ref.kind === 'Namespace' && result === 'deleted' ? 'terminating' : result}`,
    );
  }
  if (agent) {
    await client.call('deleteAgent', { params: { agentId: agent.id } }).catch(notFound);
    term.err(`  agent ${agent.name} deleted`);
  }
  if (runtime) await deleteRuntime(term, client, runtime.name);
  await waitNamespacesGone(
    term,
    install.cluster,
    objects.filter((ref) => ref.kind === 'Namespace').map((ref) => ref.name),
  );
  return 0;
}

const NAMESPACE_WAIT_MS = 120_000;

/** Until each deleted namespace is gone, or 2 minutes, saying which are still terminating. */
async function waitNamespacesGone(
  term: Terminal,
  cluster: RunnerCluster,
  names: string[],
): Promise<void> {
  const deadline = Date.now() + NAMESPACE_WAIT_MS;
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
        `  Namespace ${left.join(', ')} still terminating after ${NAMESPACE_WAIT_MS / 1000} s: kubectl get namespace ${left.join(' ')}; kubectl api-resources --verbs=list --namespaced -o name shows what may hold it`,
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

type UpgradeOptions = RunnerManageOptions & {
  imageTag: string;
  imageRepository?: string;
  timeout: number;
};

/**
 * Every component to the new image: from the install's record, the objects are rendered again
 * with the new tag and applied where they change (the agent, the volume provisioner and its
 * DaemonSet), the runtime's engine and dind images registered again, and each Deployment's
 * rollout waited for. An install without a record (made before records were kept) moves its
 * agent only, and says so.
 */
export async function runnerUpgrade(term: Terminal, options: UpgradeOptions): Promise<number> {
  const install = await findInstall(options);
  const stored = await readInstallRecord(install.cluster, install.namespace, install.release);
  if (stored === undefined) return upgradeAgentOnly(term, install, options);
  const settings = resolveRunnerSettings(
    {
      kubeconfig: options.kubeconfig ?? defaultKubeconfig(process.env),
      namespace: install.namespace,
      release: install.release,
      imageTag: options.imageTag,
      ...(options.kubeContext === undefined ? {} : { kubeContext: options.kubeContext }),
      ...(options.imageRepository === undefined
        ? {}
        : { imageRepository: options.imageRepository }),
    },
    {},
    { contextName: install.cluster.contextName, env: process.env, stored },
  );
  const image = settings.values.agent.image;
  const target = `${image?.repository ?? RUNTIME_INSTALL_DEFAULTS.image.repository}:${options.imageTag}`;
  term.err(
    `Upgrading the install ${install.release} in namespace ${install.namespace} to ${target}:`,
  );
  const { resources } = install.cluster;
  const rollouts: ResourceRef[] = [];
  for (const object of installObjects(settings, '')) {
    if (object.kind === 'Namespace' || object.kind === 'Secret') continue;
    const { result, changes } = await resources.planApply(object);
    if (result !== 'created' && changes.length === 0) continue;
    await resources.apply(object);
    if (object.kind === 'ConfigMap') continue;
    term.err(`  ${result === 'created' ? 'created' : 'moved'} ${describeObject(object)}`);
    for (const change of changes) term.err(term.paint('dim', `      ${describeChange(change)}`));
    if (object.kind === 'Deployment')
      rollouts.push({
        kind: 'Deployment',
        namespace: settings.namespace,
        name: object.metadata.name,
      });
  }
  const client = serverClient(options);
  const runtime = settings.values.runtime.name;
  const registered = await client
    .call('getRuntimeEnvironment', { params: { name: runtime } })
    .catch(notFound);
  const runtimeMoves =
    registered === undefined ? [] : runtimeChanges(registered.spec, runtimeSpecFor(settings));
  if (registered !== undefined && runtimeMoves.length > 0) {
    await registerRuntime(client, settings);
    term.err(`  moved runtime environment ${runtime} (its builds' engine and Docker daemon)`);
    for (const change of runtimeMoves) term.err(term.paint('dim', `      ${change}`));
  }
  if (rollouts.length === 0 && runtimeMoves.length === 0) {
    term.err(`The install already runs ${target}.`);
    return 0;
  }
  for (const ref of rollouts) await waitRollout(term, install.cluster, ref, options.timeout);
  term.err(`The install runs ${target}. See it: sluice runner info`);
  return 0;
}

async function upgradeAgentOnly(
  term: Terminal,
  install: Install,
  options: UpgradeOptions,
): Promise<number> {
  const container = agentContainer(install.deployment);
  if (install.deployment === undefined || container === undefined)
    throw new InputError(
      'SLUICE_RUNNER_NOT_FOUND',
      `No runner agent Deployment ${install.namespace}/${agentObjectName(install.release)} in context ${install.cluster.contextName}`,
      { hint: 'Pass the --namespace and --release of the install (sluice runner init made it)' },
    );
  const current = container.image ?? '';
  const repository = options.imageRepository ?? current.replace(/:[^:/]*$/, '');
  const image = `${repository}:${options.imageTag}`;
  const ref = {
    kind: 'Deployment',
    namespace: install.namespace,
    name: install.deployment.metadata.name,
  };
  if (image === current) {
    term.err(`The agent already runs ${image}.`);
    return 0;
  }
  term.err(
    `No record of this install (ConfigMap ${install.namespace}/${installRecordName(install.release)}): only its agent moves. Run sluice runner init once with the install's flags to record them; upgrade then moves every component.`,
  );
  term.err(`Upgrading ${describeResource(ref)}: ${current} → ${image}`);
  await install.cluster.resources.patch(
    ref,
    { spec: { template: { spec: { containers: [{ name: 'agent', image }] } } } },
    { strategic: true },
  );
  await waitRollout(term, install.cluster, ref, options.timeout);
  term.err(`The agent runs ${image}. See it: sluice runner info`);
  return 0;
}

/** Until the Deployment's pods are all of its newest template and available, the old ones gone. */
export async function waitRollout(
  term: Terminal,
  cluster: RunnerCluster,
  ref: ResourceRef,
  timeoutSeconds: number,
): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = '';
  for (;;) {
    const deployment = await cluster.resources.read(ref);
    const generation = Number(deployment?.metadata['generation'] ?? 0);
    const status = (deployment?.['status'] ?? {}) as Record<string, number | undefined>;
    const want = Number((deployment?.['spec'] as { replicas?: number } | undefined)?.replicas ?? 1);
    const state = `${status['updatedReplicas'] ?? 0}/${want} updated, ${status['availableReplicas'] ?? 0} available`;
    if (
      (status['observedGeneration'] ?? 0) >= generation &&
      status['updatedReplicas'] === want &&
      status['availableReplicas'] === want &&
      (status['replicas'] ?? 0) === want
    )
      return;
    if (state !== last) term.err(term.paint('dim', `  ${state}`));
    last = state;
    if (Date.now() > deadline)
      throw new InputError(
        'SLUICE_RUNNER_ROLLOUT_TIMEOUT',
        `The agent's rollout did not finish within ${timeoutSeconds}s (${state})`,
        { hint: `kubectl -n ${ref.namespace} rollout status deployment/${ref.name}` },
      );
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
