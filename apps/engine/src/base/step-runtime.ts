/**
 * The types every step kind and the flow share: what a step runs with (`StepRuntime`), the
 * steps that run as one unit of work (`LeafStep`), and how a step ended (`StepOutcome`). They
 * live below both the file that dispatches step kinds and the step kinds themselves, so neither
 * has to import the other to name them (docs/architecture/engine.md, "The engine's layers").
 * @module
 */
import type {
  BuildStep,
  CompositionStep,
  FreestyleStep,
  GitCloneStep,
  PushStep,
} from '@sluice/pipeline';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import type { BuildEventSink, StepResult } from './build-events.js';
import type { BuildScope } from './build-scope.js';
import type { SecretMasker } from './secret-masker.js';
import type { RegistrySetting } from './registry-settings.js';
import type { GitIntegrationSetting, UnknownGitIntegration } from './registry-settings.js';

export interface StepRuntime {
  docker: DockerClient;
  buildId: string;
  volumeName: string;
  volumeMountpoint: string;
  networkName: string;
  sandboxId: string | undefined;
  labels: Record<string, string>;
  gitImage: string;
  /** The network sandbox's image (small, with `sh`): what never-started helper containers use. */
  sandboxImage: string;
  scope: BuildScope;
  masker: SecretMasker;
  emit: BuildEventSink;
  clock: () => number;
  signal: AbortSignal | undefined;
  stopGraceSeconds: number;
  log: Logger;
  registries: RegistrySetting[];
  /** What `git:` of a git-clone step names. */
  gitIntegrations: GitIntegrationSetting[];
  unknownGitIntegration: UnknownGitIntegration;
  /** What a git-clone step without `git:` clones with, when its repository is on that host. */
  defaultGitIntegration?: string;
  /** 1-based attempt of the step being run (`retry`); names its container. */
  attempt: number;
  /** Added to every container of the step, e.g. CF_CURRENT_ATTEMPT. */
  stepEnvironment: string[];
  /** The runtime's user volume mounts as binds, for every step container. */
  userBinds?: string[];
  /** Images the engine carries and loads when a step needs one the daemon lacks, by reference. */
  carriedOnDemand?: ReadonlyMap<string, string>;
  /** The clusters' kubeconfig every step container gets (kube-contexts.ts); none without clusters. */
  kubeconfig?: string | undefined;
  /** The clone made to read the definition, until the first step runs (execute-step.ts). */
  definitionClone?: DefinitionClone;
}

/** Where the engine cloned the repository to read the pipeline's definition, and at what. */
export interface DefinitionClone {
  url: string;
  directory: string;
  integration: string | undefined;
  /** As asked: a branch, tag or commit; empty for the default branch. */
  revision: string;
  sha: string;
}

/** The step types that run as one unit of work (not parallel blocks, groups or approvals). */
export type LeafStep = FreestyleStep | GitCloneStep | BuildStep | PushStep | CompositionStep;

export interface StepOutcome {
  result: StepResult;
  exitCode?: number;
  reason?: string;
}
