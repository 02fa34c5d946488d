/**
 * The runner installed in the cluster it serves, from the sluice-runtime chart: rendered as
 * `helm template` renders it, applied through the API server, the agent runs as a pod with
 * in-cluster config and its own ServiceAccount only (it reaches the API server through the
 * `kubernetes` Service, which kube-proxy serves). `sluice run-pipeline` then starts builds that
 * run on the cluster, streams their log to the terminal and exits with their result; each
 * build's objects are gone afterwards. A pipeline read from its repository is read there by the
 * build's engine, from a git server that only the cluster's pods may use (the engine loads the
 * git image it carries onto the new volume's daemon, which cannot pull it).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { createNamespace } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  CLUSTER_IMAGES,
  createGitRepo,
  makeTempDir,
  renderChart,
  startGitHttpServer,
  useKubernetes,
} from '@sluice/testkit';
import type { GitHttpServer, TempDir } from '@sluice/testkit';
import { REPO_ROOT, runSluice } from './cli-harness.js';
import {
  addHostPathVolume,
  ADMIN_TOKEN,
  buildObjects,
  createAgentToken,
  createKubeRuntime,
  objectCount,
  prepareBuildCluster,
  startControlPlane,
  waitForProbe,
} from './cluster-fixture.js';
import type { ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const AGENT_NS = 'sluice-system';
const BUILD_NS = 'sluice-in-cluster-builds';
const RUNTIME = 'cluster/builds';

const PIPELINES = {
  ok: 'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo hello from the cluster"]\n',
  failing:
    'version: "1.0"\nsteps:\n  broken:\n    image: sluice/busybox:1\n    commands: ["echo about to fail", "exit 3"]\n',
};

const GIT_TOKEN = 'in-cluster-git-token-0123456789';
const FROM_REPO =
  'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo read from the repository in the cluster"]\n';

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let volumes = 0;
/** Pods reach this machine at the pod subnet's first address. */
let gateway: string;
let git: GitHttpServer | undefined;

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-in-cluster-');
  await prepareBuildCluster(cluster().kubeConfig);
  gateway = (cluster().podSubnet ?? '').replace(/\.0\/24$/, '.1');
  plane = await startControlPlane({
    logPath: join(temp.path, 'server.log'),
  });
  admin = plane.admin;
  for (const ns of [AGENT_NS, BUILD_NS]) await createNamespace(cluster(), ns);
  const controlPlaneUrl = `http://${gateway}:${plane.port}`;
  await createKubeRuntime(admin, {
    name: RUNTIME,
    namespace: BUILD_NS,
    controlPlaneUrl,
    isDefault: true,
  });
  await createPipelines(admin, 'cluster', PIPELINES);
  const { token } = await createAgentToken(admin, 'in-cluster', [RUNTIME]);
  const rendered = await renderChart(`${REPO_ROOT}charts/sluice-runtime`, {
    release: 'sluice',
    namespace: AGENT_NS,
    values: {
      controlPlane: { url: controlPlaneUrl },
      runtime: { name: RUNTIME, namespace: BUILD_NS, dindHostAlias: true },
      agent: { token, image: { pullPolicy: 'Never' } },
    },
  });
  assert.ok(rendered.ok, rendered.ok ? '' : rendered.error);
  const objects = cluster().kubeConfig.makeApiClient(KubernetesObjectApi);
  for (const object of rendered.objects) await objects.create(object);
});

after(async () => {
  await git?.close();
  await plane?.stop();
  await temp?.cleanup();
});

/** A fresh hostPath volume for the next build's PVC (no provisioner on the test cluster). */
async function addVolume(): Promise<void> {
  volumes += 1;
  await addHostPathVolume(
    cluster().kubeConfig,
    `sluice-in-cluster-${volumes}`,
    join(temp.path, `pv-${volumes}`),
  );
}

async function agentLogs(): Promise<string> {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: AGENT_NS });
  const name = pods.items[0]?.metadata?.name;
  if (name === undefined) return '(no agent pod)';
  return core.readNamespacedPodLog({ name, namespace: AGENT_NS }).catch((e: unknown) => String(e));
}

test('the agent from the chart runs as a pod with in-cluster config and reports healthy', async () => {
  const apps = cluster().kubeConfig.makeApiClient(AppsV1Api);
  await waitForProbe(
    'the agent Deployment to be available',
    async () => {
      const deployment = await apps.readNamespacedDeployment({
        name: 'sluice-agent',
        namespace: AGENT_NS,
      });
      return (deployment.status?.availableReplicas ?? 0) >= 1;
    },
    180_000,
  ).catch(async (err: unknown) => {
    throw new Error(`${String(err)}\nagent log:\n${await agentLogs()}`);
  });
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const [pod] = (await core.listNamespacedPod({ namespace: AGENT_NS })).items;
  assert.equal(pod?.spec?.serviceAccountName, 'sluice-agent');
  const env = pod?.spec?.containers[0]?.env?.map((e) => e.name) ?? [];
  assert.ok(!env.includes('KUBECONFIG'), 'no kubeconfig: in-cluster config');
  const agent = await waitForProbe('the agent to report healthy', async () => {
    const { items } = await admin.call('listAgents');
    const found = items.find((a) => a.name === 'in-cluster');
    return found?.online === true && found.health?.healthy === true ? found : undefined;
  });
  assert.deepEqual(agent.runtimes, [RUNTIME]);
});

for (const [pipeline, code, line] of [
  ['ok', 0, '[hello] hello from the cluster'],
  ['failing', 1, '[broken] about to fail'],
] as const) {
  test(`run-pipeline ${pipeline} runs on the cluster, streams its log and exits ${code}`, async () => {
    await addVolume();
    const run = await runSluice(['run-pipeline', `cluster/${pipeline}`], {
      env: {
        SLUICE_SERVER: plane.url,
        SLUICE_TOKEN: ADMIN_TOKEN,
        SLUICE_CONFIG: join(temp.path, 'cfg'),
      },
    });
    assert.equal(run.code, code, `${run.stdout}\n${run.stderr}\nagent log:\n${await agentLogs()}`);
    assert.ok(run.stdout.includes(line), run.stdout);
    const id = /Build (bld_\w+) /.exec(run.stdout)?.[1] ?? '';
    await waitForProbe(
      `build ${id}'s objects deleted`,
      async () => objectCount(await buildObjects(cluster().kubeConfig, BUILD_NS, id)) === 0,
    );
  });
}

test('a pipeline read from its repository is read in the cluster, from a git server only its pods may use', async () => {
  const { commits } = await createGitRepo({
    files: { 'codefresh.yml': FROM_REPO },
    dir: join(temp.path, 'git', 'acme'),
  });
  const podPrefix = gateway.replace(/\.1$/, '.');
  git = await startGitHttpServer({
    root: join(temp.path, 'git'),
    username: 'ci-bot',
    password: GIT_TOKEN,
    // The cluster's pods only: not this machine, and so not the control plane.
    allow: (from) => from.startsWith(podPrefix) && from !== gateway,
  });
  const url = git.urlVia(gateway);
  await admin.call('createGitIntegration', {
    body: { name: 'in-cluster', kind: 'git', url, username: 'ci-bot', token: GIT_TOKEN },
  });
  await admin.call('createPipeline', {
    params: { project: 'cluster' },
    body: {
      name: 'from-repo',
      specTemplate: { location: 'git', repo: `${url}/acme/repo.git`, context: 'in-cluster' },
    },
  });
  const fromHere = await fetch(`${url}/acme/repo.git/info/refs?service=git-upload-pack`, {
    headers: { authorization: `Basic ${Buffer.from(`ci-bot:${GIT_TOKEN}`).toString('base64')}` },
  });
  assert.equal(fromHere.status, 403, 'this machine may not read the repository');
  await fromHere.body?.cancel();

  await addVolume();
  const run = await runSluice(['run-pipeline', 'cluster/from-repo', '-b', 'main'], {
    env: {
      SLUICE_SERVER: plane.url,
      SLUICE_TOKEN: ADMIN_TOKEN,
      SLUICE_CONFIG: join(temp.path, 'cfg'),
    },
  });
  const requests = git.requests.map((r) => `${r.from} ${r.auth} ${r.method} ${r.url}`);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\ngit server:\n${requests.join('\n')}`);
  assert.ok(run.stdout.includes('[hello] read from the repository in the cluster'), run.stdout);
  const id = /Build (bld_\w+) /.exec(run.stdout)?.[1] ?? '';
  const build = await admin.call('getBuild', { params: { buildId: id } });
  assert.equal(build.definition.sha, commits['main'], 'read at the branch head');
  const served = git.requests.filter((r) => r.auth === 'accepted');
  assert.ok(served.length > 0, requests.join('\n'));
  assert.ok(
    served.every((r) => r.from.startsWith(podPrefix) && r.from !== gateway),
    `only pods read it:\n${requests.join('\n')}`,
  );
  await waitForProbe(
    `build ${id}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, BUILD_NS, id)) === 0,
  );
});
