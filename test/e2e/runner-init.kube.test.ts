/**
 * `sluice runner init|upgrade|attach|delete` on the real cluster, as a platform team would run
 * them: `init --yes` killed halfway and run again finishes with every object once, the agent in
 * the cluster healthy and the test pipeline's log on the terminal, and a rerun changes nothing;
 * `upgrade` moves the agent and the runtime's images to another tag, and a rerun of init keeps
 * it (the install's record), and so does the wizard, whose defaults are the record's; the agent
 * pod stopped mid-build drains it; `attach` gives the agent
 * a runtime of another kube context, with a warm pool of its own there; and `delete --yes`
 * removes exactly what init and attach
 * created, and nothing else (not the objects of another install of the same release name in
 * another namespace, cluster-scoped ones included). Plans and refusals: runner-init-plan.kube.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLUSTER_IMAGES, useKubernetes } from '@sluice/testkit';
import { runSluice, startSluice } from './cli-harness.js';
import {
  addHostPathVolume,
  buildObjects,
  objectCount,
  TEST_STORAGE_CLASS,
  waitForProbe,
} from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';
import {
  AGENT,
  answerArgs as initAnswers,
  baseArgs as initArgs,
  initEnv,
  manifests,
  objectsIn,
  RUNTIME,
  applyNeighbourInstall,
  runWizard,
  setUpInit,
  tearDownInit,
  runTestPipeline,
  twoContextKubeconfig,
  warmPoolPods,
} from './runner-init.test-support.js';
import type { InitContext } from './runner-init.test-support.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-init';
/** A namespace of the user's, which delete must leave alone. */
const BYSTANDER_NS = 'sluice-bystander';
const ATTACHED_NS = 'sluice-attached';
/** Another install's namespace, with the same release name as this one's. */
const NEIGHBOUR_NS = 'sluice-neighbour';

let ctx: InitContext;
const ENV = () => initEnv(ctx);
const baseArgs = (namespace: string) => initArgs(ctx, namespace);
const answerArgs = () => initAnswers(ctx);

before(async () => {
  await cluster.ready();
  ctx = await setUpInit(cluster(), 'sluice-runner-init-', [BYSTANDER_NS]);
});

after(() => tearDownInit(ctx));

test('init --yes killed halfway, then run again: every object once, agent healthy, test build logged', async () => {
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-1', join(ctx.temp.path, 'pv-1'));
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
  const dataRoot = join(ctx.temp.path, 'pv-1');
  const repositories = readFileSync(join(dataRoot, 'image/overlay2/repositories.json'), 'utf8');
  assert.ok(repositories.includes('"sluice/busybox:1"'), repositories);
  const books = JSON.parse(readFileSync(join(dataRoot, 'sluice-cleaner/state.json'), 'utf8')) as {
    builds: { id: string }[];
  };
  assert.deepEqual(
    books.builds.map((b) => b.id),
    [id],
  );
  const runtime = await ctx.admin.call('getRuntimeEnvironment', { params: { name: RUNTIME } });
  assert.equal(
    (runtime.spec.dockerDaemonScheduler as { dindImage?: string } | undefined)?.dindImage,
    'sluice/dind:1',
    'the dind image follows the agent image sluice/engine:1',
  );
  assert.deepEqual(await objectsIn(ctx, NS), [
    'Deployment/sluice-agent',
    'Role/sluice-agent',
    'RoleBinding/sluice-agent',
    'Secret/sluice-agent',
    'ServiceAccount/default',
    'ServiceAccount/sluice-agent',
    'ServiceAccount/sluice-engine',
  ]);
  const { items: agents } = await ctx.admin.call('listAgents');
  assert.deepEqual(
    agents.filter((a) => a.name === AGENT).map((a) => [a.online, a.health?.healthy, a.runtimes]),
    [[true, true, [RUNTIME]]],
  );
  const pods = await ctx.kube.list({
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
  await createPipelines(ctx.admin, 'failing', {
    broken:
      'version: "1.0"\nsteps:\n  broken:\n    image: sluice/busybox:1\n    commands: ["echo about to fail", "exit 3"]\n',
  });
  await addHostPathVolume(cluster().kubeConfig, 'sluice-init-fail', join(ctx.temp.path, 'pv-fail'));
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
  const runtime = await ctx.admin.call('getRuntimeEnvironment', { params: { name: RUNTIME } });
  assert.equal(
    (runtime.spec.runtimeScheduler as { image?: string } | undefined)?.image,
    'sluice/engine:1-next',
  );
  const pods = await ctx.kube.list({
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
  const dir = join(ctx.temp.path, 'plan-after-upgrade');
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

test("init's wizard on the install: each default is the install's, so Enter keeps it; an answer wins", async () => {
  const dir = join(ctx.temp.path, 'wizard-rerun');
  const screen = await runWizard(
    ctx,
    [...baseArgs(NS), '--dry-run', dir],
    [
      ['Kubernetes context', ['Enter']],
      ['Runtime environment name', ['Enter']],
      ["The Sluice server's URL", ['Enter']],
      ['Image of the agent and the engine', ['Enter']],
      ['Warm build caches', ['Enter']],
      ['StorageClass', ['Enter']],
      // The one change: `-` for no node selector, where the install has one.
      ['Node selector', ['-', 'Enter']],
      ['Taints build pods tolerate', ['Enter']],
      ['default runtime', ['Enter']],
      ['test pipeline', ['n', 'Enter']],
    ],
  );
  assert.match(screen, /Starting from the install's recorded settings/);
  // The recorded settings, as the flags that would make the same install.
  const command = /sluice runner init --yes .*/.exec(screen)?.[0] ?? '';
  for (const flag of [
    `--runtime ${RUNTIME}`,
    `--control-plane-url ${ctx.controlPlaneUrl}`,
    '--image-tag 1-next',
    `--storage-class ${TEST_STORAGE_CLASS}`,
    '--build-toleration sluice.io/builds=true:NoSchedule',
  ])
    assert.ok(command.includes(flag), `${flag} in: ${command}`);
  assert.doesNotMatch(command, /--build-node-selector/);
  assert.doesNotMatch(screen, /containers\[agent\]\.image/, 'the upgrade stays');
  assert.match(screen, /update +runtime environment cluster\/init/);
  assert.match(screen, /nodeSelector/, 'the answer changed the placement of builds');
});

test('the agent pod stopped mid-build (SIGTERM, drain): the build ends success, its objects go', async () => {
  await addHostPathVolume(
    cluster().kubeConfig,
    'sluice-init-drain',
    join(ctx.temp.path, 'pv-drain'),
  );
  const started = await runSluice(
    ['run-pipeline', `runners/${AGENT}-test`, '--runtime', RUNTIME, '--detach'],
    { env: ENV() },
  );
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  await waitForProbe(`build ${id} running`, async () => {
    const build = await ctx.admin.call('getBuild', { params: { buildId: id } });
    return build.timing.dispatchedAt !== undefined;
  });
  const selector = 'app.kubernetes.io/name=sluice-agent';
  const [pod] = await ctx.kube.list({ kind: 'Pod', namespace: NS, labelSelector: selector });
  assert.ok(pod !== undefined);
  await ctx.kube.delete({ kind: 'Pod', namespace: NS, name: pod.metadata.name });
  const ended = await waitForProbe(`build ${id} to end`, async () => {
    const build = await ctx.admin.call('getBuild', { params: { buildId: id } });
    return build.finishedAt === null ? undefined : build;
  });
  assert.equal(ended.status, 'success', ended.reason ?? '');
  await waitForProbe(
    `build ${id}'s objects deleted by the agent's next pod`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, id)) === 0,
  );
});

test('attach lets the agent serve a runtime of another kube context; a build runs there', async () => {
  const { path, home } = twoContextKubeconfig(ctx);
  const run = await runSluice(
    [
      ...['runner', 'attach', '--kubeconfig', path, '--kube-context', 'other'],
      ...['--agent-kube-context', home, '--namespace', NS, '--agent-name', AGENT],
      ...['--build-namespace', ATTACHED_NS, '--runtime', 'cluster/attached'],
      // The agent's pods reach this API server through the kubernetes Service.
      ...['--api-server-url', 'https://10.96.0.1:443', '--control-plane-url', ctx.controlPlaneUrl],
      ...['--storage-class', TEST_STORAGE_CLASS, '--runtime-spec', ctx.specFile],
      // Its own pool, in its cluster, beside the agent's (none).
      ...['--warm-pool', '1'],
    ],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  const { items: agents } = await ctx.admin.call('listAgents');
  const agent = agents.find((a) => a.name === AGENT);
  assert.deepEqual(agent?.runtimes, [RUNTIME, 'cluster/attached']);
  assert.deepEqual(agent?.health?.runtimes?.map((r) => [r.name, r.healthy]).sort(), [
    ['cluster/attached', true],
    [RUNTIME, true],
  ]);
  // The first build's volume, then one for the pool's pod, then one for its refill.
  for (const n of [2, 3, 4])
    await addHostPathVolume(
      cluster().kubeConfig,
      `sluice-init-${n}`,
      join(ctx.temp.path, `pv-${n}`),
    );
  // The first build shows the agent the runtime's pods; the pool makes its own from them.
  await runTestPipeline(ctx, 'cluster/attached', ATTACHED_NS);
  const waiting = await waitForProbe(
    `a ready warm-pool pod in ${ATTACHED_NS}`,
    async () => (await warmPoolPods(ctx, ATTACHED_NS)).find((pod) => pod.ready),
    240_000,
  );
  const { priorityClass } = waiting;
  assert.match(priorityClass, new RegExp(`^sluice-warm-pool-${ATTACHED_NS}-`));
  const made = await ctx.kube.read({ kind: 'PriorityClass', name: priorityClass });
  assert.equal(made?.['value'], -1_000_000, 'the attach made the PriorityClass in its cluster');
  await runTestPipeline(ctx, 'cluster/attached', ATTACHED_NS);
  await waitForProbe('the attached runtime reports its pool hit', async () => {
    const { items } = await ctx.admin.call('listAgents');
    const health = items.find((a) => a.name === AGENT)?.health?.runtimes ?? [];
    return health.find((r) => r.name === 'cluster/attached')?.warmPool?.hits === 1;
  });
  // The take's refill, for delete to remove.
  await waitForProbe('the pool refilled', async () =>
    (await warmPoolPods(ctx, ATTACHED_NS)).some((pod) => pod.name !== waiting.name),
  );
});

test('delete --yes lists and removes exactly what init and attach created, and nothing else', async (t) => {
  const neighbour = await applyNeighbourInstall(ctx, NEIGHBOUR_NS);
  t.after(async () => {
    for (const object of [...neighbour].reverse())
      await ctx.kube.delete(object).catch(() => undefined);
  });
  const elsewhere = async () => [
    ...(await objectsIn(ctx, BYSTANDER_NS)),
    ...(await objectsIn(ctx, 'default')),
  ];
  const before = await elsewhere();
  const pool = await warmPoolPods(ctx, ATTACHED_NS);
  assert.ok(pool.length > 0, "the attached runtime's pool has pods for delete to remove");
  // The kubeconfig attach used: delete reaches the attached runtime's cluster through its context.
  const { path } = twoContextKubeconfig(ctx);
  const run = await runSluice(
    ['runner', 'delete', '--yes', '--kubeconfig', path, '-n', NS, '--agent-name', AGENT],
    { env: ENV() },
  );
  assert.equal(run.code, 0, run.stderr);
  for (const line of [
    'from context other (runtime cluster/attached, attached):',
    ...pool.map((pod) => `Pod ${ATTACHED_NS}/${pod.name}`),
    `PriorityClass sluice-warm-pool-${ATTACHED_NS}-`,
    `PriorityClass sluice-build-${ATTACHED_NS}-`,
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
    async () => (await ctx.kube.read({ kind: 'Namespace', name: NS })) === undefined,
    120_000,
  );
  assert.deepEqual(await elsewhere(), before, 'nothing else removed');
  assert.ok(!run.stderr.includes(NEIGHBOUR_NS), `the other install is not listed:\n${run.stderr}`);
  for (const object of neighbour)
    assert.ok(
      (await ctx.kube.read(object)) !== undefined,
      `${object.kind} ${object.name} of the other install is still there`,
    );
  assert.equal(
    await ctx.kube.read({ kind: 'Namespace', name: BYSTANDER_NS }).then((n) => n?.metadata.name),
    BYSTANDER_NS,
  );
  const { items: agents } = await ctx.admin.call('listAgents');
  assert.ok(!agents.some((a) => a.name === AGENT));
  const { items: runtimes } = await ctx.admin.call('listRuntimeEnvironments');
  assert.ok(!runtimes.some((re) => re.name === RUNTIME || re.name === 'cluster/attached'));
  assert.equal(await ctx.kube.read({ kind: 'Namespace', name: ATTACHED_NS }), undefined);
  const classes = await ctx.kube.list({ kind: 'PriorityClass' });
  assert.deepEqual(
    classes.map((c) => c.metadata.name).filter((name) => name.includes(ATTACHED_NS)),
    [],
  );
});
