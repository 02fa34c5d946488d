/**
 * The default `BackendFactory`: a Kubernetes runtime gets a `KubernetesBackend` (namespace from
 * the control plane's view of the runtime, else the target's own), a local one a `LocalBackend`.
 * Each backend's module is loaded only when a runtime needs it, so an agent pays for the client
 * of the runtimes it serves and no other: the local one's dockerode (with its gRPC and SSH
 * dependencies, about 10 MiB of resident memory) stays out of a Kubernetes agent.
 * @module
 */
import type { BackendFactory } from '../agent.js';
import type { LocalTarget } from '../runner-config.js';
import type { RuntimeBackend } from '../runtime-backend.js';
import type { LocalBackendOptions } from './local/local-backend.js';

/** A `LocalBackend`; its module (and the Docker client) is loaded on the first call. */
export async function createLocalBackend(
  target: LocalTarget,
  options: LocalBackendOptions,
): Promise<RuntimeBackend> {
  const local = await import('./local/local-backend.js');
  return local.createLocalBackend(target, options);
}

export const createBackend: BackendFactory = async (target, { logger, config, runtime, env }) => {
  const log = logger.child({ runtime: target.name });
  if (target.kind === 'local') return createLocalBackend(target, { logger: log, env });
  const { createKubernetesBackend } = await import('./kubernetes/kubernetes-backend.js');
  return createKubernetesBackend(target, {
    logger: log,
    env,
    qps: config.kubeQps,
    burst: config.kubeBurst,
    namespace: runtime?.namespace ?? undefined,
    podFailureGraceMs: config.podFailureGraceMs,
    unschedulableGraceMs: config.unschedulableGraceMs,
  });
};
