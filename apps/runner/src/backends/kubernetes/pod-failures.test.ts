import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubePod } from '@sluice/kube';
import { podFailure } from './pod-failures.js';

const pod = (status: KubePod['status'], metadata: Partial<KubePod['metadata']> = {}): KubePod => ({
  metadata: { name: 'engine-b1', uid: 'u1', ...metadata },
  spec: { nodeName: 'node-1' },
  status,
});

const waiting = (reason: string, message: string) =>
  pod({
    phase: 'Pending',
    containerStatuses: [{ name: 'engine', state: { waiting: { reason, message } } }],
  });

test('a running or starting pod has not failed', () => {
  assert.equal(podFailure(pod({ phase: 'Pending' })), undefined);
  assert.equal(podFailure(waiting('ContainerCreating', '')), undefined);
  assert.equal(
    podFailure(
      pod({
        phase: 'Running',
        containerStatuses: [{ name: 'engine', state: { running: { startedAt: 'x' } } }],
      }),
    ),
    undefined,
  );
});

test('a pod no node takes is stuck, with the scheduler message', () => {
  const message = "0/1 nodes are available: 1 node(s) didn't match node selector.";
  assert.deepEqual(
    podFailure(
      pod({
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
      }),
    ),
    { kind: 'pending', reason: 'Unschedulable', message },
  );
});

test('a pod that waits only for room on a node says so; one no node would take does not', () => {
  const stuck = (message: string) =>
    podFailure(
      pod({
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
      }),
    );
  for (const message of [
    '0/1 nodes are available: 1 Insufficient cpu.',
    "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't match node selector.",
    '0/1 nodes are available: 1 Too many pods.',
    '0/2 nodes are available: 2 Insufficient ephemeral-storage.',
  ])
    assert.deepEqual(stuck(message), {
      kind: 'pending',
      reason: 'Unschedulable',
      message,
      forRoom: true,
    });
  const never =
    "0/2 nodes are available: 2 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate.";
  assert.equal(stuck(never)?.forRoom, undefined);
});

test('an image that cannot be pulled and a container that cannot be made are stuck', () => {
  for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'CreateContainerConfigError']) {
    const failure = podFailure(waiting(reason, 'rpc error: not found'));
    assert.deepEqual(failure, {
      kind: 'pending',
      reason,
      message: 'container engine: rpc error: not found',
    });
  }
});

test('a container killed for memory ends the pod at once, even while the pod still runs', () => {
  const failure = podFailure(
    pod({
      phase: 'Running',
      containerStatuses: [
        { name: 'dind', state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } },
      ],
    }),
  );
  assert.equal(failure?.kind, 'terminal');
  assert.equal(failure?.reason, 'OOMKilled');
  assert.match(failure?.message ?? '', /container dind was killed for using more memory/);
});

test('an evicted pod gives the kubelet reason and message', () => {
  const message = 'The node was low on resource: ephemeral-storage.';
  assert.deepEqual(podFailure(pod({ phase: 'Failed', reason: 'Evicted', message })), {
    kind: 'terminal',
    reason: 'Evicted',
    message,
  });
});

test('a failed container names its exit code and reason', () => {
  const failure = podFailure(
    pod({
      phase: 'Failed',
      containerStatuses: [
        { name: 'engine', state: { terminated: { reason: 'Error', exitCode: 137 } } },
      ],
    }),
  );
  assert.deepEqual(failure, {
    kind: 'terminal',
    reason: 'Error',
    message:
      'container engine exited with code 137 (Error), SIGKILL: out of memory, or killed from outside',
  });
});

test('a lost node and a deleted pod are terminal', () => {
  assert.deepEqual(podFailure(pod({ phase: 'Unknown' })), {
    kind: 'terminal',
    reason: 'NodeLost',
    message: "the node node-1 stopped reporting the pod's state",
  });
  const deleted = podFailure(
    pod({ phase: 'Running' }, { deletionTimestamp: '2026-11-26T10:00:00Z' }),
  );
  assert.equal(deleted?.reason, 'Deleted');
  assert.match(deleted?.message ?? '', /2026-11-26T10:00:00Z/);
});
