/**
 * A cluster added with `sluice create cluster` from a kubeconfig, used by a build on the local
 * runtime against the real API server: the `sluice/kubectl-apply` step type applies a manifest
 * with `CLUSTER`, a freestyle step runs `kubectl --context NAME` in `sluice/kubectl:1`, and a
 * step that tries a namespace the cluster's service account may not use fails with Kubernetes'
 * forbidden message; the token is in no log line, answer or build record. A `deploy` step applies
 * a Deployment from a file with its variables filled in and waits for the rollout on the node;
 * a second build sets a new image on it by `service`; an image that cannot be pulled fails the
 * step once the rollout's deadline passes, naming the pod's ImagePullBackOff.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { TestDatabases } from '@sluice/db/testing';
import { createNamespace, createServiceAccount } from '@sluice/kube/testing';
import {
  CLUSTER_IMAGES,
  dockerHostAddress,
  ensureDockerEngine,
  ensureTestImages,
  KUBECTL_IMAGE,
  makeTempDir,
  useKubernetes,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { kill, runSluice } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { createPipelines, runBuildEngine, startGitControlPlane } from './control-plane-seed.js';
import type { GitControlPlane } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.busybox, CLUSTER_IMAGES.engine],
});
const NS = 'sluice-deploys';
const OTHER = 'sluice-not-yours';
const databases = TestDatabases.create({ kinds: ['postgres'] });
let temp: TempDir;
let plane: GitControlPlane;
let server: RunningServer | undefined;
let token: string;

const PIPELINE = `version: "1.0"
steps:
  write:
    image: sluice/busybox:1
    commands: |
      cat > /codefresh/volume/cm.yaml <<EOF
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: from-sluice}
      data: {build: "$CF_BUILD_ID"}
      EOF
  apply:
    type: sluice/kubectl-apply
    arguments:
      MANIFESTS: /codefresh/volume/cm.yaml
      CLUSTER: target
  check:
    image: ${KUBECTL_IMAGE}
    commands:
      - kubectl --context target get configmap from-sluice -o jsonpath='{.data.build}'; echo
  elsewhere:
    image: ${KUBECTL_IMAGE}
    fail_fast: false
    commands:
      - kubectl --context target --namespace ${OTHER} get configmaps
`;

before(async () => {
  await cluster.ready();
  await ensureDockerEngine();
  await ensureTestImages();
  await ensureTestImages({ only: 'kubectl' });
  temp = await makeTempDir('sluice-clusters-');
  plane = await startGitControlPlane({
    root: temp.path,
    databases,
    token: 'slu_u_clusters-kube-token-0123456789',
    gitToken: 'unused-git-token-0123',
  });
  server = plane.server;
  for (const ns of [NS, OTHER]) await createNamespace(cluster(), ns);
  token = await createServiceAccount(cluster(), {
    namespace: NS,
    name: 'deployer',
    permissions: [
      ...['get', 'list', 'create', 'patch'].map((verb) => ({ verb, resource: 'configmaps' })),
      ...['get', 'list', 'watch', 'create', 'patch', 'update'].map((verb) => ({
        verb,
        resource: 'deployments',
        group: 'apps',
      })),
      ...['get', 'list', 'watch'].map((verb) => ({ verb, resource: 'replicasets', group: 'apps' })),
      { verb: 'list', resource: 'pods' },
      { verb: 'list', resource: 'events' },
    ],
  });
});

after(async () => {
  if (server) await kill(server);
  await databases.close();
  await plane?.git.close();
  await temp?.cleanup();
});

/** Runs a build of `yaml` with `variables` as the agent would; its status, log and engine output. */
async function runBuild(name: string, yaml: string, variables: Record<string, string> = {}) {
  const { [name]: pipelineId = '' } = await createPipelines(plane.admin, `p-${name}`, {
    [name]: yaml,
  });
  const build = await plane.admin.call('createBuild', {
    params: { pipelineId },
    body: { variables },
  });
  const output = await runBuildEngine(plane.agent, build.id, {
    serverUrl: plane.server.url,
    spoolDir: join(temp.path, 'spool'),
  });
  const ended = await plane.admin.call('getBuild', { params: { buildId: build.id } });
  const log = await (await plane.admin.raw('buildLog', { params: { buildId: build.id } })).text();
  return { build: ended, log, output };
}

test('a build reaches a cluster added from a kubeconfig by its name, only where its account may go', async () => {
  // As the build's containers reach the API server: through this machine's bridge address,
  // checking the certificate against a name it holds.
  const port = new URL(cluster().server).port;
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'test',
        cluster: {
          server: `https://${await dockerHostAddress()}:${port}`,
          'certificate-authority-data': readFileSync(cluster().caFile).toString('base64'),
          'tls-server-name': 'localhost',
        },
      },
    ],
    users: [{ name: 'deployer', user: { token } }],
    contexts: [{ name: 'deployer', context: { cluster: 'test', user: 'deployer', namespace: NS } }],
    'current-context': 'deployer',
  };
  const file = join(temp.path, 'deployer.kubeconfig');
  writeFileSync(file, JSON.stringify(kubeconfig), { mode: 0o600 });
  const made = await runSluice(['create', 'cluster', 'target', '--kubeconfig-file', file], {
    env: plane.env,
  });
  assert.equal(made.code, 0, made.stderr);
  const shown = await runSluice(['get', 'clusters', '-o', 'json'], { env: plane.env });
  assert.match(shown.stdout, /"namespace": "sluice-deploys"/);
  assert.ok(!shown.stdout.includes(token), 'get never shows the token');

  const { app: pipelineId = '' } = await createPipelines(plane.admin, 'deploys', { app: PIPELINE });
  const build = await plane.admin.call('createBuild', { params: { pipelineId }, body: {} });
  const output = await runBuildEngine(plane.agent, build.id, {
    serverUrl: plane.server.url,
    spoolDir: join(temp.path, 'spool'),
  });
  const ended = await plane.admin.call('getBuild', { params: { buildId: build.id } });
  const log = await (await plane.admin.raw('buildLog', { params: { buildId: build.id } })).text();
  const steps = Object.fromEntries(ended.steps.map((s) => [s.name, s.status]));
  assert.deepEqual(
    [steps['write'], steps['apply'], steps['check'], steps['elsewhere']],
    ['success', 'success', 'success', 'failure'],
    `${log}\n${output}`,
  );
  assert.match(log, new RegExp(`\\[check\\] ${build.id}`));
  assert.match(
    log,
    /\[elsewhere\] .*Forbidden.*cannot list resource "configmaps".*"sluice-not-yours"/,
  );
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const applied = await core.readNamespacedConfigMap({ name: 'from-sluice', namespace: NS });
  assert.equal(applied.data?.['build'], build.id);
  const record = JSON.stringify(ended);
  for (const [what, text] of [
    ['the log', log],
    ['the build', record],
    ['the engine output', output],
  ] as const)
    assert.ok(!text.includes(token), `the token is in ${what}`);
});

/** A Deployment written as a repository would hold it: ${{APP_IMAGE}} left for the deploy step. */
const MANIFEST = [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata: {name: web}',
  'spec:',
  '  replicas: 1',
  '  progressDeadlineSeconds: 15',
  '  selector: {matchLabels: {app: web}}',
  '  template:',
  '    metadata: {labels: {app: web}}',
  '    spec:',
  '      terminationGracePeriodSeconds: 0',
  '      containers:',
  '        - name: web',
  '          image: $IMAGE_PLACEHOLDER',
  '          command: [sleep, "3600"]',
].join('\n');

test('a deploy step applies a file and waits for the rollout; service and candidate.image update it; an image that cannot be pulled fails naming ImagePullBackOff', async () => {
  // The file holds a literal ${{APP_IMAGE}}, as a repository would: sed writes it from pieces
  // that the engine's own filling-in of the step's commands does not see as a variable.
  const write = [
    "cat > /codefresh/volume/web.yml <<'EOF'",
    MANIFEST.replace('$IMAGE_PLACEHOLDER', '__APP_IMAGE__'),
    'EOF',
    String.raw`sed -i 's/__APP_IMAGE__/\$\{\{APP_IMAGE\}\}/' /codefresh/volume/web.yml`,
    'grep "image:" /codefresh/volume/web.yml',
  ];
  const FROM_FILE = `version: "1.0"
steps:
  write:
    image: sluice/busybox:1
    commands:
      - |
${write
  .join('\n')
  .split('\n')
  .map((l) => `        ${l}`)
  .join('\n')}
  ship:
    type: deploy
    kind: kubernetes
    cluster: target
    namespace: ${NS}
    file_path: /codefresh/volume/web.yml
`;
  const first = await runBuild('fromfile', FROM_FILE, { APP_IMAGE: CLUSTER_IMAGES.busybox });
  assert.equal(first.build.status, 'success', `${first.log}\n${first.output}`);
  assert.match(first.log, /\[write\] +image: \$\{\{APP_IMAGE\}\}/);
  assert.match(first.log, new RegExp(`\\[ship\\] Deploying to cluster target, namespace ${NS}\\n`));
  assert.match(first.log, /\[ship\] deployment\.apps\/web\n/);
  assert.match(first.log, /\[ship\] deployment "web" successfully rolled out/);
  const apps = cluster().kubeConfig.makeApiClient(AppsV1Api);
  const image = async () =>
    (await apps.readNamespacedDeployment({ name: 'web', namespace: NS })).spec?.template.spec
      ?.containers[0]?.image;
  assert.equal(await image(), CLUSTER_IMAGES.busybox, 'the file was filled in');

  const BY_SERVICE = `version: "1.0"
steps:
  ship:
    type: deploy
    cluster: target
    namespace: ${NS}
    service: web
    timestamp: true
    candidate:
      image: \${{APP_IMAGE}}
`;
  const second = await runBuild('byservice', BY_SERVICE, { APP_IMAGE: CLUSTER_IMAGES.engine });
  assert.equal(second.build.status, 'success', `${second.log}\n${second.output}`);
  assert.equal(await image(), CLUSTER_IMAGES.engine, 'a new image rolled out');

  const third = await runBuild('broken', BY_SERVICE, { APP_IMAGE: 'sluice/no-such-image:1' });
  assert.equal(third.build.status, 'failure', third.log);
  assert.match(third.log, /\[ship\] .*exceeded its progress deadline/);
  assert.match(third.log, /\[ship\] web-\S+ +Pending +(ImagePullBackOff|ErrImagePull)/);
  assert.ok(!third.log.includes(token), 'the token is in the log');
});
