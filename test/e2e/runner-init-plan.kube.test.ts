/**
 * `sluice runner init` before it changes anything, on the real cluster: `--dry-run DIR` writes
 * manifests the API server's own dry run accepts and changes nothing (with `--warm-volumes` into
 * a namespace not made yet too); preflight refuses what would leave every build stuck, with the
 * fix; the wizard at a terminal (tmux) ends with the same manifests as the flags;
 * `--generate-helm-values-file` gives the chart what renders init's objects; and an init whose
 * control-plane URL pods cannot reach stops in seconds, naming it. The live install's lifecycle
 * is runner-init.kube.test.ts.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { KubeResource } from '@sluice/kube';
import { CLUSTER_IMAGES, renderChart, useKubernetes } from '@sluice/testkit';
import { REPO_ROOT, runSluice } from './cli-harness.js';
import { TEST_STORAGE_CLASS } from './cluster-fixture.js';
import {
  AGENT,
  answerArgs as initAnswers,
  baseArgs as initArgs,
  initEnv,
  manifests,
  objectsIn,
  RUNTIME,
  runWizard,
  setUpInit,
  tearDownInit,
} from './runner-init.test-support.js';
import type { InitContext } from './runner-init.test-support.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const DRY_NS = 'sluice-dry';

let ctx: InitContext;
const ENV = () => initEnv(ctx);
const baseArgs = (namespace: string) => initArgs(ctx, namespace);
const answerArgs = () => initAnswers(ctx);

before(async () => {
  await cluster.ready();
  ctx = await setUpInit(cluster(), 'sluice-runner-init-plan-', [DRY_NS]);
});

after(() => tearDownInit(ctx));

test('init --dry-run writes every manifest; the API server dry run accepts each; nothing changes', async () => {
  const dir = join(ctx.temp.path, 'dry');
  const run = await runSluice(
    ['runner', 'init', '--yes', ...baseArgs(DRY_NS), ...answerArgs(), '--dry-run', dir],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /✔ API server .* answers/);
  assert.match(run.stderr, new RegExp(`✔ StorageClass ${TEST_STORAGE_CLASS} exists .*binding`));
  assert.match(run.stderr, /create\s+Deployment sluice-dry\/sluice-agent/);
  const files = manifests(dir);
  assert.ok(files.has('runtime-environment.yaml'), [...files.keys()].join(', '));
  const objects = [...files]
    .filter(([name]) => name !== 'runtime-environment.yaml')
    .map(([, text]) => parseYaml(text) as KubeResource);
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'ConfigMap',
    'Deployment',
    'Namespace',
    'Role',
    'RoleBinding',
    'Secret',
    'ServiceAccount',
    'ServiceAccount',
  ]);
  for (const object of objects) await ctx.kube.apply(object, { dryRun: true });
  assert.deepEqual(await objectsIn(ctx, DRY_NS), ['ServiceAccount/default'], 'nothing was created');
  const { items } = await ctx.admin.call('listRuntimeEnvironments');
  assert.ok(!items.some((re) => re.name === RUNTIME), 'nothing was registered');
});

test('init --warm-volumes --dry-run into a namespace not made yet plans it before its objects', async () => {
  const namespace = 'sluice-warm-new';
  const run = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...baseArgs(namespace),
      ...answerArgs(),
      '--warm-volumes',
      '--dry-run',
      join(ctx.temp.path, 'dry-warm'),
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`create\\s+Namespace ${namespace}\\n`));
  for (const object of [
    `DaemonSet ${namespace}/sluice-volume-agent`,
    `Deployment ${namespace}/sluice-provisioner`,
  ])
    assert.match(run.stderr, new RegExp(`create \\(with its namespace\\) +${object}\\n`));
  assert.match(run.stderr, /create\s+StorageClass /);
  assert.equal(
    await ctx.kube.read({ kind: 'Namespace', name: namespace }),
    undefined,
    'not created',
  );
});

test('preflight refuses builds no node can take and volumes no StorageClass can make, with the fix', async () => {
  const run = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...baseArgs(DRY_NS),
      '--control-plane-url',
      ctx.controlPlaneUrl,
      '--build-node-selector',
      'sluice.io/pool=nowhere',
      '--dry-run',
      join(ctx.temp.path, 'dry-refused'),
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stderr,
    /✖ No Ready node has the labels of the build node selector sluice\.io\/pool=nowhere/,
  );
  assert.match(run.stderr, /kubectl label node NAME sluice\.io\/pool=nowhere/);
  assert.match(run.stderr, /✖ No StorageClass for the builds' volumes/);
  assert.match(run.stderr, /pass --storage-class NAME .* or --warm-volumes/);
  assert.match(run.stderr, /Preflight failed/);
});

/** Runs init's wizard in tmux on a namespace with no install, answering each question. */
async function wizardDryRun(dir: string): Promise<Map<string, string>> {
  const joined = await runWizard(
    ctx,
    [...baseArgs(DRY_NS), '--dry-run', dir],
    [
      // The only context is the current one: Enter takes it.
      ['Kubernetes context', ['Enter']],
      ['Runtime environment name', ['C-u', RUNTIME, 'Enter']],
      ["The Sluice server's URL", ['C-u', ctx.controlPlaneUrl, 'Enter']],
      // The default image (sluice/engine:1) stays a default: Enter.
      ['Image of the agent and the engine', ['Enter']],
      ['Warm build caches', ['n', 'Enter']],
      ['StorageClass', [TEST_STORAGE_CLASS, 'Enter']],
      ['Node selector', ['kubernetes.io/os=linux', 'Enter']],
      ['Taints build pods tolerate', ['sluice.io/builds=true:NoSchedule', 'Enter']],
      ['default runtime', ['n', 'Enter']],
      ['test pipeline', ['y', 'Enter']],
    ],
  );
  // The answers as flags, for the same install without questions.
  assert.match(
    joined,
    new RegExp(
      `sluice runner init --yes .*--kube-context \\S+ --namespace ${DRY_NS} --runtime ${RUNTIME.replace('/', '\\/')} .*--storage-class ${TEST_STORAGE_CLASS}`,
    ),
    joined,
  );
  return manifests(dir);
}

test('the wizard at a terminal ends with the same manifests as the flags', async () => {
  const fromFlags = manifests(join(ctx.temp.path, 'dry'));
  const fromWizard = await wizardDryRun(join(ctx.temp.path, 'wizard'));
  assert.deepEqual([...fromWizard.keys()].sort(), [...fromFlags.keys()].sort());
  for (const [name, text] of fromFlags) assert.equal(fromWizard.get(name), text, name);
});

/** An object without what differs by design between Helm and init: who manages it, the token. */
function comparable(object: KubeResource): KubeResource {
  const copy = structuredClone(object);
  const strip = (labels: Record<string, string> | undefined) => {
    delete labels?.['app.kubernetes.io/managed-by'];
    delete labels?.['app.kubernetes.io/version'];
  };
  strip(copy.metadata.labels);
  strip(
    (copy['spec'] as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)
      ?.template?.metadata?.labels,
  );
  if (copy.kind === 'Secret') delete copy['stringData'];
  return copy;
}

test('--generate-helm-values-file: the chart renders from it the objects init would apply', async () => {
  const valuesFile = join(ctx.temp.path, 'helm-values.yaml');
  const flags = [...baseArgs(DRY_NS), ...answerArgs(), '--runtime', 'cluster/helm'];
  flags.splice(flags.indexOf(AGENT), 1, 'helm-agent');
  const run = await runSluice(
    ['runner', 'init', '--yes', ...flags, '--generate-helm-values-file', valuesFile],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /helm install sluice charts\/sluice-runtime -n sluice-dry/);
  const values = parseYaml(readFileSync(valuesFile, 'utf8')) as { agent: { token: string } };
  assert.match(values.agent.token, /^slu_a_/, 'the new agent token is in the values');
  const { items } = await ctx.admin.call('listAgents');
  assert.deepEqual(items.find((a) => a.name === 'helm-agent')?.runtimes, ['cluster/helm']);
  const dir = join(ctx.temp.path, 'helm-dry');
  const dry = await runSluice(['runner', 'init', '--yes', ...flags, '--dry-run', dir], {
    env: ENV(),
  });
  assert.equal(dry.code, 0, dry.stderr);
  const fromInit = [...manifests(dir)]
    .filter(([name]) => name !== 'runtime-environment.yaml')
    .map(([, text]) => parseYaml(text) as KubeResource)
    // Init's own: the namespace (helm --create-namespace's) and the install's record (a chart
    // install is Helm's to record).
    .filter((o) => !(o.kind === 'Namespace' && o.metadata.name === DRY_NS))
    .filter((o) => o.kind !== 'ConfigMap');
  const chart = await renderChart(`${REPO_ROOT}charts/sluice-runtime`, {
    release: 'sluice',
    namespace: DRY_NS,
    values,
  });
  assert.ok(chart.ok, chart.ok ? '' : chart.error);
  const key = (o: KubeResource) => `${o.kind}/${o.metadata.name}`;
  const sorted = (list: KubeResource[]) =>
    list.map(comparable).sort((a, b) => key(a).localeCompare(key(b)));
  assert.deepEqual(sorted(chart.objects as KubeResource[]), sorted(fromInit));
});

test('init with a control-plane URL pods cannot reach stops after 20 s naming it; the agent pod is not Ready', async (t) => {
  const namespace = 'sluice-unreachable';
  // This machine on the nodes' network, at a port nothing listens on.
  const unreachable = ctx.controlPlaneUrl.replace(/:\d+$/, ':1');
  const common = ['--kubeconfig', cluster().kubeconfigPath, '-n', namespace];
  t.after(async () => {
    const removed = await runSluice(
      ['runner', 'delete', '--yes', ...common, '--agent-name', 'unreachable-agent'],
      { env: ENV() },
    );
    assert.equal(removed.code, 0, removed.stderr);
  });
  const started = Date.now();
  const run = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...common,
      '--agent-name',
      'unreachable-agent',
      '--runtime',
      'cluster/unreachable',
      '--control-plane-url',
      unreachable,
      '--storage-class',
      TEST_STORAGE_CLASS,
      '--set-value',
      'agent.image.pullPolicy=Never',
      '--no-test-pipeline',
    ],
    { env: ENV() },
  );
  t.diagnostic(`init ended ${Math.round((Date.now() - started) / 1000)} s after it started`);
  assert.notEqual(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(
      `The agent's pod sluice-agent-\\S+ has run for \\d+ s without reaching the Sluice server at ${unreachable.replaceAll('.', '\\.')}`,
    ),
  );
  assert.match(run.stderr, /run init again with --control-plane-url set to an address they reach/);
  const [pod] = await ctx.kube.list({
    kind: 'Pod',
    namespace,
    labelSelector: 'app.kubernetes.io/name=sluice-agent',
  });
  const statuses = (pod?.['status'] as { containerStatuses?: { ready: boolean }[] })
    .containerStatuses;
  assert.deepEqual(
    statuses?.map((c) => c.ready),
    [false],
    'not Ready while it cannot reach the control plane',
  );
});
