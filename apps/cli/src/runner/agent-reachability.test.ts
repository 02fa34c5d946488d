import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeResource } from '@sluice/kube';
import { UNREACHABLE_AFTER_MS, unreachableAgentPod } from './agent-reachability.js';

function pod(name: string, containers: { running: boolean; ready: boolean }[]): KubeResource {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ci' },
    status: {
      containerStatuses: containers.map(({ running, ready }) => ({
        ready,
        state: running ? { running: { startedAt: '2026-01-01T00:00:00Z' } } : { waiting: {} },
      })),
    },
  };
}

test('a pod running unready for the whole grace, as this process saw it, is the unreachable one', () => {
  const seen = new Map<string, number>();
  const unready = pod('agent-1', [{ running: true, ready: false }]);
  assert.equal(unreachableAgentPod([unready], seen, 1_000), undefined);
  assert.equal(unreachableAgentPod([unready], seen, UNREACHABLE_AFTER_MS), undefined);
  assert.deepEqual(unreachableAgentPod([unready], seen, 1_000 + UNREACHABLE_AFTER_MS), {
    name: 'agent-1',
    waitedMs: UNREACHABLE_AFTER_MS,
  });
});

test('a pod that becomes ready, is not running yet, or has no status starts the count again', () => {
  const seen = new Map<string, number>();
  unreachableAgentPod([pod('a', [{ running: true, ready: false }])], seen, 0);
  // Ready once (connected), then unready again: a blip, counted from the new start.
  unreachableAgentPod([pod('a', [{ running: true, ready: true }])], seen, 10_000);
  assert.equal(
    unreachableAgentPod([pod('a', [{ running: true, ready: false }])], seen, 35_000),
    undefined,
  );
  // Still pulling its image or starting: not a connection problem.
  const starting = [pod('b', [{ running: false, ready: false }]), pod('c', [])];
  assert.equal(unreachableAgentPod(starting, seen, 0), undefined);
  assert.equal(unreachableAgentPod(starting, seen, 10 * UNREACHABLE_AFTER_MS), undefined);
});
