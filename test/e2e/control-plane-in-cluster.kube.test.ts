/**
 * All of Sluice in one cluster, from the two charts: the control plane (sluice-server, on the
 * embedded database on a claim) reached through its Service's ClusterIP, and a runtime
 * (sluice-runtime) whose agent calls that Service. The CLI on this machine talks to the same
 * address; a build started with `run-pipeline` runs on the cluster and exits 0. There is no
 * cluster DNS here, so addresses are ClusterIPs (real clusters would use the Service names).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { createNamespace } from '@sluice/kube/testing';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import {
  CLUSTER_IMAGES,
  makeTempDir,
  renderChart,
  runCommand,
  useKubernetes,
} from '@sluice/testkit';
import type { RenderChartOptions, TempDir } from '@sluice/testkit';
import { REPO_ROOT, runSluice } from './cli-harness.js';
import {
  addHostPathVolume,
  createAgentToken,
  createKubeRuntime,
  prepareBuildCluster,
  TEST_STORAGE_CLASS,
  waitForProbe,
} from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice';
const BUILD_NS = 'sluice-cp-builds';
const RUNTIME = 'in-cluster/builds';
const ADMIN = 'slu_u_in-cluster-admin-token-0123456789';
const OK =
  'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo built by a control plane in the cluster"]\n';

let temp: TempDir;
let admin: SluiceClient;
let serverUrl = '';

/** The chart's objects created through the API server; one that exists already is left as is. */
async function install(chart: string, options: RenderChartOptions): Promise<void> {
  const rendered = await renderChart(`${REPO_ROOT}charts/${chart}`, options);
  assert.ok(rendered.ok, rendered.ok ? '' : rendered.error);
  const objects = cluster().kubeConfig.makeApiClient(KubernetesObjectApi);
  for (const object of rendered.objects)
    await objects.create(object).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
}

async function podLogs(namespace: string): Promise<string> {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const logs: string[] = [];
  for (const pod of (await core.listNamespacedPod({ namespace })).items) {
    const name = pod.metadata?.name ?? '';
    logs.push(`--- ${name} (${pod.status?.phase})`);
    logs.push(
      await core.readNamespacedPodLog({ name, namespace }).catch((e: unknown) => String(e)),
    );
  }
  return logs.join('\n');
}

/** Each pod's readiness and restarts, and the Service endpoints, for a failure's message. */
async function serviceState(namespace: string): Promise<string> {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const pods = (await core.listNamespacedPod({ namespace })).items.map((pod) => {
    const statuses = pod.status?.containerStatuses ?? [];
    const state = statuses
      .map((c) => `${c.name} ready=${c.ready} restarts=${c.restartCount}`)
      .join(', ');
    return `pod ${pod.metadata?.name} ${pod.status?.phase} ${pod.status?.podIP ?? ''}: ${state}`;
  });
  const endpoints = (await core.listNamespacedEndpoints({ namespace })).items.map(
    (e) => `endpoints ${e.metadata?.name}: ${JSON.stringify(e.subsets ?? [])}`,
  );
  return [...pods, ...endpoints].join('\n');
}

/**
 * How this machine routes `ip`: kube-proxy's NAT rules for it and its log's end. Without a rule
 * the address is not this machine's, and whatever answers it (these machines' egress answers
 * 404 for any address it does not know) is not the cluster.
 */
async function serviceRouting(ip: string): Promise<string> {
  const rules = await runCommand('iptables-save', ['-t', 'nat']);
  const matching = rules.stdout.split('\n').filter((line) => line.includes(ip));
  const log = await readFile(cluster().logPath('kube-proxy'), 'utf8').catch(String);
  return [
    `kube-proxy NAT rules for ${ip}: ${matching.length === 0 ? 'none' : ''}`,
    ...matching,
    '--- the end of kube-proxy.log',
    ...log.split('\n').slice(-15),
  ].join('\n');
}

/**
 * One GET of the server's health on a connection of its own. A connection opened before
 * kube-proxy has written the new Service's rules goes out unrouted, and this machine's egress
 * answers it (404) and keeps it open: `fetch` kept it alive and sent every later probe down the
 * same connection, so the Service never answered (4 of 20 full runs failed so). A connection
 * per probe is routed by the rules once they exist.
 */
function healthOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${url}/api/health`, { agent: false, timeout: 5_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 5 s')));
    request.on('error', reject);
  });
}

/**
 * kube-proxy's jump from the nat table's OUTPUT chain into KUBE-SERVICES, which sends this
 * machine's own connections to a ClusterIP through the Service's rules. Without it they go out
 * unrouted (the egress answers 404); it was suspected when the probes failed so, before the
 * kept-alive connection was found (`healthOnce`). Put back as kube-proxy puts it when it is
 * missing; what was found is named in a failure.
 */
async function servicePortals(): Promise<string> {
  const output = await runCommand('iptables', ['-w', '-t', 'nat', '-S', 'OUTPUT']);
  if (output.stdout.includes('-j KUBE-SERVICES')) return 'present';
  const comment = ['-m', 'comment', '--comment', 'kubernetes service portals'];
  const added = await runCommand('iptables', [
    '-w',
    '-t',
    'nat',
    '-I',
    'OUTPUT',
    ...comment,
    '-j',
    'KUBE-SERVICES',
  ]);
  process.stderr.write(`nat OUTPUT had no jump to KUBE-SERVICES; added it (${added.code})\n`);
  return `missing; added (iptables exited ${added.code})`;
}

async function available(name: string, namespace: string): Promise<void> {
  const apps = cluster().kubeConfig.makeApiClient(AppsV1Api);
  await waitForProbe(
    `Deployment ${namespace}/${name} available`,
    async () =>
      ((await apps.readNamespacedDeployment({ name, namespace })).status?.availableReplicas ?? 0) >=
      1,
    180_000,
  ).catch(async (err: unknown) => {
    throw new Error(`${String(err)}\n${await podLogs(namespace)}`);
  });
}

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-cp-in-cluster-');
  await prepareBuildCluster(cluster().kubeConfig);
  for (const ns of [NS, BUILD_NS]) await createNamespace(cluster(), ns);
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: 'sluice-admin' }, stringData: { token: ADMIN } },
  });
  await addHostPathVolume(
    cluster().kubeConfig,
    'sluice-server-data',
    join(temp.path, 'server-data'),
  );
  // The Service first: its ClusterIP is the URL engines and agents are given.
  const server: RenderChartOptions = {
    release: 'sluice',
    namespace: NS,
    values: {
      image: { pullPolicy: 'Never' },
      database: {
        mode: 'embedded',
        embedded: { size: '1Gi', storageClassName: TEST_STORAGE_CLASS },
      },
      bootstrapToken: { existingSecret: { name: 'sluice-admin' } },
    },
  };
  const rendered = await renderChart(`${REPO_ROOT}charts/sluice-server`, server);
  assert.ok(rendered.ok, rendered.ok ? '' : rendered.error);
  const service = rendered.objects.find((o) => o.kind === 'Service');
  const objects = cluster().kubeConfig.makeApiClient(KubernetesObjectApi);
  const created = await objects.create(service as Parameters<typeof objects.create>[0]);
  const clusterIp = (created as { spec?: { clusterIP?: string } }).spec?.clusterIP ?? '';
  serverUrl = `http://${clusterIp}:8080`;
  await install('sluice-server', { ...server, values: { ...server.values, publicUrl: serverUrl } });
  await available('sluice-server', NS);
  // Ready is not yet routed: kube-proxy rejects a Service until it has synced its endpoints.
  // On a loaded machine the first start of the server's database can take a while, and a pod
  // restarted meanwhile is out of the Service: wait as long as for the Deployment, and say what
  // the pods and the Service's endpoints were when it did not answer.
  const started = Date.now();
  let portals = 'not looked at';
  await waitForProbe(
    `the server through its Service (${serverUrl})`,
    async () => {
      // After 30 s without an answer, make sure this machine's own traffic goes through
      // kube-proxy's rules at all (see servicePortals).
      if (Date.now() - started > 30_000 && portals === 'not looked at')
        portals = await servicePortals();
      const response = await healthOnce(serverUrl);
      // A refusal names itself in the failure: the status and what the server said.
      if (response.status !== 200) throw new Error(`${response.status} ${response.body}`);
      return true;
    },
    180_000,
  ).catch(async (err: unknown) => {
    const routing = `${await serviceRouting(clusterIp)}\nnat OUTPUT's jump to KUBE-SERVICES: ${portals}`;
    throw new Error(`${String(err)}\n${await serviceState(NS)}\n${routing}\n${await podLogs(NS)}`);
  });
  admin = createClient({ baseUrl: serverUrl, token: ADMIN });
  await createKubeRuntime(admin, {
    name: RUNTIME,
    namespace: BUILD_NS,
    isDefault: true,
  });
  await createPipelines(admin, 'in-cluster', { ok: OK });
  const { token } = await createAgentToken(admin, 'agent', [RUNTIME]);
  await install('sluice-runtime', {
    release: 'runtime',
    namespace: NS,
    values: {
      controlPlane: { url: serverUrl },
      runtime: { name: RUNTIME, namespace: BUILD_NS, dindHostAlias: true },
      agent: { token, image: { pullPolicy: 'Never' } },
    },
  });
  await available('runtime-agent', NS);
});

after(async () => {
  await temp?.cleanup();
});

test('the control plane and a runtime from the charts run a build started from this machine', async () => {
  await addHostPathVolume(cluster().kubeConfig, 'sluice-build-1', join(temp.path, 'pv-1'));
  const run = await runSluice(['run-pipeline', 'in-cluster/ok'], {
    env: { SLUICE_SERVER: serverUrl, SLUICE_TOKEN: ADMIN, SLUICE_CONFIG: join(temp.path, 'cfg') },
  });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${await podLogs(NS)}`);
  assert.match(run.stdout, /\[hello\] built by a control plane in the cluster/);
  const info = await runSluice(['runner', 'info'], {
    env: { SLUICE_SERVER: serverUrl, SLUICE_TOKEN: ADMIN, SLUICE_CONFIG: join(temp.path, 'cfg') },
  });
  assert.match(info.stdout, /^in-cluster\/builds \(default\)\s+kubernetes\s+agent\s+yes\s+yes/m);
});
