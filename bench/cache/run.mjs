#!/usr/bin/env node
// cache: what a warm volume is worth on Kubernetes. The test kit's single-node cluster, the
// control plane and an agent on this machine, and the volume provisioner (apps/provisioner)
// serving the runtime's StorageClass. A pipeline whose Dockerfile has slow layers (two RUN
// steps of BENCH_LAYER_SECONDS, 15 s each by default) is built three times:
//   cold_s    its first build: a new volume, every layer built
//   warm_s    its second build: the first build's volume (same reuse key), layers from cache
//   fresh_s   a build of another pipeline with the same Dockerfile: a new volume (fresh key)
// Each is the build's whole duration (created to finished, pods and all); the build step's own
// duration is given beside it. `warm_cold_ratio` is warm_s over cold_s. Goal: at most 0.2.
// Then the agent again with a warm pool of one pod (docs/warm-pool.md): a build of the pipeline
// teaches the pool its pods, the pool's pod is made on the volume that build let go, and the
// next build takes it:
//   warm_pool_s  that build, through the pool: `warm_pool_cold_ratio`, goal at most 0.2 too.
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { KubeClient, KubeResources } from '@sluice/kube';
import { labelValue } from '@sluice/labels';
import { silentLogger } from '@sluice/log';
import { NodeAgent, VolumeProvisioner } from '@sluice/provisioner';
import { CLUSTER_IMAGES, startKubernetes } from '@sluice/testkit';
import {
  createKubeRuntime,
  prepareBuildCluster,
  startKubeAgent,
  startControlPlane,
  TEST_STORAGE_CLASS,
  waitForProbe,
} from '../../test/dist/e2e/cluster-fixture.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';
import { between, BUILD_PHASES } from '../build-timing.mjs';

const LAYER_SECONDS = Number(process.env.BENCH_LAYER_SECONDS ?? 15);
const NS = 'sluice-bench-cache';
const RUNTIME = 'bench/cache';
const yaml = (tag) =>
  [
    'version: "1.0"',
    'steps:',
    '  image:',
    '    type: build',
    '    image_name: sluice/bench-cache',
    `    tag: ${tag}`,
    '    dockerfile:',
    `      content: "FROM sluice/busybox:1\\nRUN sleep ${LAYER_SECONDS} && echo one > /one\\nRUN sleep ${LAYER_SECONDS} && echo two > /two"`,
    '',
  ].join('\n');

const seconds = (ms) => Math.round(ms / 10) / 100;
// BENCH_TRACE_DIR: each build's objects as they change (every 100 ms, ms timestamps) and its
// pods' logs, one file per build, to see where a build's fixed time goes.
const TRACE_DIR = process.env.BENCH_TRACE_DIR;
function podState(p) {
  const c = p.status?.containerStatuses?.[0];
  const state = c?.state ? Object.keys(c.state)[0] : '-';
  return `${p.status?.phase}/${p.spec?.nodeName ?? '-'}/${p.status?.podIP ?? '-'}/${state}/${c?.ready ? 'ready' : '-'}`;
}
function traceObjects(kube, ns, lines, signal, logDir) {
  const seen = new Map();
  let pass = 0;
  mkdirSync(logDir, { recursive: true });
  const note = (key, state) => {
    if (seen.get(key) === state) return;
    seen.set(key, state);
    lines.push(`${new Date().toISOString()} ${key} ${state}`);
  };
  return (async () => {
    while (!signal.aborted) {
      const [pods, claims, volumes] = await Promise.all([
        kube.list({ kind: 'Pod', namespace: ns }),
        kube.list({ kind: 'PersistentVolumeClaim', namespace: ns }),
        kube.list({ kind: 'PersistentVolume' }),
      ]).catch(() => [[], [], []]);
      for (const p of pods) note(`pod/${p.metadata.name}`, podState(p));
      for (const c of claims)
        note(`pvc/${c.metadata.name}`, `${c.status?.phase}/${c.spec?.volumeName ?? '-'}`);
      for (const v of volumes)
        note(`pv/${v.metadata.name}`, `${v.status?.phase}/${v.spec?.claimRef?.name ?? '-'}`);
      // The kubelet removes a pod's logs with the pod: copied while they are there.
      if (++pass % 5 === 0 && logDir)
        execFileSync('sh', ['-c', `cp -r /var/log/pods/${ns}_* ${logDir}/ 2>/dev/null || true`]);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
}
// The build's timing record, phase by phase (the same waterfall as the build page).
const waterfall = (timing) =>
  Object.fromEntries(
    BUILD_PHASES.map(([name, from, to]) => [
      name,
      timing?.[from] && timing?.[to] ? seconds(between(timing[from], timing[to])) : null,
    ]),
  );
const progress = (text) => process.stderr.write(`cache: ${text}\n`);

const temp = mkdtempSync(join(tmpdir(), 'sluice-bench-cache-'));
const cluster = await startKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind, CLUSTER_IMAGES.busybox],
});
let plane;
let agent;
const stopProvisioner = new AbortController();
let provisioning;
try {
  progress(`cluster up in ${seconds(Date.now() - cluster.startedAt)} s`);
  // Air-gapped: the engine image carries the build's base image (cluster-fixture.ts).
  await prepareBuildCluster(cluster.kubeConfig);
  const gateway = cluster.podSubnet.replace(/\.0\/24$/, '.1');
  plane = await startControlPlane({
    database: { dataDir: join(temp, 'data') },
    logPath: join(temp, 'server.log'),
  });
  const kube = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster.kubeconfigPath }, env: {} }),
  );
  await kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await createKubeRuntime(plane.admin, {
    name: RUNTIME,
    namespace: NS,
    controlPlaneUrl: `http://${gateway}:${plane.port}`,
    isDefault: true,
  });
  // The provisioner, and the node agent that keeps spare `local` volumes under the directory.
  mkdirSync(join(temp, 'volumes'), { recursive: true });
  provisioning = Promise.all([
    new VolumeProvisioner({
      resources: kube,
      log: silentLogger,
      provisionerName: 'sluice.io/bench-cache',
      storageClass: TEST_STORAGE_CLASS,
      namespace: NS,
      identity: 'bench',
    }).run(stopProvisioner.signal),
    new NodeAgent({
      resources: kube,
      log: silentLogger,
      nodeName: cluster.nodeName ?? '',
      provisionerName: 'sluice.io/bench-cache',
      storageClass: TEST_STORAGE_CLASS,
      volumeParentDir: join(temp, 'volumes'),
    }).keepSpares(stopProvisioner.signal),
  ]);
  const ids = await createPipelines(plane.admin, 'bench', { slow: yaml('a'), other: yaml('b') });
  agent = await startKubeAgent(plane, cluster, {
    name: 'bench-agent',
    runtime: RUNTIME,
    dir: temp,
  });

  const run = async (label, pipelineId) => {
    const traceLines = [];
    const stopTrace = new AbortController();
    const tracing =
      TRACE_DIR && traceObjects(kube, NS, traceLines, stopTrace.signal, join(TRACE_DIR, label));
    const build = await plane.admin.call('createBuild', { params: { pipelineId }, body: {} });
    traceLines.push(`${build.createdAt} build created`);
    const done = await waitForProbe(
      `build ${build.id}`,
      async () => {
        const b = await plane.admin.call('getBuild', { params: { buildId: build.id } });
        return b.finishedAt === null ? undefined : b;
      },
      600_000,
      250,
    );
    if (done.status !== 'success')
      throw new Error(`build ${build.id} ended ${done.status}: ${done.reason}`);
    const step = done.steps?.find((s) => s.name === 'image');
    const stepMs =
      step?.startedAt && step?.finishedAt
        ? Date.parse(step.finishedAt) - Date.parse(step.startedAt)
        : NaN;
    const totalMs = Date.parse(done.finishedAt) - Date.parse(done.createdAt);
    const phases = waterfall(done.timing);
    if (TRACE_DIR) {
      stopTrace.abort();
      await tracing;
      traceLines.push(`${JSON.stringify(done.timing)}`);
      writeFileSync(join(TRACE_DIR, `${label}.trace`), traceLines.join('\n') + '\n');
    }
    progress(
      `${label}: ${seconds(totalMs)} s (build step ${seconds(stepMs)} s) ${JSON.stringify(phases)}`,
    );
    // The next build's claim may reuse this volume only once this one's claim is gone (its own,
    // or its pool pod's: both carry its id).
    const claims = { kind: 'PersistentVolumeClaim', namespace: NS };
    const selector = `sluice.io/build-id=${labelValue(build.id)}`;
    await waitForProbe(
      `build ${build.id}'s claim deleted`,
      async () =>
        (await kube.list({ ...claims, labelSelector: selector })).length === 0 || undefined,
      120_000,
    );
    return { totalMs, stepMs, phases };
  };
  const cold = await run('cold', ids.slow);
  const warm = await run('warm', ids.slow);
  const fresh = await run('fresh key', ids.other);

  // The same runtime with a warm pool of one pod: its first build teaches the pool, whose pod
  // is then made on the volume that build let go; the next build of the pipeline takes it.
  await agent.stop();
  agent = await startKubeAgent(plane, cluster, {
    name: 'bench-pool-agent',
    runtime: RUNTIME,
    dir: temp,
    env: { SLUICE_WARM_POOL_MAX: '1' },
  });
  await run('pool taught', ids.slow);
  await waitForProbe(
    'a warm-pool pod ready on the volume the build let go',
    async () => {
      const pods = await kube.list({
        kind: 'Pod',
        namespace: NS,
        labelSelector: 'sluice.io/warm-pool=waiting',
      });
      return (
        pods.some(
          (p) =>
            p.metadata.annotations?.['sluice.io/warm-pool-volume'] !== undefined &&
            (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        ) || undefined
      );
    },
    300_000,
  );
  const pooled = await run('warm through the pool', ids.slow);
  console.log(
    JSON.stringify({
      bench: 'cache',
      layer_seconds: LAYER_SECONDS,
      cold_s: seconds(cold.totalMs),
      warm_s: seconds(warm.totalMs),
      fresh_s: seconds(fresh.totalMs),
      warm_pool_s: seconds(pooled.totalMs),
      build_step_s: {
        cold: seconds(cold.stepMs),
        warm: seconds(warm.stepMs),
        fresh: seconds(fresh.stepMs),
        warm_pool: seconds(pooled.stepMs),
      },
      warm_phases_s: warm.phases,
      warm_pool_phases_s: pooled.phases,
      warm_cold_ratio: Math.round((warm.totalMs / cold.totalMs) * 100) / 100,
      warm_pool_cold_ratio: Math.round((pooled.totalMs / cold.totalMs) * 100) / 100,
      goal: { warm_cold_ratio: 0.2, warm_pool_cold_ratio: 0.2 },
    }),
  );
} finally {
  await agent?.stop();
  stopProvisioner.abort();
  await provisioning;
  await plane?.stop();
  await cluster.stop();
  if (TRACE_DIR) execFileSync('sh', ['-c', `cp ${temp}/*.log ${TRACE_DIR}/ 2>/dev/null || true`]);
  rmSync(temp, { recursive: true, force: true });
}
