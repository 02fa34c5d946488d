/**
 * `sluice runner init`: from zero to a runner in a cluster. The settings come from flags, a
 * values file, `--set-value` and (on a terminal, without `--yes`) the wizard's questions; then
 * preflight checks, a plan of every object and registration (each checked by the API server's
 * server-side dry run), and the steps. Each step looks at what exists before it acts, so a run
 * that was killed or failed is finished by running the same command again: nothing is made
 * twice. `--dry-run DIR` stops after the plan with every manifest written to DIR;
 * `--generate-helm-values-file FILE` registers the runtime and the agent and writes the chart
 * values for `helm install` instead of applying the objects.
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import { describeChange, listKubeContexts } from '@sluice/kube';
import type { SluiceClient } from '@sluice/protocol';
import { validateRuntimeSpec } from '@sluice/runtime-spec';
import type { InstallObject } from '@sluice/runtime-spec';
import { yaml } from '../lazy-yaml.js';
import type { Terminal } from '../ui/terminal.js';
import { serverClient } from '../commands/server-resources.js';
import type { ServerOptions } from '../commands/server-resources.js';
import { connectCluster, preflight } from './runner-cluster.js';
import type { RunnerCluster } from './runner-cluster.js';
import { equivalentCommand } from './equivalent-command.js';
import { installRecordName, readInstallRecord } from './install-record.js';
import { describeObject, installObjects, runtimeSpecFor } from './runner-install.js';
import { defaultKubeconfig, resolveRunnerSettings, RUNNER_DEFAULTS } from './runner-settings.js';
import { printChecks, runSteps } from './runner-progress.js';
import {
  installSteps,
  notFound,
  runtimeChanges,
  TEST_PROJECT,
  testPipelineName,
} from './runner-steps.js';
import type {
  InstallRecord,
  RunnerFlags,
  RunnerSettings,
  WizardAnswers,
} from './runner-settings.js';
import { processEnvironment } from '../config.js';

export interface RunnerInitOptions extends ServerOptions, RunnerFlags {
  yes?: boolean;
  dryRun?: string;
  generateHelmValuesFile?: string;
  testImage: string;
  /** Seconds to wait for the agent to report healthy. */
  timeout: number;
}

/** The questions of a person at a terminal; injected, so a test can answer them. */
export interface Wizard {
  /** Asks what the flags and files left open. */
  ask(open: WizardContext): Promise<WizardAnswers>;
  confirm(question: string): Promise<boolean>;
}

export interface WizardContext {
  flags: RunnerFlags;
  contexts: string[];
  currentContext: string | undefined;
  /** The CLI's own server URL: the control plane's URL unless pods reach it otherwise. */
  serverUrl: string;
  env: NodeJS.ProcessEnv;
  /**
   * The record of the install in that context and namespace, if there is one: a rerun's
   * questions default to what it holds, so pressing Enter keeps the install as it is.
   */
  recorded: (
    kubeContext: string | undefined,
    namespace: string,
  ) => Promise<InstallRecord | undefined>;
}

/** What the install's one Secret and one ConfigMap are, in the plan. */
const OBJECT_NOTES: Record<string, string> = {
  Secret: ' (the agent token)',
  ConfigMap: " (the install's recorded settings)",
};

/** The Secret stands in for the token in a dry run; the real one is made at install. */
const TOKEN_PLACEHOLDER = 'made-by-sluice-runner-init';

export async function runnerInit(
  term: Terminal,
  options: RunnerInitOptions,
  wizard: Wizard | undefined,
): Promise<number> {
  const { settings, cluster, recorded } = await settingsOf(options, wizard);
  checkRuntimeSpec(settings, options.runtimeSpec);
  term.err(
    term.paint(
      'bold',
      `Runner ${settings.agentName} for runtime ${settings.values.runtime.name}: context ${cluster.contextName}, namespace ${settings.namespace}`,
    ),
  );
  // What the answers settled, as flags: the same install, scripted.
  if (wizard !== undefined)
    term.err(
      `The same install without questions:\n  ${equivalentCommand(settings, cluster.contextName, options)}`,
    );
  if (recorded)
    term.err(
      `Starting from the install's recorded settings (ConfigMap ${settings.namespace}/${installRecordName(settings.release)}): the flags given change them, the rest stay.`,
    );
  term.err('Preflight checks:');
  if (!printChecks(term, await preflight(cluster, settings))) {
    term.err(
      term.paint('red', 'Preflight failed: fix what is marked ✖ and run the same command again.'),
    );
    return 1;
  }
  const client = serverClient(options);
  const objects = installObjects(settings, TOKEN_PLACEHOLDER, {
    record: options.generateHelmValuesFile === undefined,
  });
  await printPlan(term, cluster, client, settings, objects);
  if (options.dryRun !== undefined) {
    const count = writeManifests(options.dryRun, settings, objects);
    term.err(`Dry run: ${count} manifests written to ${options.dryRun}; nothing was changed.`);
    return 0;
  }
  if (wizard !== undefined && !(await wizard.confirm('Install the runner as planned?'))) {
    term.err('Nothing was changed.');
    return 1;
  }
  const done =
    options.generateHelmValuesFile === undefined
      ? `Runner ready: builds on runtime ${settings.values.runtime.name} run in namespace ${settings.values.runtime.namespace}. See it: sluice runner info`
      : undefined;
  return runSteps(term, installSteps(term, cluster, client, settings, options), done);
}

/** The settings, starting from the install's record when it has one, and the cluster they name. */
async function settingsOf(
  options: RunnerInitOptions,
  wizard: Wizard | undefined,
): Promise<{ settings: RunnerSettings; cluster: RunnerCluster; recorded: boolean }> {
  const env = processEnvironment();
  const kubeconfig = options.kubeconfig ?? defaultKubeconfig(env);
  const { names, current } = listKubeContexts(kubeconfig);
  const release = options.release ?? RUNNER_DEFAULTS.release;
  // Read once per context and namespace: by the wizard for its defaults, then for the settings.
  const records = new Map<string, Promise<InstallRecord | undefined>>();
  const recorded = (kubeContext: string | undefined, namespace: string) => {
    const key = `${kubeContext ?? ''}\0${namespace}`;
    let record = records.get(key);
    if (record === undefined) {
      record = readInstallRecord(connectCluster(kubeconfig, kubeContext), namespace, release).catch(
        (err: unknown) => {
          // A cluster that cannot be read is preflight's to report, with its fix.
          if (err instanceof InputError) throw err;
          return undefined;
        },
      );
      records.set(key, record);
    }
    return record;
  };
  const answers =
    wizard === undefined
      ? {}
      : await wizard.ask({
          flags: options,
          contexts: names,
          currentContext: current,
          serverUrl: options.server,
          env,
          recorded,
        });
  const contextName = options.kubeContext ?? answers.kubeContext ?? current ?? 'cluster';
  const cluster = connectCluster(kubeconfig, options.kubeContext ?? answers.kubeContext);
  const stored = await recorded(
    options.kubeContext ?? answers.kubeContext,
    options.namespace ?? answers.namespace ?? RUNNER_DEFAULTS.namespace,
  );
  const settings = resolveRunnerSettings(options, answers, {
    contextName,
    controlPlaneUrl: options.server,
    env,
    ...(stored === undefined ? {} : { stored }),
  });
  return { settings, cluster, recorded: stored !== undefined };
}

/**
 * The runtime spec init would register, checked as the server will check it: a typo in
 * `--runtime-spec` fails the dry run too, not the registration step.
 * @throws InputError `SLUICE_RUNNER_SETTINGS_INVALID` naming each field.
 */
export function checkRuntimeSpec(settings: RunnerSettings, file: string | undefined): void {
  const checked = validateRuntimeSpec(runtimeSpecFor(settings));
  if (checked.ok) return;
  const from = file === undefined ? 'the runtime spec' : `--runtime-spec ${file}`;
  const problems = checked.issues.map(
    (issue) => `${from}: ${issue.path.join('.') || '(the spec)'}: ${issue.message}`,
  );
  throw new InputError(
    'SLUICE_RUNNER_SETTINGS_INVALID',
    `The runner's settings have ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`,
    {
      hint: 'Fix each field; packages/runtime-spec/README.md describes the runtime spec',
      details: { problems },
    },
  );
}

type Action = 'create' | 'update' | 'unchanged';

/** What the install would do to each object, as the API server's dry run says. */
async function planObjects(
  cluster: RunnerCluster,
  objects: InstallObject[],
): Promise<
  { object: InstallObject; action: Action | 'create (with its namespace)'; changes: string[] }[]
> {
  const missing = new Set<string>();
  const plan = [];
  for (const object of objects) {
    const ns = object.metadata.namespace;
    if (ns !== undefined && missing.has(ns)) {
      plan.push({ object, action: 'create (with its namespace)' as const, changes: [] });
      continue;
    }
    if (
      object.kind === 'Namespace' &&
      (await cluster.resources.read({ kind: 'Namespace', name: object.metadata.name }))
    ) {
      plan.push({ object, action: 'unchanged' as const, changes: [] });
      continue;
    }
    const planned = await cluster.resources.planApply(object);
    const { result } = planned;
    if (object.kind === 'Namespace' && result === 'created') missing.add(object.metadata.name);
    // The plan's Secret holds a placeholder: the install keeps the token an agent already has.
    const changes =
      object.kind === 'Secret'
        ? planned.changes.filter((change) => !/^(data|stringData)\b/.test(change.path))
        : planned.changes;
    const action: Action =
      result === 'created' ? 'create' : changes.length > 0 ? 'update' : 'unchanged';
    // The record's text repeats the settings whose effects the other lines show.
    const shown = object.kind === 'ConfigMap' ? [] : changes;
    plan.push({ object, action, changes: shown.map((change) => describeChange(change)) });
  }
  return plan;
}

async function printPlan(
  term: Terminal,
  cluster: RunnerCluster,
  client: SluiceClient,
  settings: RunnerSettings,
  objects: InstallObject[],
): Promise<void> {
  term.err(`Plan (checked by the API server's dry run):`);
  const plan = await planObjects(cluster, objects);
  const width = Math.max(9, ...plan.map(({ action }) => action.length));
  for (const { object, action, changes } of plan) {
    const note = OBJECT_NOTES[object.kind] ?? '';
    term.err(`  ${action.padEnd(width)}  ${describeObject(object)}${note}`);
    // What changes, field by field: an update is never a surprise.
    for (const change of changes)
      term.err(term.paint('dim', `  ${' '.repeat(width)}    ${change}`));
  }
  const runtime = settings.values.runtime.name;
  const existing = await client
    .call('getRuntimeEnvironment', { params: { name: runtime } })
    .catch(notFound);
  const changes =
    existing === undefined
      ? []
      : runtimeChanges(existing.spec, runtimeSpecFor(settings, { asPatch: true }));
  const runtimeAction =
    existing === undefined ? 'register' : changes.length > 0 ? 'update' : 'unchanged';
  term.err(
    `  ${runtimeAction.padEnd(width)}  runtime environment ${runtime}${settings.setDefault ? ' (account default)' : ''}`,
  );
  for (const change of changes) term.err(term.paint('dim', `  ${' '.repeat(width)}    ${change}`));
  const { items } = await client.call('listAgents');
  const agent = items.find((a) => a.name === settings.agentName);
  term.err(
    `  ${(agent === undefined ? 'register' : 'keep').padEnd(width)}  agent ${settings.agentName}`,
  );
  if (settings.testPipeline)
    term.err(
      `  ${'run'.padEnd(width)}  test pipeline ${TEST_PROJECT}/${testPipelineName(settings.agentName)}`,
    );
}

/** Every manifest as a file, in apply order, and the runtime environment as `sluice apply -f` takes it. */
function writeManifests(dir: string, settings: RunnerSettings, objects: InstallObject[]): number {
  mkdirSync(dir, { recursive: true });
  const doc = (value: unknown) => yaml().stringify(value, { lineWidth: 0 });
  objects.forEach((object, i) => {
    const file = `${String(i + 1).padStart(2, '0')}-${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
    writeFileSync(join(dir, file), doc(object));
  });
  writeFileSync(
    join(dir, 'runtime-environment.yaml'),
    doc({ name: settings.values.runtime.name, spec: runtimeSpecFor(settings) }),
  );
  return objects.length + 1;
}
