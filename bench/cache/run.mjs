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
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { KubeClient, KubeResources } from '@sluice/kube';
import { silentLogger } from '@sluice/log';
import { VolumeProvisioner } from '@sluice/provisioner';
import { CLUSTER_IMAGES, startKubernetes } from '@sluice/testkit';
import {
  createKubeRuntime,
  prepareBuildCluster,
  startKubeAgent,
  startControlPlane,
  waitForProbe,
} from '../../test/dist/e2e/cluster-fixture.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';

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
const progress = (text) => process.stderr.write(`cache: ${text}\n`);

const temp = mkdtempSync(join(tmpdir(), 'sluice-bench-cache-'));
const cluster = await startKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind, CLUSTER_IMAGES.busybox],
});
let registry;
let plane;
let agent;
const stopProvisioner = new AbortController();
let provisioning;
try {
  progress(`cluster up in ${seconds(Date.now() - cluster.startedAt)} s`);
  registry = await prepareBuildCluster(cluster.kubeConfig);
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
    registryMirror: `${gateway}:${registry.port}`,
    isDefault: true,
  });
  provisioning = new VolumeProvisioner({
    resources: kube,
    log: silentLogger,
    provisionerName: 'sluice.io/bench-cache',
    storageClass: 'sluice-test',
    namespace: NS,
    volumeParentDir: join(temp, 'volumes'),
    identity: 'bench',
    resyncMs: 250,
  }).run(stopProvisioner.signal);
  const ids = await createPipelines(plane.admin, 'bench', { slow: yaml('a'), other: yaml('b') });
  agent = await startKubeAgent(plane, cluster, {
    name: 'bench-agent',
    runtime: RUNTIME,
    dir: temp,
  });

  const run = async (label, pipelineId) => {
    const build = await plane.admin.call('createBuild', { params: { pipelineId }, body: {} });
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
    progress(`${label}: ${seconds(totalMs)} s (build step ${seconds(stepMs)} s)`);
    // The next build's claim may reuse this volume only once this one's claim is gone.
    await waitForProbe(
      `build ${build.id}'s claim deleted`,
      async () =>
        (await kube.list({ kind: 'PersistentVolumeClaim', namespace: NS })).length === 0 ||
        undefined,
      120_000,
    );
    return { totalMs, stepMs };
  };
  const cold = await run('cold', ids.slow);
  const warm = await run('warm', ids.slow);
  const fresh = await run('fresh key', ids.other);
  console.log(
    JSON.stringify({
      bench: 'cache',
      layer_seconds: LAYER_SECONDS,
      cold_s: seconds(cold.totalMs),
      warm_s: seconds(warm.totalMs),
      fresh_s: seconds(fresh.totalMs),
      build_step_s: {
        cold: seconds(cold.stepMs),
        warm: seconds(warm.stepMs),
        fresh: seconds(fresh.stepMs),
      },
      warm_cold_ratio: Math.round((warm.totalMs / cold.totalMs) * 100) / 100,
      goal: { warm_cold_ratio: 0.2 },
    }),
  );
} finally {
  await agent?.stop();
  stopProvisioner.abort();
  await provisioning;
  await plane?.stop();
  await registry?.stop();
  await cluster.stop();
  rmSync(temp, { recursive: true, force: true });
}
