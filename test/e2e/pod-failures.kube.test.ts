/**
 * Build pods that fail for a reason of the cluster's, on a real single-node Kubernetes: a pod no
 * node can take (an impossible nodeSelector), an engine image that does not exist, an engine
 * killed for memory. The agent's pod monitor sees each in seconds; the control plane retries the
 * build once on new pods and then ends it `error` with the pod's own reason, instead of letting
 * it wait for a timeout. A step that fails (the user's error) is never retried. An engine
 * SIGKILLed mid-step ends its build with the reason, and its log spool is left on the build's
 * volume (not in the engine container), where an engine of the build's next attempt would find
 * it.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { buildObjectName } from '@sluice/runtime-spec';
import { CoreV1Api } from '@kubernetes/client-node';
import { CLUSTER_IMAGES, makeTempDir, runCommand, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  addHostPathVolume,
  buildObjects,
  startKubeAgent,
  objectCount,
  startBuildPlane,
  waitForProbe,
} from './cluster-fixture.js';
import type { AgentProcess, ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-pod-failures';
const RUNTIME = 'pods/ci';
/** Far below the 300 s an engine may stay silent: the bound proves the monitor, not a timeout. */
const FAILURE_TIMEOUT_MS = 90_000;

/** Merge patches of the runtime that break its pods one way, and undo it. */
const BREAK = {
  unschedulable: {
    runtimeScheduler: { cluster: { nodeSelector: { 'sluice.io/no-such-node': 'true' } } },
    dockerDaemonScheduler: { cluster: { nodeSelector: { 'sluice.io/no-such-node': 'true' } } },
  },
  // Nothing listens there: the pull fails at once, as for an image that does not exist.
  noImage: {
    runtimeScheduler: { image: '127.0.0.1:1/sluice/no-such-engine:1', imagePullPolicy: 'Always' },
  },
  oom: {
    runtimeScheduler: { resources: { requests: { memory: '8Mi' }, limits: { memory: '8Mi' } } },
  },
};
const UNDO: Record<keyof typeof BREAK, Record<string, unknown>> = {
  unschedulable: {
    runtimeScheduler: { cluster: { nodeSelector: null } },
    dockerDaemonScheduler: { cluster: { nodeSelector: null } },
  },
  noImage: { runtimeScheduler: { image: 'sluice/engine:1', imagePullPolicy: 'Never' } },
  oom: { runtimeScheduler: { resources: { requests: { memory: '64Mi' }, limits: null } } },
};

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let agent: AgentProcess;
let pipelines: Record<string, string>;
let volumes = 0;

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-pod-failures-');
  ({ plane } = await startBuildPlane(cluster(), {
    dir: temp.path,
    namespace: NS,
    runtime: RUNTIME,
  }));
  admin = plane.admin;
  pipelines = await createPipelines(admin, 'pods', {
    echo: 'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo hi"]\n',
    failing:
      'version: "1.0"\nsteps:\n  broken:\n    image: sluice/busybox:1\n    commands: ["exit 3"]\n',
    slow: 'version: "1.0"\nsteps:\n  wait:\n    image: sluice/busybox:1\n    commands: ["echo sleeping", "sleep 600"]\n',
  });
  agent = await startKubeAgent(plane, cluster(), {
    name: 'pods-agent',
    runtime: RUNTIME,
    dir: temp.path,
    // Short grace times: the test cluster has no autoscaler, and registries here never recover.
    env: { SLUICE_POD_FAILURE_GRACE_SECONDS: '3', SLUICE_UNSCHEDULABLE_GRACE_SECONDS: '5' },
  });
});

after(async () => {
  await agent?.stop();
  await plane?.stop();
  await temp?.cleanup();
});

/** Runs the pipeline with the runtime broken one way; the finished build and its pods' names. */
type PipelineName = 'echo' | 'failing' | 'slow';

async function runBroken(
  broken: keyof typeof BREAK | undefined,
  pipeline: PipelineName,
  during?: (buildId: string) => Promise<void>,
) {
  const patch = (body: Record<string, unknown>) =>
    admin.call('patchRuntimeEnvironment', { params: { name: RUNTIME }, body: { patch: body } });
  if (broken !== undefined) await patch(BREAK[broken]);
  try {
    return await runBuild(pipeline, broken ?? 'working', during);
  } finally {
    if (broken !== undefined) await patch(UNDO[broken]);
  }
}

/** Runs the pipeline, with `during` alongside; the finished build and its pods' names. */
async function runBuild(
  pipeline: PipelineName,
  what: string,
  during?: (buildId: string) => Promise<void>,
) {
  volumes += 1;
  await addHostPathVolume(
    cluster().kubeConfig,
    `sluice-pods-${volumes}`,
    join(temp.path, `pv-${volumes}`),
  );
  const created = await admin.call('createBuild', {
    params: { pipelineId: pipelines[pipeline] ?? '' },
    body: {},
  });
  const pods = new Set<string>();
  const alongside = during?.(created.id);
  const build = await waitForProbe(
    `build ${created.id} (${what}) to end (logs in ${temp.path})`,
    async (): Promise<Build | undefined> => {
      for (const pod of (await buildObjects(cluster().kubeConfig, NS, created.id)).pods)
        pods.add(pod);
      const state = await admin.call('getBuild', { params: { buildId: created.id } });
      return FINISHED_STATUSES.includes(state.status) ? state : undefined;
    },
    FAILURE_TIMEOUT_MS,
    500,
  );
  await alongside;
  await waitForProbe(
    `build ${created.id}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, created.id)) === 0,
  );
  const seconds = (Date.parse(build.finishedAt ?? '') - Date.parse(build.createdAt)) / 1000;
  return {
    build,
    pods: [...pods].sort(),
    took: `${what}: ${build.status} after ${seconds.toFixed(1)} s`,
  };
}

/**
 * SIGKILLs the engine's process, as the kernel's OOM killer or a crash would end it. The kubelet
 * writes the container's id into the pod's status a moment after it starts (seconds later on a
 * loaded node): the step's log line can come first, so the id is waited for.
 */
async function killEngine(buildId: string): Promise<void> {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const name = buildObjectName('engine', buildId);
  const socket = cluster().containerdSocket ?? '';
  let seen = '';
  const pid = await waitForProbe(
    `the engine container of ${name} in its status and running in containerd`,
    async () => {
      const pod = await core.readNamespacedPod({ namespace: NS, name });
      const status = pod.status?.containerStatuses?.find((c) => c.name === 'engine');
      const container = (status?.containerID ?? '').replace(/^\w+:\/\//, '');
      if (container === '') return undefined;
      const tasks = await runCommand('ctr', ['--address', socket, '-n', 'k8s.io', 'tasks', 'ls']);
      seen = `${container} among: ${tasks.stdout}`;
      return tasks.stdout
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .find(([id]) => id === container)?.[1];
    },
    30_000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)} (last seen: ${seen})`);
  });
  process.kill(Number(pid), 'SIGKILL');
}

/** Where the build's volume is on the node: the host path of the volume its claim is bound to. */
async function hostPathOf(buildId: string): Promise<string> {
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const claim = await core.readNamespacedPersistentVolumeClaim({
    namespace: NS,
    name: buildObjectName('pvc-dind', buildId),
  });
  const name = claim.spec?.volumeName ?? '';
  const path = (await core.readPersistentVolume({ name })).spec?.hostPath?.path;
  assert.ok(path, `the build's claim is bound to a hostPath volume: ${name}`);
  return path;
}

function expectRetriedOnce(build: Build, pods: string[], reason: RegExp): void {
  assert.equal(build.status, 'error', JSON.stringify(build));
  assert.match(build.reason ?? '', reason);
  assert.match(build.reason ?? '', /\(after 2 attempt\(s\) on new pods\)$/);
  const dind = buildObjectName('dind', build.id);
  assert.ok(pods.includes(`${dind}-r1`), `the second attempt had new pods: ${pods.join(', ')}`);
  assert.ok(!pods.some((p) => p.endsWith('-r2')), `no third attempt: ${pods.join(', ')}`);
}

test("a build pod no node can take ends the build with the scheduler message, after one retry; the agent's /metrics shows it Pending", async (t) => {
  const passes = () =>
    agent.metric('sluice_agent_reconcile_duration_seconds_count', { loop: 'pod-monitor' });
  const before = await passes();
  const { build, pods, took } = await runBroken('unschedulable', 'echo', async () => {
    await waitForProbe(
      "a Pending build pod on the agent's /metrics",
      async () => (await agent.metric('sluice_agent_build_pods', { phase: 'Pending' })) >= 1,
      FAILURE_TIMEOUT_MS,
      500,
    );
  });
  t.diagnostic(took);
  expectRetriedOnce(
    build,
    pods,
    /: Unschedulable: 0\/1 nodes are available: 1 node\(s\) didn't match (node selector|Pod's node affinity)/,
  );
  assert.ok((await passes()) > before, 'the pod monitor passes are counted');
});

test('an engine image that cannot be pulled ends the build with the pull error, after one retry', async (t) => {
  const { build, pods, took } = await runBroken('noImage', 'echo');
  t.diagnostic(took);
  expectRetriedOnce(
    build,
    pods,
    /engine-.*: (ErrImagePull|ImagePullBackOff): container engine: .*no-such-engine/,
  );
});

test('an engine killed for memory ends the build OOMKilled, after one retry', async (t) => {
  const { build, pods, took } = await runBroken('oom', 'echo');
  t.diagnostic(took);
  expectRetriedOnce(
    build,
    pods,
    // containerd reports the kernel's OOM kill as OOMKilled when its OOM event comes before the
    // exit; on a loaded node the exit can come first, and the pod says only code 137.
    /engine-.*: (OOMKilled: container engine was killed for using more memory|Error: container engine exited with code 137 \(Error\), SIGKILL: out of memory)/,
  );
});

test("a failing step is the user's error: the build ends failure on its first pods", async (t) => {
  const { build, pods, took } = await runBroken(undefined, 'failing');
  t.diagnostic(took);
  assert.equal(build.status, 'failure', JSON.stringify(build));
  assert.deepEqual(
    pods.filter((p) => p.startsWith('engine')),
    [buildObjectName('engine', build.id)],
  );
});

test('an engine SIGKILLed while its step runs ends the build error with the reason, never running for ever', async (t) => {
  let volume = '';
  const { build, took } = await runBuild('slow', 'engine killed', async (buildId) => {
    await waitForProbe(
      'the step printing',
      async () => {
        const log = await admin.raw('buildLog', { params: { buildId } });
        return (await log.text()).includes('[wait] sleeping');
      },
      FAILURE_TIMEOUT_MS,
      500,
    );
    volume = await hostPathOf(buildId);
    await killEngine(buildId);
  });
  t.diagnostic(took);
  // The engine's spool was a directory of the build's volume: what the killed engine spooled is
  // there, not lost with its container.
  const spool = join(volume, 'sluice-log-spool', build.id);
  const segments = (await readdir(spool)).filter((name) => name.endsWith('.seg'));
  assert.ok(segments.length > 0, `segments in ${spool}`);
  const spooled = await Promise.all(segments.map((name) => readFile(join(spool, name), 'utf8')));
  assert.match(spooled.join(''), /"line":"sleeping"/, "the step's line is in the spool");
  assert.equal(build.status, 'error', JSON.stringify(build));
  assert.match(
    build.reason ?? '',
    /^Infrastructure error on pod engine-\S+: Error: container engine exited with code 137 \(Error\), SIGKILL: out of memory, or killed from outside \(not retried: its steps had started\)$/,
  );
  assert.equal(build.steps[0]?.status, 'terminated');
});
