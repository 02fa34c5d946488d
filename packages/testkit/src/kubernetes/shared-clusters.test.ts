import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import { makeTempDir } from '../temp-dir.js';
import type { TempDir } from '../temp-dir.js';
import {
  KUBE_SHARED_NOT_STOPPABLE,
  KUBE_SHARED_UNREADABLE,
  KUBE_UNAVAILABLE,
} from './kube-errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { attachSharedCluster, attachedCluster } from './shared-clusters.js';
import type { SharedClusterData, SharedClustersDescription } from './shared-clusters.js';

async function nodeCluster(temp: TempDir): Promise<SharedClusterData> {
  const dir = join(temp.path, 'sluice-kube-abc123');
  const kubeconfigPath = await writeKubeconfig(join(temp.path, 'admin.kubeconfig'), {
    server: 'https://127.0.0.1:6443',
    caFile: join(dir, 'pki', 'ca.crt'),
    user: 'sluice-test-admin',
    token: 'secret-token',
  });
  return {
    id: 'abc123',
    mode: 'node',
    dir,
    logsDir: `${dir}-logs`,
    server: 'https://127.0.0.1:6443',
    kubeconfigPath,
    caFile: join(dir, 'pki', 'ca.crt'),
    nodeName: 'localhost',
    podSubnet: '10.244.7.0/24',
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    timings: { apiReadyMs: 4000, nodeReadyMs: 8000 },
    startedAt: 1_700_000_000_000,
    images: ['sluice/busybox:1', 'sluice/engine:1'],
  };
}

async function writeDescription(
  temp: TempDir,
  description: SharedClustersDescription,
): Promise<string> {
  const path = join(temp.path, 'clusters.json');
  // As the runner writes it: JSON leaves out what is undefined.
  await writeFile(path, JSON.stringify(description));
  return path;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

test('a file attaches to the shared cluster of its mode, rebuilt from the description', async () => {
  const temp = await makeTempDir();
  try {
    const data = await nodeCluster(temp);
    const path = await writeDescription(temp, { ownerPid: process.pid, clusters: { node: data } });
    const cluster = await attachSharedCluster({ nodes: true, images: data.images }, path);
    assert.ok(cluster !== undefined);
    const fields = [
      ...['id', 'mode', 'dir', 'server', 'kubeconfigPath', 'caFile', 'nodeName'],
      ...['podSubnet', 'containerdSocket', 'timings', 'startedAt'],
    ] as const;
    for (const field of fields) assert.deepEqual(cluster[field], data[field], field);
    assert.equal(cluster.kubeConfig.getCurrentCluster()?.server, data.server);
    assert.equal(cluster.kubeConfig.getCurrentUser()?.token, 'secret-token');
    assert.equal(cluster.logPath('kubelet'), join(data.logsDir, 'kubelet.log'));
    // Only the runner stops it.
    const err = await rejection(cluster.stop());
    assert.ok(isSluiceError(err) && err.code === KUBE_SHARED_NOT_STOPPABLE, String(err));
    // No record (a cluster torn down): what is left is what is on the machine.
    assert.deepEqual(await cluster.leftovers(), []);
    await mkdir(data.dir);
    assert.deepEqual(await cluster.leftovers(), [`directory ${data.dir}`]);
    assert.equal(await attachSharedCluster({ nodes: false }, path), undefined, 'no API-only one');
    // Outside a test run: the runner names its description to every file, this one included.
    const shared = process.env['SLUICE_TEST_KUBE_SHARED'];
    delete process.env['SLUICE_TEST_KUBE_SHARED'];
    try {
      assert.equal(await attachSharedCluster({ nodes: false }, undefined), undefined, 'no runner');
    } finally {
      if (shared !== undefined) process.env['SLUICE_TEST_KUBE_SHARED'] = shared;
    }
  } finally {
    await temp.cleanup();
  }
});

test('API-only: no node, no images; the fields JSON left out are undefined', async () => {
  const temp = await makeTempDir();
  try {
    const { nodeName, podSubnet, containerdSocket, ...node } = await nodeCluster(temp);
    assert.ok(nodeName && podSubnet && containerdSocket);
    const data = {
      ...node,
      mode: 'api-only' as const,
      nodeName: undefined,
      podSubnet: undefined,
      containerdSocket: undefined,
      timings: { apiReadyMs: 4000, nodeReadyMs: undefined },
      images: [],
    };
    const path = await writeDescription(temp, {
      ownerPid: process.pid,
      clusters: { 'api-only': data },
    });
    const cluster = await attachSharedCluster({ nodes: false }, path);
    assert.equal(cluster?.mode, 'api-only');
    assert.equal(cluster?.nodeName, undefined);
    assert.equal(cluster?.containerdSocket, undefined);
    assert.equal(cluster?.timings.nodeReadyMs, undefined);
    assert.deepEqual(attachedCluster(data).timings, { apiReadyMs: 4000, nodeReadyMs: undefined });
  } finally {
    await temp.cleanup();
  }
});

test('a shared cluster that did not start fails each file that needs it with its error', async () => {
  const temp = await makeTempDir();
  try {
    const failed = {
      code: KUBE_UNAVAILABLE,
      message: 'Starting the test node failed at step "containerd answering on its socket"',
      hint: 'read /tmp/sluice-kube-abc123-logs/containerd.log',
    };
    const path = await writeDescription(temp, {
      ownerPid: process.pid,
      clusters: { node: { failed } },
    });
    const err = await rejection(attachSharedCluster({ nodes: true }, path));
    assert.ok(isSluiceError(err), String(err));
    assert.equal(err.code, KUBE_UNAVAILABLE);
    assert.equal(err.message, failed.message);
    assert.equal(err.hint, failed.hint);
  } finally {
    await temp.cleanup();
  }
});

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}

test('a description that cannot be read, or whose owner is gone, is an error, not a new cluster', async () => {
  const temp = await makeTempDir();
  try {
    const missing = await rejection(attachSharedCluster({ nodes: false }, join(temp.path, 'no')));
    assert.ok(isSluiceError(missing) && missing.code === KUBE_SHARED_UNREADABLE, String(missing));
    const data = await nodeCluster(temp);
    const path = await writeDescription(temp, {
      ownerPid: await deadPid(),
      clusters: { node: data },
    });
    const gone = await rejection(attachSharedCluster({ nodes: true }, path));
    assert.ok(isSluiceError(gone) && gone.code === KUBE_SHARED_UNREADABLE, String(gone));
    assert.match(gone.message, /which is gone$/);
  } finally {
    await temp.cleanup();
  }
});
