/**
 * The RBAC permissions the runner agent needs in a runtime's namespace, and how they are named
 * to people (`delete pods, create persistentvolumeclaims`), as `kubectl auth can-i` would.
 * @module
 */
import { KUBE_RESOURCES } from './kube-objects.js';

export interface KubePermission {
  verb: string;
  /** Plural resource, e.g. `pods`. */
  resource: string;
  /** API group; the core group when absent. */
  group?: string;
}

const BUILD_RESOURCES = [
  KUBE_RESOURCES.Pod,
  KUBE_RESOURCES.Secret,
  KUBE_RESOURCES.ConfigMap,
  KUBE_RESOURCES.PersistentVolumeClaim,
];

/**
 * What the agent does with build objects: create, delete, list, get; the shared Service: create,
 * get; and patch pods and claims: a build takes a warm-pool pod by patching its labels.
 */
export const AGENT_PERMISSIONS: readonly KubePermission[] = [
  ...BUILD_RESOURCES.flatMap((resource) =>
    ['create', 'delete', 'list', 'get'].map((verb) => ({ verb, resource })),
  ),
  { verb: 'patch', resource: KUBE_RESOURCES.Pod },
  { verb: 'patch', resource: KUBE_RESOURCES.PersistentVolumeClaim },
  { verb: 'create', resource: KUBE_RESOURCES.Service },
  { verb: 'get', resource: KUBE_RESOURCES.Service },
];

/** `delete pods, create persistentvolumeclaims`; a group is written `resource.group`. */
export function formatPermissions(permissions: readonly KubePermission[]): string {
  return permissions
    .map(({ verb, resource, group }) =>
      group === undefined || group === '' ? `${verb} ${resource}` : `${verb} ${resource}.${group}`,
    )
    .join(', ');
}
