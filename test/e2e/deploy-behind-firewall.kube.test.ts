/**
 * Deploying to the runner's own cluster behind its firewall, as the seeds' platform team does:
 * the runner installed by `sluice runner init`, then `sluice create cluster shop --runtime R
 * --namespace N` (its `--dry-run DIR` first: each manifest accepted by the API server's
 * server-side dry run, nothing made). A pipeline builds an image, pushes it to a registry the
 * node pulls from, and deploys it with `type: deploy` through the cluster's context, whose token
 * the agent minted for the build inside the cluster; the build waits for the rollout. A second
 * build with a new tag updates the Deployment by `service`; a third, with a tag never pushed,
 * fails once the rollout's deadline passes, naming the pod's ImagePullBackOff. A freestyle `kubectl --context shop`
 * and the kubectl-apply step type with `CLUSTER` both reach it; a namespace its role was not
 * granted answers Kubernetes' forbidden. The token is in no log line, build record or answer,
 * and dies with the build. `delete cluster` removes what create made and nothing else.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeResource } from '@sluice/kube';
import { parse } from 'yaml';
import {
  CLUSTER_IMAGES,
  ensureTestImages,
  KUBECTL_IMAGE,
  runCommand,
  startRegistry,
  trustHttpRegistry,
  useKubernetes,
} from '@sluice/testkit';
import type { TestRegistry } from '@sluice/testkit';
import { runSluice } from './cli-harness.js';
import { addHostPathVolume } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';
import {
  answerArgs,
  baseArgs,
  initEnv,
  RUNTIME,
  setUpInit,
  tearDownInit,
} from './runner-init.test-support.js';
import type { InitContext } from './runner-init.test-support.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-fw-runner';
const APPS = 'sluice-fw-apps';
const OTHER = 'sluice-fw-other';

let ctx: InitContext;
let registry: TestRegistry;
/** The registry as the build's daemon and the node reach it: the pods' gateway. */
let address: string;
let volumes = 0;
const ENV = () => initEnv(ctx);

before(async () => {
  await cluster.ready();
  ctx = await setUpInit(cluster(), 'sluice-deploy-fw-', [APPS, OTHER]);
  await ensureTestImages({ only: 'kubectl' });
  registry = await startRegistry();
  const port = registry.address.split(':')[1] ?? '';
  address = `${(cluster().podSubnet ?? '').replace(/\.0\/24$/, '.1')}:${port}`;
  // The deploy step's image comes through the registry as a Docker Hub mirror (no internet).
  for (const args of [
    ['tag', KUBECTL_IMAGE, `${registry.address}/${KUBECTL_IMAGE}`],
    ['push', `${registry.address}/${KUBECTL_IMAGE}`],
  ]) {
    const done = await runCommand('docker', args, { timeoutMs: 120_000 });
    assert.equal(done.code, 0, `docker ${args.join(' ')}: ${done.stderr}`);
  }
  trustHttpRegistry(cluster().containerdSocket ?? '', address);
  const spec = JSON.parse(readFileSync(ctx.specFile, 'utf8')) as {
    dockerDaemonScheduler: Record<string, unknown>;
  };
  spec.dockerDaemonScheduler['daemonConfig'] = {
    insecureRegistries: [address],
    registryMirrors: [`http://${address}`],
  };
  writeFileSync(ctx.specFile, JSON.stringify(spec));
  await addVolume();
  const init = await runSluice(
    [
      'runner',
      'init',
      '--yes',
      ...baseArgs(ctx, NS),
      ...answerArgs(ctx).filter((a) => a !== '--test-pipeline'),
      '--no-test-pipeline',
    ],
    { env: ENV() },
  );
  assert.equal(init.code, 0, `${init.stderr}\n${init.stdout}`);
  await ctx.admin.call('putRegistry', {
    params: { name: 'shop-registry' },
    body: { domain: address },
  });
});

after(async () => {
  await registry?.stop();
  await tearDownInit(ctx);
});

async function addVolume(): Promise<void> {
  volumes += 1;
  await addHostPathVolume(
    cluster().kubeConfig,
    `sluice-fw-${volumes}`,
    join(ctx.temp.path, `pv-${volumes}`),
  );
}

/** Runs `project/pipeline` on the runtime init made; its exit code, log and build. */
async function run(pipeline: string, variables: Record<string, string> = {}) {
  await addVolume();
  const vars = Object.entries(variables).flatMap(([k, v]) => ['--var', `${k}=${v}`]);
  const result = await runSluice(['run-pipeline', pipeline, '--runtime', RUNTIME, ...vars], {
    env: ENV(),
  });
  const id = /Build (bld_\w+)/.exec(result.stderr)?.[1] ?? '';
  const build = await ctx.admin.call('getBuild', { params: { buildId: id } });
  const log = await (await ctx.admin.raw('buildLog', { params: { buildId: id } })).text();
  return { ...result, id, build, log };
}

const MANIFEST = (image: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: shop}',
    'spec:',
    '  replicas: 1',
    '  progressDeadlineSeconds: 30',
    '  selector: {matchLabels: {app: shop}}',
    '  template:',
    '    metadata: {labels: {app: shop}}',
    '    spec:',
    '      terminationGracePeriodSeconds: 0',
    '      containers:',
    '        - name: shop',
    `          image: ${image}`,
    '          command: [sh, -c, "cat /version; sleep 3600"]',
  ].join('\n');

/** The steps both pipelines start with: an image tagged TAG, built and pushed. */
const BUILD_AND_PUSH = () => `  build:
    type: build
    image_name: shop/app
    tag: \${{TAG}}
    dockerfile:
      content: |
        FROM ${CLUSTER_IMAGES.busybox}
        RUN echo \${{TAG}} > /version
  push:
    type: push
    candidate: \${{build}}
    tag: \${{TAG}}
    registry: shop-registry
`;

const PIPELINE = () => `version: "1.0"
steps:
${BUILD_AND_PUSH()}  manifest:
    image: ${CLUSTER_IMAGES.busybox}
    commands:
      - |
        cat > /codefresh/volume/shop.yml <<'EOF'
${MANIFEST(`${address}/shop/app:__TAG__`)
  .split('\n')
  .map((l) => `        ${l}`)
  .join('\n')}
        EOF
      - sed -i "s/__TAG__/$TAG/" /codefresh/volume/shop.yml
  ship:
    type: deploy
    kind: kubernetes
    cluster: shop
    namespace: ${APPS}
    file_path: /codefresh/volume/shop.yml
  reach:
    image: ${KUBECTL_IMAGE}
    commands:
      - kubectl --context shop get deployment shop -o jsonpath='{.spec.template.spec.containers[0].image}'; echo
  apply:
    type: sluice/kubectl-apply
    arguments:
      MANIFESTS: /codefresh/volume/shop.yml
      CLUSTER: shop
  elsewhere:
    image: ${KUBECTL_IMAGE}
    fail_fast: false
    commands:
      - kubectl --context shop --namespace ${OTHER} get configmaps
`;

test('create cluster --runtime: the dry run writes manifests the API server accepts and makes nothing; then it makes them', async () => {
  const dir = join(ctx.temp.path, 'cluster-manifests');
  const args = ['create', 'cluster', 'shop', '--runtime', RUNTIME, '--namespace', APPS];
  const kube = ['--kubeconfig-file', cluster().kubeconfigPath];
  const dry = await runSluice([...args, ...kube, '--dry-run', dir], { env: ENV() });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stderr, /create +ServiceAccount sluice-fw-runner\/sluice-cluster-shop/);
  assert.match(dry.stderr, /create +RoleBinding sluice-fw-apps\/sluice-cluster-shop/);
  const files = readdirSync(dir).sort();
  assert.deepEqual(files, [
    '01-serviceaccount-sluice-fw-runner-sluice-cluster-shop.yaml',
    '02-rolebinding-sluice-fw-apps-sluice-cluster-shop.yaml',
    '03-role-sluice-fw-runner-sluice-cluster-shop-token.yaml',
    '04-rolebinding-sluice-fw-runner-sluice-cluster-shop-token.yaml',
  ]);
  // Each file as written, checked by the API server's server-side dry run and not stored.
  for (const file of files) {
    const object = parse(readFileSync(join(dir, file), 'utf8')) as KubeResource;
    const planned = await ctx.kube.planApply(object);
    assert.equal(planned.result, 'created', file);
  }
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const accounts = await core.listNamespacedServiceAccount({ namespace: NS });
  assert.ok(!accounts.items.some((a) => a.metadata?.name === 'sluice-cluster-shop'));
  assert.equal((await ctx.admin.call('listClusters')).items.length, 0);

  const made = await runSluice([...args, ...kube], { env: ENV() });
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, /Cluster shop ready/);
  const again = await runSluice([...args, ...kube], { env: ENV() });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /registered already/);
  const shown = await ctx.admin.call('getCluster', { params: { name: 'shop' } });
  assert.deepEqual(
    [shown.kind, shown.runtime, shown.serviceAccount, shown.namespaces, shown.hasCredentials],
    ['behind-firewall', RUNTIME, 'sluice-cluster-shop', [APPS], false],
  );
});

test('a build pushes its image and deploys it behind the firewall; a new tag updates it; the token stays inside', async () => {
  await createPipelines(ctx.admin, 'shop', {
    deploy: PIPELINE(),
    // By service: the Deployment's image set to the new tag, or to one never pushed.
    update: `version: "1.0"
steps:
${BUILD_AND_PUSH()}  ship:
    type: deploy
    cluster: shop
    namespace: ${APPS}
    service: shop
    candidate:
      image: ${address}/shop/app:\${{SHIP}}
`,
  });
  const first = await run('shop/deploy', { TAG: 'v1' });
  const steps = Object.fromEntries(first.build.steps.map((s) => [s.name, s.status]));
  assert.deepEqual(
    ['build', 'push', 'manifest', 'ship', 'reach', 'apply', 'elsewhere'].map((s) => steps[s]),
    ['success', 'success', 'success', 'success', 'success', 'success', 'failure'],
    `${first.build.reason ?? ''}\n${first.log}\n${first.stderr}`,
  );
  assert.match(first.log, new RegExp(`\\[ship\\] Deploying to cluster shop, namespace ${APPS}\\n`));
  assert.match(first.log, /\[ship\] deployment "shop" successfully rolled out/);
  assert.match(first.log, new RegExp(`\\[reach\\] ${address.replaceAll('.', '\\.')}/shop/app:v1`));
  assert.match(
    first.log,
    new RegExp(
      `\\[elsewhere\\] .*Forbidden.*system:serviceaccount:${NS}:sluice-cluster-shop.*"${OTHER}"`,
    ),
  );
  const apps = cluster().kubeConfig.makeApiClient(AppsV1Api);
  const image = async () =>
    (await apps.readNamespacedDeployment({ name: 'shop', namespace: APPS })).spec?.template.spec
      ?.containers[0]?.image;
  assert.equal(await image(), `${address}/shop/app:v1`);
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: APPS, labelSelector: 'app=shop' });
  assert.ok(
    pods.items.some((p) => p.status?.containerStatuses?.[0]?.ready === true),
    'the pushed image runs on the node',
  );

  const second = await run('shop/update', { TAG: 'v2', SHIP: 'v2' });
  assert.equal(second.build.status, 'success', `${second.log}\n${second.stderr}`);
  assert.equal(await image(), `${address}/shop/app:v2`, 'the new tag rolled out');
  const third = await run('shop/update', { TAG: 'v3', SHIP: 'never-pushed' });
  assert.equal(third.build.status, 'failure', third.log);
  assert.match(third.log, /\[ship\] .*exceeded its progress deadline/);
  assert.match(third.log, /\[ship\] shop-\S+ +Pending +(ImagePullBackOff|ErrImagePull)/);

  // No token anywhere: not in the logs, builds, answers or the cluster's events.
  const events = JSON.stringify(await core.listNamespacedEvent({ namespace: NS }));
  const texts = [
    first.log,
    second.log,
    third.log,
    first.stdout,
    first.stderr,
    JSON.stringify(first.build),
  ];
  texts.push(JSON.stringify(await ctx.admin.call('listClusters')), events);
  for (const text of texts)
    assert.ok(!/eyJhbGciOi[\w-]{20,}/.test(text), 'a service-account token leaked');
});

test('delete cluster removes the objects create made and nothing else', async () => {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const removed = await runSluice(
    ['delete', 'cluster', 'shop', '--kubeconfig-file', cluster().kubeconfigPath],
    { env: ENV() },
  );
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stderr, /ServiceAccount sluice-fw-runner\/sluice-cluster-shop deleted/);
  const accounts = (await core.listNamespacedServiceAccount({ namespace: NS })).items.map(
    (a) => a.metadata?.name,
  );
  assert.ok(!accounts.includes('sluice-cluster-shop'), accounts.join());
  assert.ok(accounts.includes('sluice-agent'), 'the agent stays');
  const apps = cluster().kubeConfig.makeApiClient(AppsV1Api);
  await apps.readNamespacedDeployment({ name: 'shop', namespace: APPS });
  assert.equal((await ctx.admin.call('listClusters')).items.length, 0);
});
