/**
 * What a Kubernetes task asks for, checked before anything is sent: `Create*` tasks carry a
 * manifest whose kind must be the task's (a `CreatePod` carrying a Secret is refused), `Delete*`
 * tasks `{ name, namespace }`, `CreateClusterCredentials` a `ClusterCredentialsTask` (the agent
 * mints the tokens: cluster-credentials.ts). A malformed task, or one for another kind of runtime, is a
 * `TaskFailure` that is not retriable, naming the task and the field.
 * @module
 */
import { checkManifest } from '@sluice/kube';
import type { KubeKind, KubeManifest, KubeObjectRef } from '@sluice/kube';
import { ClusterCredentialsTask } from '@sluice/protocol';
import type { Task } from '@sluice/protocol';
import { TaskFailure } from '../../runtime-backend.js';

export type KubeTaskAction =
  | { action: 'create'; manifest: KubeManifest }
  | { action: 'delete'; ref: KubeObjectRef & { kind: KubeKind } }
  | { action: 'credentials'; spec: ClusterCredentialsTask };

const CREATES: Readonly<Partial<Record<Task['type'], KubeKind>>> = {
  CreateService: 'Service',
  CreatePvc: 'PersistentVolumeClaim',
  CreateSecret: 'Secret',
  CreateConfigMap: 'ConfigMap',
  CreatePod: 'Pod',
};

const DELETES: Readonly<Partial<Record<Task['type'], KubeKind>>> = {
  DeletePod: 'Pod',
  DeleteConfigMap: 'ConfigMap',
  DeleteSecret: 'Secret',
  DeletePvc: 'PersistentVolumeClaim',
};

/** The object a task is about, for logs. */
export function actionTarget(action: KubeTaskAction): KubeObjectRef {
  if (action.action === 'delete') return action.ref;
  if (action.action === 'credentials') {
    const { namespace, name } = action.spec.metadata;
    return { kind: 'Secret', namespace, name };
  }
  const { kind, metadata } = action.manifest;
  return { kind, namespace: metadata.namespace, name: metadata.name };
}

function shown(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

function malformed(task: Task, problem: string, cause?: unknown): TaskFailure {
  return new TaskFailure(`${task.type} task ${task.id} is malformed: ${problem}`, {
    retriable: false,
    cause,
  });
}

/** @throws TaskFailure (not retriable) for a malformed task or a type this backend does not do. */
export function kubeTaskAction(task: Task): KubeTaskAction {
  const creates = CREATES[task.type];
  if (creates !== undefined) return { action: 'create', manifest: createManifest(task, creates) };
  if (task.type === 'CreateClusterCredentials') {
    const spec = ClusterCredentialsTask.safeParse(task.spec);
    if (!spec.success)
      throw malformed(
        task,
        spec.error.issues.map((i) => `spec.${i.path.join('.')}: ${i.message}`).join('; '),
      );
    return { action: 'credentials', spec: spec.data };
  }
  const deletes = DELETES[task.type];
  if (deletes !== undefined) return { action: 'delete', ref: deleteRef(task, deletes) };
  throw new TaskFailure(
    `${task.type} task ${task.id} is for local runtimes; runtime "${task.runtime}" is a Kubernetes runtime`,
    { retriable: false },
  );
}

function createManifest(task: Task, expected: KubeKind): KubeManifest {
  const kind = task.spec['kind'];
  if (kind !== expected)
    throw malformed(task, `spec.kind is ${shown(kind)}, expected "${expected}"`);
  try {
    return checkManifest(task.spec);
  } catch (err) {
    throw malformed(task, err instanceof Error ? err.message : String(err), err);
  }
}

function deleteRef(task: Task, kind: KubeKind): KubeObjectRef & { kind: KubeKind } {
  const fields: Record<'name' | 'namespace', string> = { name: '', namespace: '' };
  for (const field of ['name', 'namespace'] as const) {
    const value = task.spec[field];
    if (typeof value !== 'string' || value === '') {
      throw malformed(task, `spec.${field} is ${shown(value)}, expected a name`);
    }
    fields[field] = value;
  }
  return { kind, ...fields };
}
