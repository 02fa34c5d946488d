/**
 * `sluice runner attach`: an agent that `runner init` installed also serves a runtime in another
 * cluster (another kube context). In that cluster: the runtime's namespace, the agent's
 * ServiceAccount with the runtime chart's Role and RoleBinding, the engine's ServiceAccount, and
 * a token Secret for the ServiceAccount. In the agent's cluster: the runtime's `*.runtime.yaml`
 * (API server URL, token, CA, namespace) added to the `<release>-agent-runtimes` Secret, which
 * the agent Deployment mounts (the chart's `agent.runtimesSecret`), and a rollout. With
 * `--warm-pool N` the runtime's own pool: its PriorityClasses in its cluster, its sizes in its
 * file (the agent's own pool variables are its own cluster's). With the
 * control plane: the runtime environment registered and added to the agent's runtimes. Each step
 * looks before it acts, so a rerun finishes an interrupted attach.
 * @module
 */
import { createHash } from 'node:crypto';
import { InputError } from '@sluice/errors';
import { listKubeContexts } from '@sluice/kube';
import type { KubeResource } from '@sluice/kube';
import type { SluiceClient } from '@sluice/protocol';
import {
  attachedWarmPool,
  INSTALL_NAMESPACE_LABEL,
  renderRuntimeInstall,
  RUNTIMES_DIR,
} from '@sluice/runtime-spec';
import { yaml } from '../lazy-yaml.js';
import type { Terminal } from '../ui/terminal.js';
import { serverClient } from '../commands/server-resources.js';
import type { ServerOptions } from '../commands/server-resources.js';
import { connectCluster, preflight } from './runner-cluster.js';
import type { RunnerCluster } from './runner-cluster.js';
import { agentObjectName, describeObject } from './runner-install.js';
import { printChecks, runSteps } from './runner-progress.js';
import type { Step } from './runner-progress.js';
import {
  defaultKubeconfig,
  nameFrom,
  resolveRunnerSettings,
  RUNNER_DEFAULTS,
} from './runner-settings.js';
import type { RunnerFlags, RunnerSettings } from './runner-settings.js';
import { waitRollout } from './runner-manage.js';
import { registerRuntime, waitAgentHealthy } from './runner-steps.js';
import { processEnvironment } from '../config.js';

export interface RunnerAttachOptions extends ServerOptions, RunnerFlags {
  /** The agent's cluster; the kubeconfig's current context by default. */
  agentKubeContext?: string;
  /** The API server of the attached cluster as the agent's pods reach it. */
  apiServerUrl?: string;
  timeout: number;
}

/** The Secret of the agent's `*.runtime.yaml` files. */
export function runtimesSecretName(release: string): string {
  return `${agentObjectName(release)}-runtimes`.slice(0, 63);
}

export async function runnerAttach(term: Terminal, options: RunnerAttachOptions): Promise<number> {
  const kubeconfig = options.kubeconfig ?? defaultKubeconfig(processEnvironment());
  // The other cluster: --kube-context, else the kubeconfig's current context (another
  // namespace of the agent's own cluster, say).
  const kubeContext = options.kubeContext ?? listKubeContexts(kubeconfig).current;
  if (kubeContext === undefined || options.buildNamespace === undefined)
    throw new InputError(
      'SLUICE_RUNNER_SETTINGS_INVALID',
      'runner attach needs --build-namespace (its namespace for builds) and a kube context (--kube-context, or a current context in the kubeconfig)',
      {
        hint: 'e.g. sluice runner attach --kube-context staging --build-namespace ci --runtime staging/ci',
      },
    );
  const release = options.release ?? RUNNER_DEFAULTS.release;
  const namespace = options.namespace ?? RUNNER_DEFAULTS.namespace;
  // The attached cluster's objects are an install of their own: a release per runtime.
  const settings = resolveRunnerSettings(
    {
      ...options,
      kubeContext,
      namespace: options.buildNamespace,
      release: attachRelease(release, { ...options, kubeContext }),
    },
    {},
    { contextName: kubeContext, controlPlaneUrl: options.server, env: processEnvironment() },
  );
  const target = connectCluster(kubeconfig, kubeContext);
  const home = connectCluster(kubeconfig, options.agentKubeContext);
  const agentName = options.agentName ?? nameFrom(`${home.contextName}-${namespace}`);
  term.err(
    term.paint(
      'bold',
      `Attach runtime ${settings.values.runtime.name} (context ${target.contextName}, namespace ${settings.namespace}) to agent ${agentName} (context ${home.contextName}, namespace ${namespace})`,
    ),
  );
  term.err('Preflight checks:');
  if (!printChecks(term, await preflight(target, settings))) {
    term.err(
      term.paint('red', 'Preflight failed: fix what is marked ✖ and run the same command again.'),
    );
    return 1;
  }
  const client = serverClient(options);
  const host = options.apiServerUrl ?? target.server;
  const steps: Step[] = [
    {
      title: `Objects in ${target.contextName}: namespace, ServiceAccounts, Role, RoleBinding`,
      run: () => applyRemoteObjects(target, settings),
    },
    {
      title: "Wait for the ServiceAccount's token",
      run: async () => `token of ${(await waitToken(target, settings)).name} ready`,
    },
    {
      title: `Add the runtime to ${runtimesSecretName(release)} in ${home.contextName}`,
      run: async () => {
        const token = await waitToken(target, settings);
        const file = runtimeFile(settings, { host, kubeContext: target.contextName }, token);
        return addRuntimeFile(home, { namespace, release }, file);
      },
    },
    {
      title: `Register the runtime environment ${settings.values.runtime.name}`,
      run: () => registerRuntime(client, settings, { inCluster: false }),
    },
    {
      title: `Let agent ${agentName} serve it`,
      run: () => addAgentRuntime(client, agentName, settings.values.runtime.name),
    },
    {
      title: 'Roll the agent to read its runtimes',
      run: () => mountRuntimes(home, { namespace, release }),
    },
    {
      // Until the old agent pod is gone: alive, it would take the new runtime's tasks it
      // cannot serve and overwrite the new pod's report of its health.
      title: 'Wait for the rollout',
      run: async () => {
        const ref = { kind: 'Deployment', namespace, name: agentObjectName(release) };
        await waitRollout(term, home, ref, options.timeout);
        return 'every agent pod reads the new runtimes';
      },
    },
    {
      title: `Wait for agent ${agentName} to report ${settings.values.runtime.name} healthy`,
      run: () =>
        waitAgentHealthy(term, client, {
          agentName,
          runtime: settings.values.runtime.name,
          timeoutSeconds: options.timeout,
          hint: `kubectl -n ${namespace} logs deployment/${agentObjectName(release)}`,
        }),
    },
  ];
  return runSteps(
    term,
    steps,
    `Attached: builds on ${settings.values.runtime.name} run in namespace ${settings.namespace} of ${target.contextName}.`,
  );
}

function attachRelease(release: string, options: RunnerAttachOptions): string {
  return nameFrom(
    `${release}-${options.runtime ?? `${options.kubeContext}-${options.buildNamespace}`}`,
  )
    .slice(0, 53)
    .replace(/-+$/, '');
}

/** The runtime chart's objects an attached namespace needs: no Deployment, no agent token. */
async function applyRemoteObjects(
  cluster: RunnerCluster,
  settings: RunnerSettings,
): Promise<string> {
  const objects = renderRuntimeInstall({
    release: settings.release,
    namespace: settings.namespace,
    values: {
      ...settings.values,
      agent: { ...settings.values.agent, existingSecret: { name: 'none' } },
    },
  }).filter((o) => o.kind !== 'Deployment');
  const labels = objects[0]?.metadata.labels ?? {};
  const results: string[] = [];
  if (
    (await cluster.resources.read({ kind: 'Namespace', name: settings.namespace })) === undefined
  ) {
    await cluster.resources.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: settings.namespace, labels },
    });
    results.push(`Namespace ${settings.namespace} created`);
  }
  for (const object of objects)
    results.push(`${describeObject(object)} ${await cluster.resources.apply(object)}`);
  const tokenSecret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/service-account-token',
    metadata: {
      name: `${agentObjectName(settings.release)}-token`,
      namespace: settings.namespace,
      labels,
      annotations: { 'kubernetes.io/service-account.name': agentObjectName(settings.release) },
    },
  };
  if (
    (await cluster.resources.read({
      kind: 'Secret',
      namespace: settings.namespace,
      name: tokenSecret.metadata.name,
    })) === undefined
  )
    await cluster.resources.apply(tokenSecret);
  results.push(
    `${tokenSecret.kind} ${settings.namespace}/${tokenSecret.metadata.name} (its token)`,
  );
  return results.join('; ');
}

interface ServiceAccountToken {
  name: string;
  token: string;
  ca: string;
}

async function waitToken(
  cluster: RunnerCluster,
  settings: RunnerSettings,
): Promise<ServiceAccountToken> {
  const name = `${agentObjectName(settings.release)}-token`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const secret = await cluster.resources.read({
      kind: 'Secret',
      namespace: settings.namespace,
      name,
    });
    const data = (secret?.['data'] ?? {}) as Record<string, string>;
    if (data['token'] && data['ca.crt'])
      return {
        name: `Secret ${settings.namespace}/${name}`,
        token: Buffer.from(data['token'], 'base64').toString('utf8'),
        ca: Buffer.from(data['ca.crt'], 'base64').toString('utf8'),
      };
    if (Date.now() > deadline)
      throw new InputError(
        'SLUICE_RUNNER_NO_TOKEN',
        `Secret ${settings.namespace}/${name} got no token within 60 s`,
        {
          hint: "The cluster's token controller fills it: kubectl describe secret; check kube-controller-manager",
        },
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The agent's `*.runtime.yaml` of the attached runtime. `kubeContext` and `release` are for
 * `runner delete`, which finds there what attach made in the other cluster (the agent ignores
 * them).
 */
function runtimeFile(
  settings: RunnerSettings,
  target: { host: string; kubeContext: string },
  token: ServiceAccountToken,
): { key: string; text: string } {
  const name = settings.values.runtime.name;
  const { release, namespace, values } = settings;
  const warmPool = attachedWarmPool({ release, namespace, values });
  return {
    key: `${nameFrom(name)}.runtime.yaml`,
    text: yaml().stringify({
      type: 'runtime',
      name,
      host: target.host,
      namespace,
      token: token.token,
      crt: token.ca,
      ...(warmPool === undefined ? {} : { warmPool }),
      kubeContext: target.kubeContext,
      release,
    }),
  };
}

async function addRuntimeFile(
  home: RunnerCluster,
  install: { namespace: string; release: string },
  file: { key: string; text: string },
): Promise<string> {
  const ref = {
    kind: 'Secret',
    namespace: install.namespace,
    name: runtimesSecretName(install.release),
  };
  const existing = await home.resources.read(ref);
  const data = { ...((existing?.['data'] ?? {}) as Record<string, string>) };
  const encoded = Buffer.from(file.text).toString('base64');
  if (data[file.key] === encoded) return `${file.key} is in Secret ${ref.namespace}/${ref.name}`;
  data[file.key] = encoded;
  const secret: KubeResource = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: {
        'app.kubernetes.io/part-of': 'sluice',
        'app.kubernetes.io/instance': install.release,
        'app.kubernetes.io/managed-by': 'sluice',
        [INSTALL_NAMESPACE_LABEL]: install.namespace,
      },
    },
    data,
  };
  await home.resources.apply(secret);
  return `${file.key} added to Secret ${ref.namespace}/${ref.name}`;
}

async function addAgentRuntime(
  client: SluiceClient,
  agentName: string,
  runtime: string,
): Promise<string> {
  const { items } = await client.call('listAgents');
  const agent = items.find((a) => a.name === agentName);
  if (agent === undefined)
    throw new InputError('SLUICE_RUNNER_NOT_FOUND', `No agent ${agentName} in the control plane`, {
      hint: 'Pass the --agent-name of the install (sluice runner info lists agents)',
    });
  if (agent.runtimes.includes(runtime))
    return `agent ${agentName} serves ${agent.runtimes.join(', ')}`;
  const updated = await client.call('updateAgent', {
    params: { agentId: agent.id },
    body: { runtimes: [...agent.runtimes, runtime] },
  });
  return `agent ${agentName} serves ${updated.runtimes.join(', ')}`;
}

/** The Deployment mounts the runtimes Secret; a checksum of it in the pod template rolls the pod. */
async function mountRuntimes(
  home: RunnerCluster,
  install: { namespace: string; release: string },
): Promise<string> {
  const secretName = runtimesSecretName(install.release);
  const secret = await home.resources.read({
    kind: 'Secret',
    namespace: install.namespace,
    name: secretName,
  });
  const checksum = createHash('sha256')
    .update(JSON.stringify(secret?.['data'] ?? {}))
    .digest('hex')
    .slice(0, 16);
  const ref = {
    kind: 'Deployment',
    namespace: install.namespace,
    name: agentObjectName(install.release),
  };
  const patched = await home.resources.patch(
    ref,
    {
      spec: {
        template: {
          metadata: { annotations: { 'sluice.io/runtimes-checksum': checksum } },
          spec: {
            containers: [
              {
                name: 'agent',
                env: [{ name: 'SLUICE_AGENT_CONFIG_DIR', value: RUNTIMES_DIR }],
                volumeMounts: [{ name: 'runtimes', mountPath: RUNTIMES_DIR, readOnly: true }],
              },
            ],
            volumes: [{ name: 'runtimes', secret: { secretName } }],
          },
        },
      },
    },
    { strategic: true },
  );
  if (patched === undefined)
    throw new InputError(
      'SLUICE_RUNNER_NOT_FOUND',
      `No agent Deployment ${ref.namespace}/${ref.name} in the agent's cluster`,
      {
        hint: 'Pass --agent-kube-context, --namespace and --release of the install that runner init made',
      },
    );
  return `Deployment ${ref.namespace}/${ref.name} mounts ${secretName} (checksum ${checksum})`;
}
