/**
 * A build end to end on a real single-node Kubernetes: triggered through the API, the agent
 * turns it into a PVC, a Secret, a ConfigMap, a dind pod and an engine pod; the engine (our
 * image) drives its dind over mutual TLS, loading the step image it carries onto the new
 * volume (no registry: the cluster is air-gapped); the log reaches the control plane; the build ends with the
 * pipeline's result; afterwards nothing of the build is left. A failing step and a cancel
 * while a step runs are shown the same way.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { CLUSTER_IMAGES, makeTempDir, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  addHostPathVolume,
  buildObjects,
  startKubeAgent,
  expectedObjects,
  objectCount,
  startBuildPlane,
  waitForProbe,
} from './cluster-fixture.js';
import type { AgentProcess, BuildObjects, ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-node';
const RUNTIME = 'node/ci';
const BUILD_TIMEOUT_MS = 240_000;

const PIPELINES = {
  ok: [
    'version: "1.0"',
    'steps:',
    '  hello:',
    '    image: sluice/busybox:1',
    '    commands: ["echo hello from $(hostname)", "cf_export WHO=dind"]',
    '  second:',
    '    image: sluice/busybox:1',
    '    commands: ["echo second step sees $WHO"]',
    // Built in the build's own dind, then run by name in a parallel lane.
    '  image:',
    '    type: build',
    '    image_name: sluice/kube-e2e',
    '    tag: t1',
    '    dockerfile:',
    '      content: "FROM sluice/busybox:1\\nRUN echo built in dind > /built"',
    '  checks:',
    '    type: parallel',
    '    steps:',
    '      use_image:',
    '        image: ${{image}}',
    '        commands: ["cat /built"]',
    '      lane_two:',
    '        image: sluice/busybox:1',
    '        commands: ["echo lane two"]',
  ],
  failing: [
    'version: "1.0"',
    'steps:',
    '  broken:',
    '    image: sluice/busybox:1',
    '    commands: ["echo about to fail", "exit 3"]',
  ],
  slow: [
    'version: "1.0"',
    'steps:',
    '  wait:',
    '    image: sluice/busybox:1',
    '    commands: ["echo sleeping", "sleep 600"]',
  ],
} as const;

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let agent: AgentProcess;
let pipelineIds: Record<string, string>;
let volumes = 0;

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-runner-node-');
  ({ plane } = await startBuildPlane(cluster(), {
    dir: temp.path,
    namespace: NS,
    runtime: RUNTIME,
  }));
  admin = plane.admin;
  const yamls = Object.fromEntries(
    Object.entries(PIPELINES).map(([name, lines]) => [name, `${lines.join('\n')}\n`] as const),
  );
  pipelineIds = await createPipelines(admin, 'node', yamls);
  agent = await startKubeAgent(plane, cluster(), {
    name: 'node-agent',
    runtime: RUNTIME,
    dir: temp.path,
  });
});

after(async () => {
  await agent?.stop();
  await plane?.stop();
  await temp?.cleanup();
});

/** A fresh hostPath volume for the next build's PVC (no provisioner on the test cluster). */
async function addVolume(): Promise<void> {
  volumes += 1;
  await addHostPathVolume(
    cluster().kubeConfig,
    `sluice-test-${volumes}`,
    join(temp.path, `pv-${volumes}`),
  );
}

/** Starts a build and records the objects seen while it runs. */
async function runBuild(
  pipeline: keyof typeof PIPELINES,
  during?: (buildId: string) => Promise<void>,
) {
  await addVolume();
  const build = await admin.call('createBuild', {
    params: { pipelineId: pipelineIds[pipeline] ?? '' },
    body: {},
  });
  const seen: BuildObjects = { pods: [], secrets: [], configMaps: [], pvcs: [] };
  const watch = (async () => {
    for (;;) {
      const now = await buildObjects(cluster().kubeConfig, NS, build.id);
      for (const key of Object.keys(seen) as (keyof BuildObjects)[])
        seen[key] = [...new Set([...seen[key], ...now[key]])].sort();
      const state = await admin.call('getBuild', { params: { buildId: build.id } });
      if (FINISHED_STATUSES.includes(state.status)) return state;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();
  await during?.(build.id);
  // Cleared once the build ends: a pending timer keeps the file's process alive for its length.
  let deadline: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    watch,
    new Promise<never>((_, reject) => {
      deadline = setTimeout(
        () => reject(new Error(`build ${build.id} did not finish; see ${temp.path}`)),
        BUILD_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(deadline));
  const log = await (await admin.raw('buildLog', { params: { buildId: build.id } })).text();
  await waitForProbe(
    `build ${build.id}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, build.id)) === 0,
  );
  return { build: finished, seen, log, id: build.id };
}

function expectAllObjects(seen: BuildObjects, id: string): void {
  assert.deepEqual(seen, expectedObjects(id));
}

test('a build runs in an engine pod against its dind pod, reports its log, ends success and leaves nothing', async () => {
  const { build, seen, log, id } = await runBuild('ok');
  assert.equal(build.status, 'success', `${JSON.stringify(build)}\n${log}`);
  expectAllObjects(seen, id);
  assert.deepEqual(
    build.steps.map((s) => [s.name, s.parent, s.status]),
    [
      ['hello', null, 'success'],
      ['second', null, 'success'],
      ['image', null, 'success'],
      ['checks', null, 'success'],
      ['use_image', 'checks', 'success'],
      ['lane_two', 'checks', 'success'],
    ],
  );
  assert.match(log, /\[hello\] hello from /);
  assert.match(log, /\[second\] second step sees dind/);
  assert.match(log, /\[use_image\] built in dind/);
  assert.match(log, /\[lane_two\] lane two/);
  for (const stamp of [
    'dispatchedAt',
    'objectsCreatedAt',
    'engineStartedAt',
    'finishedAt',
  ] as const)
    assert.ok(build.timing[stamp], `timing.${stamp}: ${JSON.stringify(build.timing)}`);
});

test('a failing step ends the build failure and its objects are deleted', async () => {
  const { build, seen, log, id } = await runBuild('failing');
  assert.equal(build.status, 'failure', `${JSON.stringify(build)}\n${log}`);
  expectAllObjects(seen, id);
  assert.equal(build.steps[0]?.exitCode, 3);
  assert.match(log, /\[broken\] about to fail/);
});

test('a build cancelled while its step runs ends terminated and its objects are deleted', async () => {
  const { build, log } = await runBuild('slow', async (buildId) => {
    // The step's own output, not its state: a step is running while its image is pulled.
    await waitForProbe(
      'the step printing',
      async () => {
        const response = await admin.raw('buildLog', { params: { buildId } });
        return (await response.text()).includes('[wait] sleeping');
      },
      BUILD_TIMEOUT_MS,
      500,
    );
    await admin.call('cancelBuild', { params: { buildId } });
  });
  assert.equal(build.status, 'terminated', `${JSON.stringify(build)}\n${log}`);
  assert.equal(build.steps[0]?.status, 'terminated');
  assert.match(log, /\[wait\] sleeping/);
  assert.ok(agent.child.exitCode === null, 'the agent is still running');
});
