/**
 * The health of a Kubernetes runtime as the heartbeat reports it: does the API server answer
 * (`api-server`), and may the agent's identity do what builds need in the namespace
 * (`permissions`, `KubeClient.missingPermissions`: one rules review when all is granted; the
 * message lists what is missing).
 * @module
 */
import { AGENT_PERMISSIONS, classifyKubeError, formatPermissions } from '@sluice/kube';
import type { KubeClient, KubePermission } from '@sluice/kube';
import type { RuntimeHealth } from '@sluice/protocol';

type HealthCheck = NonNullable<RuntimeHealth['checks']>[number];

async function apiServerCheck(kube: KubeClient): Promise<HealthCheck> {
  try {
    const version = await kube.serverVersion();
    return {
      name: 'api-server',
      ok: true,
      message: `Kubernetes ${version.gitVersion} at ${kube.server}`,
    };
  } catch (err) {
    return { name: 'api-server', ok: false, message: classifyKubeError(err, 'read').reason };
  }
}

/** The permissions check, and what it found missing (none when it could not ask). */
async function permissionsCheck(
  kube: KubeClient,
  namespace: string,
): Promise<{ check: HealthCheck; missing: KubePermission[] }> {
  try {
    const missing = await kube.missingPermissions(namespace, AGENT_PERMISSIONS);
    const check =
      missing.length === 0
        ? { name: 'permissions', ok: true, message: `all granted in namespace ${namespace}` }
        : {
            name: 'permissions',
            ok: false,
            message: `missing: ${formatPermissions(missing)} in namespace ${namespace}`,
          };
    return { check, missing };
  } catch (err) {
    const message = classifyKubeError(err, 'create').reason;
    return { check: { name: 'permissions', ok: false, message }, missing: [] };
  }
}

export interface KubeRuntimeCheck {
  health: RuntimeHealth;
  /** RBAC permissions the agent lacks in the namespace: builds cannot run without them. */
  missing: KubePermission[];
}

export async function kubeHealth(
  kube: KubeClient,
  runtime: string,
  namespace: string,
): Promise<KubeRuntimeCheck> {
  const api = await apiServerCheck(kube);
  const { check: permissions, missing } = api.ok
    ? await permissionsCheck(kube, namespace)
    : {
        check: {
          name: 'permissions',
          ok: false,
          message: 'not checked: the API server did not answer',
        },
        missing: [],
      };
  const healthy = api.ok && permissions.ok;
  let message = `ready to run builds in namespace ${namespace}`;
  if (!api.ok) message = api.message ?? 'the API server did not answer';
  else if (!permissions.ok) {
    message = `${permissions.message ?? 'permissions missing'}; ${GRANT(namespace)}`;
  }
  return { health: { name: runtime, healthy, message, checks: [api, permissions] }, missing };
}

/** What to do about missing permissions. */
export const GRANT = (namespace: string) =>
  `grant them to the agent's service account with a Role in namespace ${namespace}`;
