/**
 * The health of a Kubernetes runtime as the heartbeat reports it: does the API server answer
 * (`api-server`), and may the agent's identity do what builds need in the namespace
 * (`permissions`, by SelfSubjectAccessReview; the message lists what is missing).
 * @module
 */
import { AGENT_PERMISSIONS, classifyKubeError, formatPermissions } from '@sluice/kube';
import type { KubeClient } from '@sluice/kube';
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

async function permissionsCheck(kube: KubeClient, namespace: string): Promise<HealthCheck> {
  try {
    const missing = await kube.missingPermissions(namespace, AGENT_PERMISSIONS);
    return missing.length === 0
      ? { name: 'permissions', ok: true, message: `all granted in namespace ${namespace}` }
      : {
          name: 'permissions',
          ok: false,
          message: `missing: ${formatPermissions(missing)} in namespace ${namespace}`,
        };
  } catch (err) {
    return { name: 'permissions', ok: false, message: classifyKubeError(err, 'create').reason };
  }
}

export async function kubeHealth(
  kube: KubeClient,
  runtime: string,
  namespace: string,
): Promise<RuntimeHealth> {
  const api = await apiServerCheck(kube);
  const permissions = api.ok
    ? await permissionsCheck(kube, namespace)
    : { name: 'permissions', ok: false, message: 'not checked: the API server did not answer' };
  const healthy = api.ok && permissions.ok;
  let message = `ready to run builds in namespace ${namespace}`;
  if (!api.ok) message = api.message ?? 'the API server did not answer';
  else if (!permissions.ok) {
    message = `${permissions.message ?? 'permissions missing'}; grant them to the agent's service account with a Role in namespace ${namespace}`;
  }
  return { name: runtime, healthy, message, checks: [api, permissions] };
}
