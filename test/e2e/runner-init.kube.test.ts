/**
 * `sluice runner init|upgrade|delete` on the real cluster, as a platform team would run them:
 * `--dry-run DIR` writes manifests the API server's own dry run accepts and changes nothing;
 * the wizard at a terminal (tmux) ends with the same manifests as the flags; `init --yes` killed
 * halfway and run again finishes with every object once, the agent in the cluster healthy and
 * the test pipeline's log on the terminal; `upgrade` moves the agent and the runtime's images
 * to another tag, and a rerun of init keeps it (the install's record); and
 * `delete --yes` removes exactly what init and attach created, and nothing else (not the objects
 * of another install of the same release name in another namespace, cluster-scoped ones
 * included).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { KubeResource, ResourceRef } from '@sluice/kube';
import { createNamespace } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import { renderRuntimeInstall } from '@sluice/runtime-spec';
import type { InstallObject } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, makeTempDir, renderChart, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { REPO_ROOT, runSluice, seededDataDir, SLUICE_BIN, startSluice } from './cli-harness.js';
import {
  addHostPathVolume,
  ADMIN_TOKEN,
  buildObjects,
  objectCount,
  prepareBuildCluster,
  startControlPlane,
  TEST_STORAGE_CLASS,
  waitForProbe,
} from './cluster-fixture.js';
import type { ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-init';
const DRY_NS = 'sluice-dry';
const ATTACHED_NS = 'sluice-attached';
/** Another install's namespace, with the same release name as this one's. */
const NEIGHBOUR_NS = 'sluice-neighbour';
const RUNTIME = 'cluster/init';
const AGENT = 'init-agent';
const INSTALL_KINDS = ['Deployment', 'Secret', 'ServiceAccount', 'Role', 'RoleBinding'];

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let kube: KubeResources;
let controlPlaneUrl: string;
let specFile: string;

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-runner-init-');
  await prepareBuildCluster(cluster().kubeConfig);
  const gateway = (cluster().podSubnet ?? '').replace(/\.0\/24$/, '.1');
  plane = await startControlPlane({
    database: { dataDir: await seededDataDir(join(temp.path, 'data')) },
    logPath: join(temp.path, 'server.log'),
  });
  admin = plane.admin;
  controlPlaneUrl = `http://${gateway}:${plane.port}`;
  kube = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster().kubeconfigPath } }),
  );
  await createNamespace(cluster(), DRY_NS);
  // What only this test cluster needs: the images on the node, small pods. No registry: the
  // runtime's images are the defaults init derives (sluice/engine:1, sluice/dind:1), and the
  // engine carries the step image onto each new volume.
  specFile = join(temp.path, 'runtime-spec.yaml');
  writeFileSync(
    specFile,
    JSON.stringify({
      runtimeScheduler: {
        imagePullPolicy: 'Never',
        resources: { requests: { cpu: '50m', memory: '64Mi' } },
        terminationGracePeriodSeconds: 10,
      },
      dockerDaemonScheduler: {
        imagePullPolicy: 'Never',
        defaultDindResources: { requests: { cpu: '100m', memory: '128Mi' } },
        terminationGracePeriodSeconds: 10,
        pvcs: { dind: { volumeSize: '1Gi' } },
      },
    }),
  );
});

after(async () => {
  await plane?.stop();
  await temp?.cleanup();
});

/** The flags every run shares: this cluster, this control plane, what the test cluster needs. */
function baseArgs(namespace: string): string[] {
  return [
    '--kubeconfig',
    cluster().kubeconfigPath,
    '--namespace',
    namespace,
    '--agent-name',
    AGENT,
    '--set-value',
    'runtime.dindHostAlias=true',
    '--set-value',
    'agent.image.pullPolicy=Never',
    '--runtime-spec',
    specFile,
    '--test-image',
    'sluice/busybox:1',
  ];
}

/** Answers for what the wizard asks, as flags. */
function answerArgs(): string[] {
  return [
    '--runtime',
    RUNTIME,
    '--control-plane-url',
    controlPlaneUrl,
    '--storage-class',
    TEST_STORAGE_CLASS,
    '--build-node-selector',
    'kubernetes.io/os=linux',
    '--build-toleration',
    'sluice.io/builds=true:NoSchedule',
    '--no-set-default',
    '--test-pipeline',
  ];
}

const ENV = () => ({
  SLUICE_SERVER: plane.url,
  SLUICE_TOKEN: ADMIN_TOKEN,
  SLUICE_CONFIG: join(temp.path, 'cfg'),
  HTTPS_PROXY: '',
  HTTP_PROXY: '',
});

function manifests(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/** Every object of the install kinds in a namespace, as `Kind/name`. */
async function objectsIn(namespace: string): Promise<string[]> {
  const found: string[] = [];
  for (const kind of INSTALL_KINDS)
    for (const o of await kube.list({ kind, namespace }))
      if (!(kind === 'Secret' && o['type'] === 'kubernetes.io/service-account-token'))
        found.push(`${kind}/${o.metadata.name}`);
  return found.sort();
}

test('init --dry-run writes every manifest; the API server dry run accepts each; nothing changes', async () => {
  const dir = join(temp.path, 'dry');
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
  for (const object of objects) await kube.apply(object, { dryRun: true });
  assert.deepEqual(await objectsIn(DRY_NS), ['ServiceAccount/default'], 'nothing was created');
  const { items } = await admin.call('listRuntimeEnvironments');
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
      join(temp.path, 'dry-warm'),
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
  assert.equal(await kube.read({ kind: 'Namespace', name: namespace }), undefined, 'not created');
});

test('preflight refuses builds no node can take and volumes no StorageClass can make, with the fix', async () => {
  const run = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...baseArgs(DRY_NS),
      '--control-plane-url',
      controlPlaneUrl,
      '--build-node-selector',
      'sluice.io/pool=nowhere',
      '--dry-run',
      join(temp.path, 'dry-refused'),
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

/** Runs init's wizard in tmux, answering each question; resolves to its manifests. */
async function wizardDryRun(dir: string): Promise<Map<string, string>> {
  const session = `sluice-wizard-${process.pid}`;
  const env = Object.entries(ENV())
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const command = `${env} NO_COLOR=1 ${process.execPath} ${SLUICE_BIN} runner init ${baseArgs(DRY_NS).join(' ')} --dry-run ${dir}; echo "exit=$?"; sleep 600`;
  const tmux = (...args: string[]) => spawnSync('tmux', args, { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session, '-S', '-200').stdout;
  assert.equal(
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', command).status,
    0,
  );
  try {
    const answer = async (question: string, keys: string[]) => {
      await waitForProbe(
        `the wizard to ask "${question}"`,
        () => Promise.resolve(screen().includes(question)),
        30_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\nscreen:\n${screen()}`);
      });
      tmux('send-keys', '-t', session, ...keys);
    };
    // The only context is the current one: Enter takes it.
    await answer('Kubernetes context', ['Enter']);
    await answer('Runtime environment name', ['C-u', RUNTIME, 'Enter']);
    await answer("The Sluice server's URL", ['C-u', controlPlaneUrl, 'Enter']);
    // The default image (sluice/engine:1) stays a default: Enter.
    await answer('Image of the agent and the engine', ['Enter']);
    await answer('Warm build caches', ['n', 'Enter']);
    await answer('StorageClass', [TEST_STORAGE_CLASS, 'Enter']);
    await answer('Node selector', ['kubernetes.io/os=linux', 'Enter']);
    await answer('Taints build pods tolerate', ['sluice.io/builds=true:NoSchedule', 'Enter']);
    await answer('default runtime', ['n', 'Enter']);
    await answer('test pipeline', ['y', 'Enter']);
    await waitForProbe(
      'the wizard to end',
      () => Promise.resolve(screen().includes('exit=')),
      60_000,
    );
    assert.match(screen(), /exit=0/, screen());
    // The answers as flags, for the same install without questions.
    const joined = tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200').stdout;
    assert.match(
      joined,
      new RegExp(
        `sluice runner init --yes .*--kube-context \\S+ --namespace ${DRY_NS} --runtime ${RUNTIME.replace('/', '\\/')} .*--storage-class ${TEST_STORAGE_CLASS}`,
      ),
      joined,
    );
  } finally {
    tmux('kill-session', '-t', session);
  }
  return manifests(dir);
}

test('the wizard at a terminal ends with the same manifests as the flags', async () => {
  const fromFlags = manifests(join(temp.path, 'dry'));
  const fromWizard = await wizardDryRun(join(temp.path, 'wizard'));
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
  const valuesFile = join(temp.path, 'helm-values.yaml');
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
  const { items } = await admin.call('listAgents');
  assert.deepEqual(items.find((a) => a.name === 'helm-agent')?.runtimes, ['cluster/helm']);
  const dir = join(temp.path, 'helm-dry');
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

test('init --yes killed halfway, then run again: every object once, agent healthy, test build logged', async () => {
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-1', join(temp.path, 'pv-1'));
  const args = ['runner', 'init', '--yes', ...baseArgs(NS), ...answerArgs()];
  const first = startSluice(args, { env: ENV() });
  await waitForProbe(
    'init to reach its apply step',
    () => Promise.resolve(/\[4\/\d\]/.test(first.stderr())),
    60_000,
  );
  first.child.kill('SIGKILL');
  await first.done;
  const again = await runSluice(args, { env: ENV() });
  assert.equal(again.code, 0, `${again.stderr}\n${again.stdout}`);
  assert.match(again.stderr, /cluster\/init is registered as planned/);
  assert.match(again.stdout, /Sluice runner on cluster\/init works/);
  const id = /Build (bld_\w+)/.exec(again.stderr)?.[1] ?? '';
  await waitForProbe(
    `test build ${id}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, id)) === 0,
  );
  // Air-gapped, on a new volume: no registry on this cluster, yet the test step's image was
  // there (the engine carried it) and the in-dind cleaner, which runs on it too, kept its books.
  const dataRoot = join(temp.path, 'pv-1');
  const repositories = readFileSync(join(dataRoot, 'image/overlay2/repositories.json'), 'utf8');
  assert.ok(repositories.includes('"sluice/busybox:1"'), repositories);
  const books = JSON.parse(readFileSync(join(dataRoot, 'sluice-cleaner/state.json'), 'utf8')) as {
    builds: { id: string }[];
  };
  assert.deepEqual(
    books.builds.map((b) => b.id),
    [id],
  );
  const runtime = await admin.call('getRuntimeEnvironment', { params: { name: RUNTIME } });
  assert.equal(
    (runtime.spec.dockerDaemonScheduler as { dindImage?: string } | undefined)?.dindImage,
    'sluice/dind:1',
    'the dind image follows the agent image sluice/engine:1',
  );
  assert.deepEqual(await objectsIn(NS), [
    'Deployment/sluice-agent',
    'Role/sluice-agent',
    'RoleBinding/sluice-agent',
    'Secret/sluice-agent',
    'ServiceAccount/default',
    'ServiceAccount/sluice-agent',
    'ServiceAccount/sluice-engine',
  ]);
  const { items: agents } = await admin.call('listAgents');
  assert.deepEqual(
    agents.filter((a) => a.name === AGENT).map((a) => [a.online, a.health?.healthy, a.runtimes]),
    [[true, true, [RUNTIME]]],
  );
  const pods = await kube.list({
    kind: 'Pod',
    namespace: NS,
    labelSelector: 'app.kubernetes.io/name=sluice-agent',
  });
  assert.equal(pods.length, 1, 'one agent pod');
  const spec = pods[0]?.['spec'] as { serviceAccountName?: string };
  assert.equal(spec.serviceAccountName, 'sluice-agent');
});

test('init again changes nothing: each step finds its work done', async () => {
  const run = await runSluice(
    ['runner', 'init', '--yes', ...baseArgs(NS), ...answerArgs(), '--no-test-pipeline'],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, / (created|configured)\b/, run.stderr);
  assert.match(run.stderr, /agent init-agent exists/);
  assert.match(run.stderr, /cluster\/init is registered as planned/);
});

test('a failing pipeline on the runtime init made: run-pipeline exits 1, its objects are gone', async () => {
  await createPipelines(admin, 'failing', {
    broken:
      'version: "1.0"\nsteps:\n  broken:\n    image: sluice/busybox:1\n    commands: ["echo about to fail", "exit 3"]\n',
  });
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-fail', join(temp.path, 'pv-fail'));
  const run = await runSluice(['run-pipeline', 'failing/broken', '--runtime', RUNTIME], {
    env: ENV(),
  });
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  assert.ok(run.stdout.includes('[broken] about to fail'), run.stdout);
  const id = /Build (bld_\w+)/.exec(run.stderr)?.[1] ?? '';
  await waitForProbe(
    `build ${id}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, id)) === 0,
  );
});

test("upgrade moves the agent and the runtime's images to another tag, waits for the rollout", async () => {
  const socket = cluster().containerdSocket ?? '';
  for (const image of ['sluice/engine', 'sluice/dind']) {
    const tagged = spawnSync(
      'ctr',
      [
        '--address',
        socket,
        '--namespace',
        'k8s.io',
        'images',
        'tag',
        '--force',
        `docker.io/${image}:1`,
        `docker.io/${image}:1-next`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(tagged.status, 0, tagged.stderr);
  }
  const run = await runSluice(
    [
      'runner',
      'upgrade',
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-n',
      NS,
      '--image-tag',
      '1-next',
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /moved Deployment sluice-init\/sluice-agent/);
  assert.match(run.stderr, /containers\[agent\]\.image: sluice\/engine:1 → sluice\/engine:1-next/);
  assert.match(run.stderr, /moved runtime environment cluster\/init/);
  assert.match(run.stderr, /dindImage: sluice\/dind:1 → sluice\/dind:1-next/);
  const runtime = await admin.call('getRuntimeEnvironment', { params: { name: RUNTIME } });
  assert.equal(
    (runtime.spec.runtimeScheduler as { image?: string } | undefined)?.image,
    'sluice/engine:1-next',
  );
  const pods = await kube.list({
    kind: 'Pod',
    namespace: NS,
    labelSelector: 'app.kubernetes.io/name=sluice-agent',
  });
  const images = pods
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => (p['spec'] as { containers: { image: string }[] }).containers[0]?.image);
  assert.ok(images.includes('sluice/engine:1-next'), images.join(', '));
});

test('init after the upgrade keeps the new tag; its plan lists a new proxy, field by field', async () => {
  const dir = join(temp.path, 'plan-after-upgrade');
  const run = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...baseArgs(NS),
      ...answerArgs(),
      '--http-proxy',
      'http://proxy.internal:3128',
      '--dry-run',
      dir,
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /Starting from the install's recorded settings \(ConfigMap sluice-init\/sluice-install\)/,
  );
  // The dry run moves no resourceVersion: the plan compares the objects themselves.
  assert.match(run.stderr, /update +Deployment sluice-init\/sluice-agent/);
  assert.match(run.stderr, /containers\[agent\]\.env\[HTTP_PROXY\]/);
  // No --image-tag: the upgrade's tag stays, in the plan, the manifests and the runtime.
  assert.doesNotMatch(run.stderr, /containers\[agent\]\.image/);
  // The proxy is the builds' too: the runtime's spec.proxy (engine, dind, steps).
  assert.match(run.stderr, /update +runtime environment cluster\/init/);
  assert.match(run.stderr, /spec\.proxy\S*: .*proxy\.internal:3128/);
  assert.doesNotMatch(run.stderr, /runtimeScheduler\.image/);
  const deployment = [...manifests(dir)].find(([name]) => name.includes('deployment-'))?.[1];
  assert.match(deployment ?? '', /image: sluice\/engine:1-next/);
  assert.match(run.stderr, /unchanged +Role sluice-init\/sluice-agent/);
  // Its Secret holds a placeholder, but the install keeps the agent's token: not an update.
  assert.match(run.stderr, /unchanged +Secret sluice-init\/sluice-agent \(the agent token\)/);
});

test('the agent pod stopped mid-build (SIGTERM, drain): the build ends success, its objects go', async () => {
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-drain', join(temp.path, 'pv-drain'));
  const started = await runSluice(
    ['run-pipeline', `runners/${AGENT}-test`, '--runtime', RUNTIME, '--detach'],
    { env: ENV() },
  );
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  await waitForProbe(`build ${id} running`, async () => {
    const build = await admin.call('getBuild', { params: { buildId: id } });
    return build.timing.dispatchedAt !== undefined;
  });
  const selector = 'app.kubernetes.io/name=sluice-agent';
  const [pod] = await kube.list({ kind: 'Pod', namespace: NS, labelSelector: selector });
  assert.ok(pod !== undefined);
  await kube.delete({ kind: 'Pod', namespace: NS, name: pod.metadata.name });
  const ended = await waitForProbe(`build ${id} to end`, async () => {
    const build = await admin.call('getBuild', { params: { buildId: id } });
    return build.finishedAt === null ? undefined : build;
  });
  assert.equal(ended.status, 'success', ended.reason ?? '');
  await waitForProbe(
    `build ${id}'s objects deleted by the agent's next pod`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, id)) === 0,
  );
});

/** The admin kubeconfig with a second context, "other", standing for another cluster. */
function twoContextKubeconfig(): { path: string; home: string } {
  const config = parseYaml(readFileSync(cluster().kubeconfigPath, 'utf8')) as {
    contexts: { name: string; context: Record<string, unknown> }[];
    'current-context': string;
  };
  const [home] = config.contexts;
  assert.ok(home !== undefined);
  config.contexts.push({ name: 'other', context: { ...home.context } });
  const path = join(temp.path, 'two-contexts.kubeconfig');
  writeFileSync(path, JSON.stringify(config));
  return { path, home: home.name };
}

test('attach lets the agent serve a runtime of another kube context; a build runs there', async () => {
  const { path, home } = twoContextKubeconfig();
  const run = await runSluice(
    [
      'runner',
      'attach',
      '--kubeconfig',
      path,
      '--kube-context',
      'other',
      '--agent-kube-context',
      home,
      '--namespace',
      NS,
      '--agent-name',
      AGENT,
      '--build-namespace',
      ATTACHED_NS,
      '--runtime',
      'cluster/attached',
      // The agent's pods reach this API server through the kubernetes Service.
      '--api-server-url',
      'https://10.96.0.1:443',
      '--control-plane-url',
      controlPlaneUrl,
      '--storage-class',
      TEST_STORAGE_CLASS,
      '--runtime-spec',
      specFile,
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  const { items: agents } = await admin.call('listAgents');
  const agent = agents.find((a) => a.name === AGENT);
  assert.deepEqual(agent?.runtimes, [RUNTIME, 'cluster/attached']);
  assert.deepEqual(agent?.health?.runtimes?.map((r) => [r.name, r.healthy]).sort(), [
    ['cluster/attached', true],
    [RUNTIME, true],
  ]);
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-2', join(temp.path, 'pv-2'));
  const build = await runSluice(
    ['run-pipeline', `runners/${AGENT}-test`, '--runtime', 'cluster/attached'],
    { env: ENV() },
  );
  assert.equal(build.code, 0, `${build.stdout}\n${build.stderr}`);
  assert.match(build.stdout, /Sluice runner on cluster\/init works/);
  const id = /Build (bld_\w+)/.exec(build.stderr)?.[1] ?? '';
  await waitForProbe(
    `build ${id}'s objects deleted from ${ATTACHED_NS}`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, ATTACHED_NS, id)) === 0,
  );
});

/**
 * Another install of the same (default) release name in a namespace of its own, with warm volumes
 * (cluster-scoped objects and a namespace of its own): its objects as the runtime chart renders
 * them, without the workloads, which are not what delete chooses by.
 */
async function applyNeighbourInstall(): Promise<ResourceRef[]> {
  const objects = renderRuntimeInstall({
    release: 'sluice',
    namespace: NEIGHBOUR_NS,
    values: {
      controlPlane: { url: controlPlaneUrl },
      runtime: { name: 'cluster/neighbour', namespace: NEIGHBOUR_NS, createNamespace: true },
      agent: { token: 'neighbour' },
      volumes: { enabled: true },
    },
  }).filter((o) => o.kind !== 'Deployment' && o.kind !== 'DaemonSet');
  // Its own namespace, as init makes it (the chart leaves that to `helm --create-namespace`).
  const labels = objects[0]?.metadata.labels ?? {};
  const namespace: InstallObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NEIGHBOUR_NS, labels },
  };
  const ordered = [namespace, ...objects];
  for (const object of ordered) await kube.apply(object);
  return ordered.map((o) => ({
    kind: o.kind,
    name: o.metadata.name,
    namespace: o.metadata.namespace,
  }));
}

test('delete --yes lists and removes exactly what init and attach created, and nothing else', async (t) => {
  const neighbour = await applyNeighbourInstall();
  t.after(async () => {
    for (const object of [...neighbour].reverse()) await kube.delete(object).catch(() => undefined);
  });
  const elsewhere = async () => [...(await objectsIn(DRY_NS)), ...(await objectsIn('default'))];
  const before = await elsewhere();
  // The kubeconfig attach used: delete reaches the attached runtime's cluster through its context.
  const { path } = twoContextKubeconfig();
  const run = await runSluice(
    ['runner', 'delete', '--yes', '--kubeconfig', path, '-n', NS, '--agent-name', AGENT],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  for (const line of [
    'from context other (runtime cluster/attached, attached):',
    `ServiceAccount ${ATTACHED_NS}/`,
    `Role ${ATTACHED_NS}/`,
    `Namespace ${ATTACHED_NS}`,
    'runtime environment cluster/attached (attached)',
    `Namespace ${ATTACHED_NS} deleted`,
    `Deployment ${NS}/sluice-agent`,
    `Role ${NS}/sluice-agent`,
    `RoleBinding ${NS}/sluice-agent`,
    `Secret ${NS}/sluice-agent`,
    `ConfigMap ${NS}/sluice-install`,
    `ServiceAccount ${NS}/sluice-agent`,
    `ServiceAccount ${NS}/sluice-engine`,
    `Namespace ${NS}`,
    `agent ${AGENT}`,
    `runtime environment ${RUNTIME}`,
    `keeps the test pipeline runners/${AGENT}-test: its builds are the runtime's history`,
    // Delete returns once its namespace is gone, not while it is Terminating.
    `Namespace ${NS} deleted`,
  ])
    assert.ok(run.stderr.includes(line), `${line} listed:\n${run.stderr}`);
  await waitForProbe(
    `namespace ${NS} gone`,
    async () => (await kube.read({ kind: 'Namespace', name: NS })) === undefined,
    120_000,
  );
  assert.deepEqual(await elsewhere(), before, 'nothing else removed');
  assert.ok(!run.stderr.includes(NEIGHBOUR_NS), `the other install is not listed:\n${run.stderr}`);
  for (const object of neighbour)
    assert.ok(
      (await kube.read(object)) !== undefined,
      `${object.kind} ${object.name} of the other install is still there`,
    );
  assert.equal(
    await kube.read({ kind: 'Namespace', name: DRY_NS }).then((n) => n?.metadata.name),
    DRY_NS,
  );
  const { items: agents } = await admin.call('listAgents');
  assert.ok(!agents.some((a) => a.name === AGENT));
  const { items: runtimes } = await admin.call('listRuntimeEnvironments');
  assert.ok(!runtimes.some((re) => re.name === RUNTIME || re.name === 'cluster/attached'));
  assert.equal(await kube.read({ kind: 'Namespace', name: ATTACHED_NS }), undefined);
});

test('init with a control-plane URL pods cannot reach stops after 20 s naming it; the agent pod is not Ready', async (t) => {
  const namespace = 'sluice-unreachable';
  // This machine on the nodes' network, at a port nothing listens on.
  const unreachable = controlPlaneUrl.replace(/:\d+$/, ':1');
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
  const [pod] = await kube.list({
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
