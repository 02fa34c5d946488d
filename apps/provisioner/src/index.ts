export { VolumeProvisioner } from './volume-provisioner.js';
export type { PassReport, VolumeProvisionerOptions } from './volume-provisioner.js';
export { LeaderLease } from './leader-lease.js';
export type { LeaderLeaseOptions } from './leader-lease.js';
export { chooseVolume } from './volume-choice.js';
export { deleteThroughDelegatePatch, isDelegated } from './delegate-volumes.js';
export type { ClaimFacts, VolumeChoice, VolumeFacts } from './volume-choice.js';
export {
  DEFAULT_REUSE_SELECTOR,
  hasVolumeFinalizer,
  PROVISIONER_LABEL,
  SELECTED_NODE_ANNOTATION,
  VOLUME_ANNOTATIONS,
  VOLUME_FINALIZER,
  volumeSummary,
  withoutFinalizer,
} from './volume-objects.js';
export type { VolumeSummary } from './volume-objects.js';
export { parseProvisionerConfig, parseVolumeAgentConfig } from './config.js';
export type { ProvisionerConfig, ProvisionerFlags, VolumeAgentConfig } from './config.js';
export { NodeAgent } from './node-agent.js';
export type { NodeAgentOptions, NodeAgentReport, VolumeUse } from './node-agent.js';
export { directoryBytes, diskUsage } from './disk-usage.js';
export type { DiskUsage } from './disk-usage.js';
export { serveVolumeMetrics, VolumeMetrics } from './volume-metrics.js';
