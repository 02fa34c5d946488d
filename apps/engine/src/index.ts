export { runBuild, DEFAULT_GIT_IMAGE } from './run-build.js';
export type { RunBuildOptions } from './run-build.js';
export type {
  BuildEvent,
  BuildEventSink,
  BuildResult,
  BuildSummary,
  StepResult,
  StepSummary,
} from './build-events.js';
export { SecretMasker, MASK } from './secret-masker.js';
export { LABELS, volumeNameFor, networkNameFor } from './resource-names.js';
export { runRemoteBuild } from './remote-build.js';
export type { RunRemoteBuildOptions, RemoteBuildResult } from './remote-build.js';
export { proxyVariables, stepSettingsFrom } from './step-settings.js';
export type { StepSettings, UserVolumeMount } from './step-settings.js';
export { waitForDocker } from './wait-for-docker.js';
export type { WaitForDockerOptions } from './wait-for-docker.js';
export type { RegistrySetting } from './registry-settings.js';
export { parseGitIntegrationFlag } from './git-integrations.js';
export type { GitIntegrationSetting, UnknownGitIntegration } from './registry-settings.js';
export type { CleanerSettings } from './cleaner/cleaner-settings.js';
export type { ApprovalGate, ApprovalRequest, ApprovalAnswer } from './approval-gate.js';
