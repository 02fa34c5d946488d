export { runBuild, DEFAULT_GIT_IMAGE } from './flow/run-build.js';
export type { RunBuildOptions } from './flow/run-build.js';
export type {
  BuildEvent,
  BuildEventSink,
  BuildResult,
  BuildSummary,
  StepResult,
  StepSummary,
} from './base/build-events.js';
export { SecretMasker, MASK } from './base/secret-masker.js';
export { LABELS, volumeNameFor, networkNameFor } from './base/resource-names.js';
export { runRemoteBuild } from './process/remote-build.js';
export type { RunRemoteBuildOptions, RemoteBuildResult } from './process/remote-build.js';
export { proxyVariables, stepSettingsFrom } from './base/step-settings.js';
export type { StepSettings, UserVolumeMount } from './base/step-settings.js';
export { waitForDocker } from './containers/wait-for-docker.js';
export type { WaitForDockerOptions } from './containers/wait-for-docker.js';
export type { RegistrySetting } from './base/registry-settings.js';
export { parseGitIntegrationFlag } from './containers/git-integrations.js';
export type { GitIntegrationSetting, UnknownGitIntegration } from './base/registry-settings.js';
export type { CleanerSettings } from './cleaner/cleaner-settings.js';
export type { ApprovalGate, ApprovalRequest, ApprovalAnswer } from './base/approval-gate.js';
