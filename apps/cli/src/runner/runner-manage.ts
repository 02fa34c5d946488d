/**
 * `sluice runner upgrade`, and finding an install `runner init` made (`findInstall`, which
 * `runner delete` shares: runner-delete.ts). The install is found from its agent Deployment
 * (`<release>-agent` in the namespace): its environment names the runtime and the runtime's
 * namespace, and the instance label with the install's namespace (`installSelector`) finds every
 * object of this install and of no other. Upgrade moves every component to another image tag
 * (from the install's record) and waits for the rollouts.
 * @module
 */
import { InputError } from '@sluice/errors';
import { describeChange, describeResource } from '@sluice/kube';
import { RUNTIME_INSTALL_DEFAULTS } from '@sluice/runtime-spec';
import type { KubeResource, ResourceRef } from '@sluice/kube';
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
import { notFound, registerRuntime, runtimeChanges } from './runner-steps.js';
import { processEnvironment } from '../config.js';

export interface RunnerManageOptions extends ServerOptions {
  kubeconfig?: string;
  kubeContext?: string;
  namespace?: string;
  release?: string;
  agentName?: string;
}

export interface Install {
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

export async function findInstall(options: RunnerManageOptions): Promise<Install> {
  const cluster = connectCluster(
    options.kubeconfig ?? defaultKubeconfig(processEnvironment()),
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
      kubeconfig: options.kubeconfig ?? defaultKubeconfig(processEnvironment()),
      namespace: install.namespace,
      release: install.release,
      imageTag: options.imageTag,
      ...(options.kubeContext === undefined ? {} : { kubeContext: options.kubeContext }),
      ...(options.imageRepository === undefined
        ? {}
        : { imageRepository: options.imageRepository }),
    },
    {},
    { contextName: install.cluster.contextName, env: processEnvironment(), stored },
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
    registered === undefined
      ? []
      : runtimeChanges(registered.spec, runtimeSpecFor(settings, { asPatch: true }));
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
