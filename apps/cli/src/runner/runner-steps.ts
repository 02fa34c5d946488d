/**
 * The steps of `sluice runner init`, each finding its work done before doing it: namespaces,
 * the runtime environment's registration, the agent's (with its token kept in a Secret at
 * once: a token is shown only once), the agent's objects, the wait for its health, and the
 * test pipeline, whose log is shown.
 * @module
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, InputError, NotFoundError } from '@sluice/errors';
import { describeChange, describeResource, objectChanges } from '@sluice/kube';
import type { SluiceClient } from '@sluice/protocol';
import { mergePatch } from '@sluice/runtime-spec';
import type { InstallObject } from '@sluice/runtime-spec';
import { yaml } from '../lazy-yaml.js';
import type { Terminal } from '../ui/terminal.js';
import { describeRuntime } from '../commands/runner-info.js';
import { followToEnd } from '../commands/run-pipeline.js';
import { unreachableAgentPod } from './agent-reachability.js';
import type { RunnerCluster } from './runner-cluster.js';
import {
  agentObjectName,
  describeObject,
  helmValues,
  installObjects,
  runtimeSpecFor,
} from './runner-install.js';
import { StepExit } from './runner-progress.js';
import type { Step } from './runner-progress.js';
import type { RunnerSettings } from './runner-settings.js';

/** The project of the runners' test pipelines. */
export const TEST_PROJECT = 'runners';

/** A failed lookup that means "there is none". */
export function notFound(err: unknown): undefined {
  if (err instanceof NotFoundError) return undefined;
  throw err;
}

export interface StepOptions {
  generateHelmValuesFile?: string;
  testImage: string;
  timeout: number;
}

export function installSteps(
  term: Terminal,
  cluster: RunnerCluster,
  client: SluiceClient,
  settings: RunnerSettings,
  options: StepOptions,
): Step[] {
  const runtime = settings.values.runtime.name;
  const objects = installObjects(settings, '');
  const apply = async (kinds: (o: InstallObject) => boolean) => {
    const results = [];
    for (const object of objects.filter(kinds)) {
      // A namespace that was there is left as it is (and so is not removed by runner delete).
      if (
        object.kind === 'Namespace' &&
        (await cluster.resources.read({ kind: 'Namespace', name: object.metadata.name }))
      ) {
        results.push(`${describeObject(object)} exists, left as it is`);
        continue;
      }
      const result = await cluster.resources.apply(object);
      results.push(`${describeObject(object)} ${result}`);
    }
    return results.join('; ') || 'nothing to apply';
  };
  const helm = options.generateHelmValuesFile;
  const steps: (Step | false)[] = [
    helm === undefined && {
      title: 'Namespaces',
      run: () => apply((o) => o.kind === 'Namespace'),
    },
    {
      title: `Register the runtime environment ${runtime}`,
      run: () => registerRuntime(client, settings),
    },
    settings.setDefault && {
      title: `Make ${runtime} the account's default runtime`,
      run: async () => {
        await client.call('setDefaultRuntimeEnvironment', { params: { name: runtime } });
        return `${runtime} is the default`;
      },
    },
    {
      title: `Register the agent ${settings.agentName}`,
      run: () => registerAgent(cluster, client, settings, helm),
    },
    helm === undefined && {
      title: "Apply the agent's Deployment, ServiceAccounts and RBAC",
      run: () => apply((o) => o.kind !== 'Namespace' && o.kind !== 'Secret'),
    },
    helm === undefined && {
      title: 'Wait for the agent to report healthy',
      run: () => waitHealthy(term, cluster, client, settings, options.timeout),
    },
    helm === undefined &&
      settings.testPipeline && {
        title: `Run the test pipeline on ${runtime}`,
        run: () => runTestPipeline(term, client, settings, options.testImage),
      },
  ];
  return steps.filter((s): s is Step => s !== false);
}

export async function registerRuntime(
  client: SluiceClient,
  settings: RunnerSettings,
  options: { inCluster?: boolean } = {},
): Promise<string> {
  const name = settings.values.runtime.name;
  const spec = runtimeSpecFor(settings, options);
  const existing = await client.call('getRuntimeEnvironment', { params: { name } }).catch(notFound);
  if (existing === undefined) {
    await client.call('createRuntimeEnvironment', {
      body: { name, description: `Installed by sluice runner init in ${settings.namespace}`, spec },
    });
    return `registered ${name}`;
  }
  const patch = runtimeSpecFor(settings, { ...options, asPatch: true });
  if (runtimeChanges(existing.spec, patch).length === 0)
    return `${name} is registered as planned (version ${existing.version})`;
  const updated = await client.call('patchRuntimeEnvironment', {
    params: { name },
    body: { patch },
  });
  return `updated ${name} to version ${updated.version}`;
}

/**
 * The agent and its token Secret, made together: a token is shown once, so an agent whose
 * Secret is missing (a run killed between the two) is made again with a new token.
 */
async function registerAgent(
  cluster: RunnerCluster,
  client: SluiceClient,
  settings: RunnerSettings,
  helmValuesFile: string | undefined,
): Promise<string> {
  const secretRef = {
    kind: 'Secret',
    namespace: settings.namespace,
    name: agentObjectName(settings.release),
  };
  const { items } = await client.call('listAgents');
  const existing = items.find((a) => a.name === settings.agentName);
  const secret = helmValuesFile === undefined ? await cluster.resources.read(secretRef) : undefined;
  if (existing !== undefined && secret !== undefined)
    return `agent ${existing.name} exists and its token is in ${describeResource(secretRef)}`;
  if (existing !== undefined)
    await client.call('deleteAgent', { params: { agentId: existing.id } });
  const runtimes = [settings.values.runtime.name];
  let created;
  try {
    created = await client.call('createAgent', { body: { name: settings.agentName, runtimes } });
  } catch (err) {
    if (err instanceof ConflictError)
      throw new InputError('SLUICE_RUNNER_AGENT_EXISTS', err.message, {
        hint: 'Another install uses this agent name: pass --agent-name',
      });
    throw err;
  }
  if (helmValuesFile !== undefined) {
    writeFileSync(helmValuesFile, helmValuesText(settings, created.token), { mode: 0o600 });
    chmodSync(helmValuesFile, 0o600);
    return `agent ${settings.agentName} ${existing ? 're-registered' : 'registered'}; chart values with its token written to ${helmValuesFile} (mode 0600). Install: helm install ${settings.release} charts/sluice-runtime -n ${settings.namespace} --create-namespace -f ${helmValuesFile}`;
  }
  const [secretObject] = installObjects(settings, created.token).filter((o) => o.kind === 'Secret');
  if (secretObject !== undefined) await cluster.resources.apply(secretObject);
  return `agent ${settings.agentName} ${existing ? 're-registered with a new token' : 'registered'}; token kept in ${describeResource(secretRef)}`;
}

function helmValuesText(settings: RunnerSettings, token: string): string {
  const header = [
    `# Values of charts/sluice-runtime for runtime ${settings.values.runtime.name}, written by`,
    '# sluice runner init. It holds the agent token: keep it secret.',
    '',
  ].join('\n');
  return header + yaml().stringify(helmValues(settings, token), { lineWidth: 0 });
}

/** Waits until the agent reports the runtime healthy; `state` adds what else to show. */
export async function waitAgentHealthy(
  term: Terminal,
  client: SluiceClient,
  target: { agentName: string; runtime: string; timeoutSeconds: number; hint: string },
  state: (agentOnline: boolean) => Promise<string> = () => Promise.resolve(''),
): Promise<string> {
  const { agentName, runtime, timeoutSeconds } = target;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = '';
  for (;;) {
    const [{ items: agents }, re] = await Promise.all([
      client.call('listAgents'),
      client.call('getRuntimeEnvironment', { params: { name: runtime } }),
    ]);
    const agent = describeRuntime(re, agents).agents.find((a) => a.name === agentName);
    const extra = await state(agent?.online === true);
    // The runtime's own report: an agent that has not read its new runtime yet has none.
    const own = agents
      .find((a) => a.name === agentName)
      ?.health?.runtimes?.find((r) => r.name === runtime);
    if (agent?.online && own?.healthy === true)
      return `agent ${agentName} ${agent.version ?? ''} is online and ${runtime} healthy`;
    const now = `${extra}agent ${agent?.online ? 'online' : 'not connected yet'}${agent?.healthy === false ? `, unhealthy: ${agent.problems.join('; ')}` : ''}`;
    if (now !== last) term.err(term.paint('dim', `      ${now}`));
    last = now;
    if (Date.now() > deadline)
      throw new InputError(
        'SLUICE_RUNNER_NOT_HEALTHY',
        `the agent did not report ${runtime} healthy within ${timeoutSeconds}s (${now})`,
        { hint: target.hint },
      );
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function waitHealthy(
  term: Terminal,
  cluster: RunnerCluster,
  client: SluiceClient,
  settings: RunnerSettings,
  timeoutSeconds: number,
): Promise<string> {
  const ref = {
    kind: 'Deployment',
    namespace: settings.namespace,
    name: agentObjectName(settings.release),
  };
  const firstSeen = new Map<string, number>();
  const pods = async (agentOnline: boolean) => {
    const status = ((await cluster.resources.read(ref))?.['status'] ?? {}) as {
      readyReplicas?: number;
      replicas?: number;
    };
    if (!agentOnline) {
      const running = await cluster.resources
        .list({
          kind: 'Pod',
          namespace: ref.namespace,
          labelSelector: `app.kubernetes.io/name=sluice-agent,app.kubernetes.io/instance=${settings.release}`,
        })
        // A caller who may not list pods waits for the timeout, as before this check.
        .catch(() => []);
      const stuck = unreachableAgentPod(running, firstSeen, Date.now());
      if (stuck !== undefined) throw controlPlaneUnreachable(settings, ref.namespace, stuck);
    }
    return `pods ready ${status.readyReplicas ?? 0}/${status.replicas ?? 0}; `;
  };
  const hint = `kubectl -n ${ref.namespace} describe deployment ${ref.name}; kubectl -n ${ref.namespace} logs deployment/${ref.name}`;
  return waitAgentHealthy(
    term,
    client,
    { agentName: settings.agentName, runtime: settings.values.runtime.name, timeoutSeconds, hint },
    pods,
  );
}

/**
 * What registering `spec` over the stored one changes, field by field (`describeChange`);
 * compared as data: the database may keep the keys in another order (PostgreSQL's jsonb).
 */
export function runtimeChanges(stored: Record<string, unknown>, spec: Record<string, unknown>) {
  const merged = mergePatch(stored, spec);
  if (isDeepStrictEqual(merged, stored)) return [];
  return objectChanges({ spec: stored }, { spec: merged }).map((change) => describeChange(change));
}

function controlPlaneUnreachable(
  settings: RunnerSettings,
  namespace: string,
  pod: { name: string; waitedMs: number },
): InputError {
  const url = settings.values.controlPlane.url;
  return new InputError(
    'SLUICE_RUNNER_CONTROL_PLANE_UNREACHABLE',
    `The agent's pod ${pod.name} has run for ${Math.round(pod.waitedMs / 1000)} s without reaching the Sluice server at ${url}`,
    {
      hint: `Pods in the cluster must reach that URL: run init again with --control-plane-url set to an address they reach (a Service, an ingress, or this machine's address on the nodes' network); kubectl -n ${namespace} logs pod/${pod.name} says why`,
      details: { url, pod: pod.name },
    },
  );
}

/** `runners/<agent>-test`: the pipeline init runs on a new runtime, and delete removes. */
export function testPipelineName(agentName: string): string {
  return `${agentName.slice(0, 58).replace(/-+$/, '')}-test`;
}

async function runTestPipeline(
  term: Terminal,
  client: SluiceClient,
  settings: RunnerSettings,
  image: string,
): Promise<string> {
  const name = testPipelineName(settings.agentName);
  const runtime = settings.values.runtime.name;
  const yamlText = [
    'version: "1.0"',
    'steps:',
    '  hello:',
    '    title: Test the runner',
    `    image: ${JSON.stringify(image)}`,
    `    commands: [${JSON.stringify(`echo "Sluice runner on ${runtime} works"`)}, "uname -a"]`,
    '',
  ].join('\n');
  await client.call('createProject', { body: { name: TEST_PROJECT } }).catch(exists);
  const pipeline = await client
    .call('getPipelineByName', { params: { project: TEST_PROJECT, name } })
    .catch(notFound);
  const id =
    pipeline === undefined
      ? (
          await client.call('createPipeline', {
            params: { project: TEST_PROJECT },
            body: { name, yaml: yamlText },
          })
        ).id
      : (
          await client.call('updatePipeline', {
            params: { pipelineId: pipeline.id },
            body: { yaml: yamlText },
          })
        ).id;
  const build = await client.call('createBuild', {
    params: { pipelineId: id },
    body: { runtimeEnvironment: runtime },
  });
  const code = await followToEnd(term, client, build);
  if (code !== 0)
    throw new StepExit(`the test build ended with exit code ${code}; its log is above`, code);
  return `test build ${build.id} succeeded`;
}

function exists(err: unknown): undefined {
  if (err instanceof ConflictError) return undefined;
  throw err;
}
