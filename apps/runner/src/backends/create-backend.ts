/**
 * The default `BackendFactory`: a Kubernetes runtime gets a `KubernetesBackend` (namespace from
 * the control plane's view of the runtime, else the target's own), a local one a `LocalBackend`.
 * The Kubernetes backend is loaded only when a runtime needs it: @kubernetes/client-node costs
 * an agent about 75 MiB of resident memory, which a local-only agent (`sluice up`) does not pay.
 * @module
 */
import type { BackendFactory } from '../agent.js';
import { createLocalBackend } from './local-backend.js';

export const createBackend: BackendFactory = async (target, { logger, config, runtime }) => {
  const log = logger.child({ runtime: target.name });
  if (target.kind === 'local') return createLocalBackend(target, { logger: log });
  const { createKubernetesBackend } = await import('./kubernetes-backend.js');
  return createKubernetesBackend(target, {
    logger: log,
    qps: config.kubeQps,
    burst: config.kubeBurst,
    namespace: runtime?.namespace ?? undefined,
  });
};
