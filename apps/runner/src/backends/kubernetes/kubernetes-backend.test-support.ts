/**
 * A build's tasks as the control plane makes them, for the backend's kube-tier test: the
 * manifests come from @sluice/runtime-spec's renderer over `system/default/k8s`, in creation
 * order, and the delete tasks in the order a finished build sends them.
 * @module
 */
import {
  renderBuildObjects,
  renderDindService,
  resolveRuntimeSpec,
  SYSTEM_RUNTIME_NAMES,
  systemRuntimeSpec,
} from '@sluice/runtime-spec';
import type { BuildObjects, BuildRenderInput, RuntimeSpec } from '@sluice/runtime-spec';
import type { KubeClient } from '@sluice/kube';
import type { Task } from '@sluice/protocol';
import { testTask } from '../../task.test-support.js';

const PEM = (what: string) => `-----BEGIN ${what}-----\nTEST\n-----END ${what}-----\n`;

/** The resolved spec of runtime `name`: the system default with only the namespace set. */
export function runtimeSpec(name: string, namespace: string): RuntimeSpec {
  const own: RuntimeSpec = {
    metadata: { name },
    extends: [SYSTEM_RUNTIME_NAMES.k8s],
    runtimeScheduler: { cluster: { namespace } },
  };
  const result = resolveRuntimeSpec(name, (n) => (n === name ? own : systemRuntimeSpec(n)));
  if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
  return result.spec;
}

export function buildInput(buildId: string, runtimeName: string): BuildRenderInput {
  return {
    buildId,
    accountId: 'acct-1',
    projectId: 'proj-1',
    pipelineId: 'pipe-1',
    branch: 'feature/kube',
    trigger: 'push',
    controlPlaneUrl: 'http://sluice-server.sluice.svc:8080',
    engineToken: 'engine-token-of-the-test',
    tls: {
      caPem: PEM('CERTIFICATE'),
      dindCertPem: PEM('CERTIFICATE'),
      dindKeyPem: PEM('PRIVATE KEY'),
      clientCertPem: PEM('CERTIFICATE'),
      clientKeyPem: PEM('PRIVATE KEY'),
    },
    runtimeName,
  };
}

function task(build: string, position: number, type: Task['type'], spec: object): Task {
  const fields = { type, buildId: build, position, spec: spec as Record<string, unknown> };
  return testTask({ id: `${build}-${position}`, ...fields });
}

/** CreateService, CreatePvc, CreateSecret, CreateConfigMap, CreatePod (dind), CreatePod (engine). */
export function createTasks(buildId: string, objects: BuildObjects, namespace: string): Task[] {
  const steps: [Task['type'], object][] = [
    ['CreateService', renderDindService(namespace)],
    ['CreatePvc', objects.pvc],
    ['CreateSecret', objects.secret],
    ['CreateConfigMap', objects.configMap],
    ['CreatePod', objects.dindPod],
    ['CreatePod', objects.enginePod],
  ];
  return steps.map(([type, spec], position) => task(buildId, position, type, spec));
}

/** DeletePod (engine, dind), DeleteConfigMap, DeleteSecret, DeletePvc. */
export function deleteTasks(buildId: string, objects: BuildObjects, namespace: string): Task[] {
  const steps: [Task['type'], string][] = [
    ['DeletePod', objects.enginePod.metadata.name],
    ['DeletePod', objects.dindPod.metadata.name],
    ['DeleteConfigMap', objects.configMap.metadata.name],
    ['DeleteSecret', objects.secret.metadata.name],
    ['DeletePvc', objects.pvc.metadata.name],
  ];
  return steps.map(([type, name], position) =>
    task(buildId, 10 + position, type, { name, namespace }),
  );
}

/** A PriorityClass (scheduling.k8s.io/v1: served from 1.14 on), made for a test. */
export async function createPriorityClass(
  kube: KubeClient,
  klass: { name: string; value: number; preemptionPolicy?: 'Never' | 'PreemptLowerPriority' },
): Promise<void> {
  const { name, value, preemptionPolicy } = klass;
  const body = {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    value,
    ...(preemptionPolicy === undefined ? {} : { preemptionPolicy }),
    globalDefault: false,
  };
  await kube.request(
    'create',
    { kind: 'PriorityClass', name },
    {
      method: 'POST',
      path: '/apis/scheduling.k8s.io/v1/priorityclasses',
      body: JSON.stringify(body),
    },
  );
}

export async function deletePriorityClass(kube: KubeClient, name: string): Promise<void> {
  await kube.request(
    'delete',
    { kind: 'PriorityClass', name },
    { method: 'DELETE', path: `/apis/scheduling.k8s.io/v1/priorityclasses/${name}` },
  );
}

/**
 * Writes a pod's status as the kubelet or the scheduler would (this cluster has no node):
 * merged by condition type, so the others' conditions stay.
 */
export async function patchPodStatus(
  kube: KubeClient,
  ref: { namespace: string; name: string },
  status: unknown,
): Promise<void> {
  const { namespace, name } = ref;
  await kube.request(
    'patch',
    { kind: 'Pod', namespace, name },
    {
      method: 'PATCH',
      path: `/api/v1/namespaces/${namespace}/pods/${name}/status`,
      body: JSON.stringify({ status }),
      contentType: 'application/strategic-merge-patch+json',
    },
  );
}

export { renderBuildObjects };
