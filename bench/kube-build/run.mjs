#!/usr/bin/env node
// kube-build: how fast a build starts on Kubernetes with the runner agent in the cluster. The
// test kit's single-node cluster with the engine and dind images already on the node; the agent
// installed from the runtime chart's objects (renderRuntimeInstall, applied through the API
// server) runs as a pod with in-cluster config; the control plane runs on this machine. After one
// warm-up build, BENCH_BUILDS (20) builds of a one-step pipeline run one after the other. Each is
// timed from its creation to its first step starting, with the phases of its timing record:
//   queued_to_elected_s       the scheduler picked a runtime
//   elected_to_dispatched_s   an agent took the first task
//   dispatched_to_objects_s   the PVC, secrets, config and both pods were created
//   objects_to_engine_s       the engine pod ran and reached the control plane
//   engine_to_first_step_s    the engine started the first step (its dind ready)
// Baseline, in the same run: a bare busybox pod's creation to Running on the same node
// (`baseline_pod_start_s`); `ratio_p50` is p50 over it. Goal: p50 at most 3 s, p99 at most 5 s.
// Then BURST (20) builds created at once (`failed` names any that did not succeed). Then the
// same with a warm pool of POOL (5) pods (docs/warm-pool.md: the install's `runtime.warmPool`,
// as `runner init --warm-pool` sets it): after one build that teaches the pool its pods and the
// pool ready, the same BUILDS builds one after the other (`pool: {p50_s, p99_s}`, goal p50 at
// most 1 s, p99 at most 2 s) and the burst (its first POOL builds on pool pods, the rest on pods
// of their own). While the pool runs, its pods are watched (every 250 ms): `pool.pod_ready_s`
// is the median time from a pool pod's creation (when first listed, so up to 250 ms late) to
// its claim bound, its node chosen, its containers running and the pod ready, the time a
// refill takes (BENCH_POOL_EVENTS=1 also prints the pool pods' last 40 events).
// BENCH_GAP_MS (0) waits that long before each of the one-after-the-other builds: builds that
// arrive apart, so that the pool's refills are done before the next build (back to back, on 2
// cores, each build starts beside the refill for the one before). BENCH_LOG_TIMELINE=1 prints
// each build's first log lines timed from its engine's start. BENCH_BUILD_TIMEOUT_S (180): how
// long one build may take to finish; a burst's last builds wait for room on a slow node.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeClient, KubeResources } from '@sluice/kube';
import { renderRuntimeInstall } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, startKubernetes, waitForPod } from '@sluice/testkit';
import {
  ADMIN_TOKEN,
  addHostPathVolume,
  createAgentToken,
  createKubeRuntime,
  prepareBuildCluster,
  startControlPlane,
  waitForProbe,
} from '../../test/dist/e2e/cluster-fixture.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';
import { between, START_PHASES } from '../build-timing.mjs';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 20);
const POOL = Number(process.env.BENCH_POOL ?? 5);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);
/** How long one build may take to finish (a burst's last waits for the others' room). */
const BUILD_TIMEOUT_MS = Number(process.env.BENCH_BUILD_TIMEOUT_S ?? 180) * 1000;
const NS = 'sluice-bench';
const RUNTIME = 'bench/kube';
const YAML =
  'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo hi"]\n';

const seconds = (ms) => Math.round(ms / 10) / 100;
const quantile = (xs, q) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const progress = (text) => process.stderr.write(`kube-build: ${text}\n`);

/**
 * Watches the pool's pods until `stop`, noting when each was first seen with its claim bound, a
 * node, every container running, and ready; `stop` gives the median of each from its creation.
 */
function watchPoolPods(core) {
  const seen = new Map();
  let running = true;
  const note = (entry, key, reached) => {
    if (reached && entry[key] === undefined) entry[key] = Date.now();
  };
  const poll = async () => {
    const [{ items: pods }, { items: claims }] = await Promise.all([
      core.listNamespacedPod({ namespace: NS, labelSelector: 'sluice.io/warm-pool' }),
      core.listNamespacedPersistentVolumeClaim({ namespace: NS }),
    ]);
    const bound = new Set(
      claims.filter((c) => c.status?.phase === 'Bound').map((c) => c.metadata?.name),
    );
    for (const pod of pods) {
      const name = pod.metadata?.name ?? '';
      if (!seen.has(name)) seen.set(name, { created: Date.now() });
      const entry = seen.get(name);
      const claimNames = (pod.spec?.volumes ?? [])
        .map((v) => v.persistentVolumeClaim?.claimName)
        .filter((c) => c !== undefined);
      note(entry, 'claim_bound', claimNames.length > 0 && claimNames.every((c) => bound.has(c)));
      note(entry, 'scheduled', pod.spec?.nodeName !== undefined);
      const statuses = pod.status?.containerStatuses ?? [];
      note(entry, 'running', statuses.length > 0 && statuses.every((c) => c.state?.running));
      for (const c of statuses) note(entry, `${c.name}_running`, c.state?.running !== undefined);
      note(
        entry,
        'ready',
        (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
    }
  };
  const loop = (async () => {
    while (running) {
      await poll().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const made = [...seen.values()];
      const median = (key) => {
        const xs = made.filter((e) => e[key] !== undefined).map((e) => e[key] - e.created);
        return xs.length === 0 ? null : seconds(quantile(xs, 0.5));
      };
      return {
        pods: made.length,
        claim_bound: median('claim_bound'),
        scheduled: median('scheduled'),
        running: median('running'),
        dind_running: median('dind_running'),
        engine_running: median('engine_running'),
        ready: median('ready'),
      };
    },
  };
}

const temp = mkdtempSync(join(tmpdir(), 'sluice-bench-kube-build-'));
const cluster = await startKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind, CLUSTER_IMAGES.busybox],
});
let plane;
try {
  progress(`cluster up in ${seconds(Date.now() - cluster.startedAt)} s`);
  // Air-gapped: the engine image carries the build's base image (cluster-fixture.ts).
  await prepareBuildCluster(cluster.kubeConfig);
  const gateway = cluster.podSubnet.replace(/\.0\/24$/, '.1');
  plane = await startControlPlane({
    database: { dataDir: join(temp, 'data') },
    logPath: join(temp, 'server.log'),
  });
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  const controlPlaneUrl = `http://${gateway}:${plane.port}`;
  await createKubeRuntime(plane.admin, {
    name: RUNTIME,
    namespace: NS,
    controlPlaneUrl,
  });
  const { hello: pipelineId } = await createPipelines(plane.admin, 'bench', { hello: YAML });
  const { token } = await createAgentToken(plane.admin, 'bench-agent', [RUNTIME]);
  const kube = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster.kubeconfigPath }, env: {} }),
  );
  const install = async (warmPool) => {
    for (const object of renderRuntimeInstall({
      release: 'bench',
      namespace: NS,
      values: {
        controlPlane: { url: controlPlaneUrl },
        runtime: { name: RUNTIME, dindHostAlias: true, warmPool },
        agent: { token, image: { pullPolicy: 'Never' } },
      },
    }))
      await kube.apply(object);
  };
  await install(undefined);
  await waitForProbe(
    'the in-cluster agent to report healthy',
    async () => {
      const { items } = await plane.admin.call('listAgents');
      return items.some((a) => a.online && a.health?.healthy) || undefined;
    },
    180_000,
  );
  progress('agent in the cluster is healthy');

  // Baseline: a bare pod on the same node.
  const created = Date.now();
  await core.createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name: 'baseline' },
      spec: {
        containers: [
          {
            name: 'c',
            image: CLUSTER_IMAGES.busybox,
            imagePullPolicy: 'Never',
            command: ['sleep', '600'],
          },
        ],
        terminationGracePeriodSeconds: 0,
      },
    },
  });
  await waitForPod(core, NS, 'baseline', { phases: ['Running'] });
  const baselineMs = Date.now() - created;
  await core.deleteNamespacedPod({ name: 'baseline', namespace: NS });

  let volumes = 0;
  const addVolumes = async (n) => {
    for (let k = 0; k < n; k++, volumes++)
      await addHostPathVolume(cluster.kubeConfig, `bench-${volumes}`, join(temp, `pv-${volumes}`));
  };
  const createBuild = () =>
    plane.admin.call('createBuild', {
      params: { pipelineId },
      body: { runtimeEnvironment: RUNTIME },
    });
  const finished = async (build, { failures } = {}) => {
    const done = await waitForProbe(
      `build ${build.id}`,
      async () => {
        const b = await plane.admin.call('getBuild', { params: { buildId: build.id } });
        return b.finishedAt === null ? undefined : b;
      },
      BUILD_TIMEOUT_MS,
      200,
    );
    if (done.status !== 'success') {
      const why = `build ${build.id} ended ${done.status}: ${done.reason}`;
      if (failures === undefined) throw new Error(why);
      failures.push(why);
      progress(why);
      return undefined;
    }
    if (process.env.BENCH_LOG_TIMELINE) await logTimeline(done);
    return {
      startMs: between(done.createdAt, done.timing.firstStepStartedAt),
      timing: done.timing,
    };
  };
  /**
   * BENCH_LOG_TIMELINE=1: each build's first log lines, timed from its engine's start, beside
   * its first step's start (where the engine's part of a start goes).
   */
  const logTimeline = async (build) => {
    const res = await fetch(`${plane.url}/api/v1/builds/${build.id}/log/stream`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const engineAt = Date.parse(build.timing.engineStartedAt);
    const lines = [];
    for (const [, data] of (await res.text()).matchAll(/^data: (.*)$/gm)) {
      const chunk = JSON.parse(data);
      for (const l of chunk.lines ?? [])
        lines.push(`+${Date.parse(l.at) - engineAt} ms ${l.stream} ${l.step ?? '-'}: ${l.line}`);
    }
    const first = Date.parse(build.timing.firstStepStartedAt) - engineAt;
    progress(
      `${build.id}: first step +${first} ms after its engine's start\n  ${lines.slice(0, 10).join('\n  ')}`,
    );
  };
  /** One build to warm up, then `count` one after the other. */
  const sequential = async (label, count) => {
    const runs = [];
    let lastCreated;
    for (let i = 0; i <= count; i++) {
      await addVolumes(1);
      await sleep(GAP_MS);
      const build = await createBuild();
      const run = await finished(build);
      const apart = lastCreated === undefined ? NaN : between(lastCreated, build.createdAt);
      lastCreated = build.createdAt;
      if (i === 0) {
        progress(`${label}: warm-up build done`);
        continue;
      }
      runs.push(run);
      // Where each build's start went, and how long after the one before it came.
      const phases = START_PHASES.map(([name, from, to]) => {
        return `${name.replace(/_s$/, '')} ${seconds(between(run.timing[from], run.timing[to]))}`;
      });
      progress(
        `${label}: build ${i}/${count}: first step after ${seconds(run.startMs)} s ` +
          `(${phases.join(', ')}; created ${seconds(apart)} s after the one before)`,
      );
    }
    return runs;
  };
  /**
   * `count` builds created at once: the starts of those that succeeded, and why the others did
   * not (a build on a pool pod preempted by the burst's own pods: docs/warm-pool.md, Limits).
   */
  const burst = async (label, count) => {
    await addVolumes(count);
    const builds = await Promise.all(Array.from({ length: count }, () => createBuild()));
    const failures = [];
    const runs = await Promise.all(builds.map((b) => finished(b, { failures })));
    progress(`${label}: burst of ${count} done`);
    return { starts: runs.flatMap((r) => (r === undefined ? [] : [r.startMs])), failures };
  };
  const figures = (starts) => ({
    p50_s: seconds(quantile(starts, 0.5)),
    p99_s: seconds(quantile(starts, 0.99)),
  });
  const burstFigures = ({ starts, failures }) => {
    const sorted = [...starts].sort((a, b) => a - b);
    return {
      builds: starts.length + failures.length,
      failed: failures,
      fastest_pool_p50_s: seconds(quantile(sorted.slice(0, POOL), 0.5)),
      rest_p50_s: seconds(quantile(sorted.slice(POOL), 0.5)),
      rest_p99_s: seconds(quantile(sorted.slice(POOL), 0.99)),
      ...figures(starts),
    };
  };

  const runs = await sequential('no pool', BUILDS);
  const burstWithout = await burst('no pool', BURST);

  // The same install with a warm pool (as `runner init --warm-pool` makes it): its PriorityClass,
  // and a rollout of the agent's Deployment with the pool's variables.
  await addVolumes(4 * POOL + BURST);
  await install({ minSize: POOL, maxSize: POOL });
  const poolReady = () =>
    waitForProbe(
      `${POOL} warm-pool pods ready`,
      async () => {
        const { items } = await core.listNamespacedPod({
          namespace: NS,
          labelSelector: 'sluice.io/warm-pool=waiting',
        });
        const ready = items.filter((pod) =>
          (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length >= POOL || undefined;
      },
      300_000,
    );
  // The pool learns its pods from a build (the new agent's first), then fills.
  await waitForProbe(
    'the new agent to report a warm pool',
    async () => {
      const { items } = await plane.admin.call('listAgents');
      return (
        items.some((a) => a.online && a.health?.runtimes?.some((r) => r.warmPool !== undefined)) ||
        undefined
      );
    },
    180_000,
  );
  // The build that teaches the pool must go to the new agent: the old one (no pool) is gone
  // first, or it takes the build and the new agent never sees a build's objects.
  await waitForProbe(
    'one agent pod left, the new one',
    async () => {
      const { items } = await core.listNamespacedPod({ namespace: NS });
      const agents = items.filter((pod) => pod.metadata?.name?.startsWith('bench-agent-'));
      return (
        (agents.length === 1 && agents[0]?.metadata?.deletionTimestamp === undefined) || undefined
      );
    },
    180_000,
  );
  const timeline = watchPoolPods(core);
  await addVolumes(1);
  await finished(await createBuild());
  await poolReady();
  progress('warm pool ready');
  const pooled = await sequential('pool', BUILDS);
  await poolReady();
  const burstWith = await burst('pool', BURST);
  const podReady = await timeline.stop();
  if (process.env.BENCH_POOL_EVENTS) {
    const { items } = await core.listNamespacedEvent({ namespace: NS });
    for (const e of items
      .filter((e) => e.involvedObject?.name?.startsWith('warm-pool-'))
      .slice(-40))
      progress(
        `event ${e.firstTimestamp?.toISOString?.() ?? e.eventTime} ${e.involvedObject?.name} ${e.reason}: ${e.message}`,
      );
  }

  const starts = runs.map((r) => r.startMs);
  /** The median of each phase of the builds' timing records: where a start's time goes. */
  const phasesOf = (builds) =>
    Object.fromEntries(
      START_PHASES.map(([name, from, to]) => [
        name,
        seconds(
          quantile(
            builds.map((r) => between(r.timing[from], r.timing[to])),
            0.5,
          ),
        ),
      ]),
    );
  const p50 = quantile(starts, 0.5);
  console.log(
    JSON.stringify({
      bench: 'kube-build',
      builds: runs.length,
      gap_ms: GAP_MS,
      p50_s: seconds(p50),
      p99_s: seconds(quantile(starts, 0.99)),
      phases_median: phasesOf(runs),
      baseline_pod_start_s: seconds(baselineMs),
      ratio_p50: Math.round((p50 / baselineMs) * 100) / 100,
      pool: {
        size: POOL,
        ...figures(pooled.map((r) => r.startMs)),
        phases_median: phasesOf(pooled),
        pod_ready_s: podReady,
      },
      burst: { without_pool: burstFigures(burstWithout), with_pool: burstFigures(burstWith) },
      goal: { p50_s: 3, p99_s: 5, pool: { p50_s: 1, p99_s: 2 } },
    }),
  );
} finally {
  await plane?.stop();
  await cluster.stop();
  rmSync(temp, { recursive: true, force: true });
}
