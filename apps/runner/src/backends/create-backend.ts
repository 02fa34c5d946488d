/**
 * The default `BackendFactory`: a Kubernetes runtime gets a `KubernetesBackend` (namespace from
 * the control plane's view of the runtime, else the target's own), a local one a `LocalBackend`.
 * @module
 */
import type { BackendFactory } from '../agent.js';
import { createKubernetesBackend } from './kubernetes-backend.js';
import { createLocalBackend } from './local-backend.js';

export const createBackend: BackendFactory = async (target, { logger, config, runtime }) => {
  const log = logger.child({ runtime: target.name });
  if (target.kind === 'local') return createLocalBackend(target, { logger: log });
  return createKubernetesBackend(target, {
    logger: log,
    qps: config.kubeQps,
    burst: config.kubeBurst,
    namespace: runtime?.namespace ?? undefined,
  });
};
