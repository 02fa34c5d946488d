/**
 * Every RBAC rule the runtime chart grants the agent is needed. For each permission of
 * `AGENT_PERMISSIONS` (the Role's rules, verb by resource), a runtime whose service account has
 * all the others: the agent's health for that runtime names exactly the missing verb and
 * resource, and a build started there fails at once with that reason instead of leaving objects
 * it could not manage. One agent serves all the runtimes (a `*.runtime.yaml` each); the API
 * server is real, no node is needed (nothing is created).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_PERMISSIONS, formatPermissions } from '@sluice/kube';
import type { KubePermission } from '@sluice/kube';
import { createNamespace, createServiceAccount } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import { makeTempDir, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  buildObjects,
  createAgentToken,
  createKubeRuntime,
  objectCount,
  NO_NODE_AGENT_ARGS,
  startAgentProcess,
  startControlPlane,
  waitForProbe,
  writeRuntimeFile,
} from './cluster-fixture.js';
import type { AgentProcess, ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({ nodes: false });
const NS = 'sluice-rbac';
const YAML =
  'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo hi"]\n';

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let agent: AgentProcess;
let pipelineId: string;

/** `rbac/delete-pods`: the runtime that lacks this permission. */
function runtimeOf(permission: KubePermission): string {
  return `rbac/${permission.verb}-${permission.resource}`;
}

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-rbac-');
  plane = await startControlPlane({
    logPath: join(temp.path, 'server.log'),
  });
  admin = plane.admin;
  await createNamespace(cluster(), NS);
  ({ hello: pipelineId = '' } = await createPipelines(admin, 'rbac', { hello: YAML }));
  const dir = join(temp.path, 'runtimes');
  const crt = readFileSync(cluster().caFile, 'utf8');
  for (const [i, permission] of AGENT_PERMISSIONS.entries()) {
    const name = runtimeOf(permission);
    const token = await createServiceAccount(cluster(), {
      namespace: NS,
      name: `without-${permission.verb}-${permission.resource}`,
      permissions: AGENT_PERMISSIONS.filter((p) => p !== permission),
    });
    await createKubeRuntime(admin, { name, namespace: NS });
    writeRuntimeFile(dir, `${i}.runtime.yaml`, {
      name,
      host: cluster().server,
      namespace: NS,
      token,
      crt,
    });
  }
  const { token } = await createAgentToken(admin, 'rbac-agent', AGENT_PERMISSIONS.map(runtimeOf));
  agent = await startAgentProcess({
    serverUrl: plane.url,
    token,
    logPath: join(temp.path, 'agent.log'),
    args: [
      '--config-dir',
      dir,
      '--heartbeat-seconds',
      '1',
      '--poll-wait',
      '2',
      ...NO_NODE_AGENT_ARGS,
    ],
  });
});

after(async () => {
  await agent?.stop('SIGKILL');
  await plane?.stop();
  await temp?.cleanup();
});

for (const permission of AGENT_PERMISSIONS) {
  const missing = formatPermissions([permission]);
  test(`without "${missing}": the agent's health names it and builds fail with it`, async () => {
    const runtime = runtimeOf(permission);
    // A beat whose check failed for another reason (the API server slow to answer) is passed
    // over, and named if no beat ever reports the missing permission.
    const check = await waitForProbe(
      `the health of ${runtime} to name what is missing`,
      async () => {
        const { items } = await admin.call('listAgents');
        const own = items[0]?.health?.runtimes?.find((r) => r.name === runtime);
        const permissions = own?.checks?.find((c) => c.name === 'permissions');
        if (own?.healthy === false && permissions?.message?.startsWith('missing:') === true)
          return permissions;
        throw new Error(`its last health: ${JSON.stringify(own)}`);
      },
    );
    assert.equal(check.ok, false);
    assert.equal(check.message, `missing: ${missing} in namespace ${NS}`);
    const build = await admin.call('createBuild', {
      params: { pipelineId },
      body: { runtimeEnvironment: runtime },
    });
    const ended = await waitForProbe(`build ${build.id} to end`, async () => {
      const b = await admin.call('getBuild', { params: { buildId: build.id } });
      return b.finishedAt === null ? undefined : b;
    });
    assert.notEqual(ended.status, 'success');
    assert.ok(
      ended.reason?.includes(`the agent may not ${missing} in namespace ${NS}`),
      `reason: ${ended.reason}`,
    );
    assert.equal(objectCount(await buildObjects(cluster().kubeConfig, NS, build.id)), 0);
  });
}
