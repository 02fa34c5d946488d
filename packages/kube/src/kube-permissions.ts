/**
 * The RBAC permissions the runner agent needs in a runtime's namespace, and how they are named
 * to people (`delete pods, create persistentvolumeclaims`), as `kubectl auth can-i` would, and
 * which of them an identity lacks in a namespace.
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

/** A rule of a SelfSubjectRulesReview's `status.resourceRules`. */
interface KubeResourceRule {
  verbs?: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
}

const covers = (values: readonly string[] | undefined, value: string) =>
  values?.some((v) => v === '*' || v === value) === true;

/**
 * Whether one of `rules` grants `need` on every object of its resource. A rule limited to named
 * objects (`resourceNames`) grants nothing here: the agent creates, lists and deletes objects
 * whose names it makes.
 */
export function grantedByRules(rules: readonly KubeResourceRule[], need: KubePermission): boolean {
  return rules.some(
    (rule) =>
      (rule.resourceNames ?? []).length === 0 &&
      covers(rule.verbs, need.verb) &&
      covers(rule.apiGroups, need.group ?? '') &&
      covers(rule.resources, need.resource),
  );
}

/** A review to create, by the client that asks (`KubeClient.missingPermissions`). */
export interface KubeReview {
  kind: string;
  path: string;
  body: object;
}

const AUTHORIZATION = '/apis/authorization.k8s.io/v1';

/**
 * Those of `needs` the asker may not do in `namespace` ('' for cluster-wide needs, each asked
 * on its own). One SelfSubjectRulesReview lists what it may do in the namespace; only what those
 * rules do not grant is asked again one by one (SelfSubjectAccessReview), since the rules can
 * be incomplete (an authorizer besides RBAC, a rule limited to named objects). The agent's
 * health check runs this on every heartbeat for every runtime: one request when everything is
 * granted, instead of one per permission.
 */
export async function findMissing(
  namespace: string,
  needs: readonly KubePermission[],
  create: (review: KubeReview) => Promise<unknown>,
): Promise<KubePermission[]> {
  // A rules review is of one namespace: cluster-wide needs (namespace '') are asked one by one.
  const rules =
    namespace === ''
      ? undefined
      : ((await create({
          kind: 'rules review',
          path: `${AUTHORIZATION}/selfsubjectrulesreviews`,
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectRulesReview',
            spec: { namespace },
          },
        })) as { status?: { resourceRules?: KubeResourceRule[] } } | undefined);
  const unsure = needs.filter((need) => !grantedByRules(rules?.status?.resourceRules ?? [], need));
  const allowed = await Promise.all(
    unsure.map(async (need) => {
      const answer = (await create({
        kind: `access review (${formatPermissions([need])})`,
        path: `${AUTHORIZATION}/selfsubjectaccessreviews`,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace, ...need, group: need.group ?? '' } },
        },
      })) as { status?: { allowed?: boolean } } | undefined;
      return answer?.status?.allowed === true;
    }),
  );
  return unsure.filter((_, index) => allowed[index] !== true);
}
