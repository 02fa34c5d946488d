#!/usr/bin/env node
// kube-up: how long the test kit's single-node Kubernetes takes to start, for the record. One
// round (BENCH_ROUNDS=N for more; figures are medians) starts a cluster with a node, creates a
// pod from sluice/busybox:1 and waits for it to run, then tears everything down. Times are from
// the cluster start (binaries built and images ready, i.e. a machine that ran the tests once):
//   api_ready_s    the apiserver's /readyz answers ok
//   node_ready_s   the node reports Ready
//   pod_running_s  a pod created once the node is Ready is Running (pod_create_to_running_s:
//                  the same from the pod's creation)
//   teardown_s     stop(): every process, mount, bridge, rule and directory gone
// The reference figures are what shared/reference/real-kubernetes.md saw on a similar machine.
import { CoreV1Api } from '@kubernetes/client-node';
import { CLUSTER_IMAGES, startKubernetes, waitForPod } from '@sluice/testkit';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const seconds = (ms) => Math.round(ms / 100) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round() {
  const cluster = await startKubernetes({ nodes: true, images: [CLUSTER_IMAGES.busybox] });
  try {
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const created = Date.now();
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'bench' },
        spec: {
          containers: [
            {
              name: 'c',
              image: CLUSTER_IMAGES.busybox,
              imagePullPolicy: 'Never',
              command: ['sleep', '3600'],
            },
          ],
          terminationGracePeriodSeconds: 0,
        },
      },
    });
    await waitForPod(core, 'default', 'bench', { phases: ['Running'] });
    const podRunningMs = Date.now() - cluster.startedAt;
    const podStartMs = Date.now() - created;
    const stopStart = Date.now();
    await cluster.stop();
    return { ...cluster.timings, podRunningMs, podStartMs, teardownMs: Date.now() - stopStart };
  } finally {
    await cluster.stop();
  }
}

const results = [];
for (let i = 0; i < ROUNDS; i++) results.push(await round());
const pick = (key) => seconds(median(results.map((r) => r[key])));
console.log(
  JSON.stringify({
    bench: 'kube-up',
    rounds: ROUNDS,
    api_ready_s: pick('apiReadyMs'),
    node_ready_s: pick('nodeReadyMs'),
    pod_running_s: pick('podRunningMs'),
    pod_create_to_running_s: pick('podStartMs'),
    teardown_s: pick('teardownMs'),
    reference: { api_ready_s: 5, kubelet_start_to_node_ready_s: 12, pod_create_to_running_s: 2.5 },
  }),
);
