/**
 * The fields of each runnable step type into the model, once the common ones are built.
 * Defaults follow Codefresh where Sluice behaves the same, and are named where it does not
 * (a build pushes nothing unless `disable_push: false` says so).
 * @module
 */
import {
  asBool,
  asList,
  asMap,
  asNumber,
  environmentPairs,
  optionalString,
  tagList,
} from './build-model-values.js';
import { composeContainers, composeVolumes, stepServicesSpec } from './build-model-services.js';
import { approvalTimeoutMs } from './schema/step-fields.js';
import { scalarText } from './schema/validators.js';
import type { Raw } from './build-model-values.js';
import type {
  ApprovalStep,
  BuildStep,
  CompositionStep,
  FreestyleStep,
  GitCloneStep,
  PushStep,
  Step,
} from './model.js';

export type Base = Omit<Step, 'type'>;

export function buildFreestyle(base: Base, raw: Raw): FreestyleStep {
  return {
    ...base,
    type: 'freestyle',
    image: scalarText(raw.image),
    commands: asList(raw.commands),
    cmd: asList(raw.cmd),
    entryPoint: asList(raw.entry_point),
    shell: raw.shell === 'bash' ? 'bash' : 'sh',
    environment: environmentPairs(raw.environment),
    volumes: asList(raw.volumes) ?? [],
    services: stepServicesSpec(raw.services),
  };
}

export function buildGitClone(base: Base, raw: Raw): GitCloneStep {
  return {
    ...base,
    type: 'git-clone',
    repo: scalarText(raw.repo),
    revision: optionalString(raw.revision),
    depth: asNumber(raw.depth, undefined),
    credentials: credentials(raw.credentials),
    git: optionalString(raw.git),
    useProxy: asBool(raw.use_proxy, false),
  };
}

export function buildBuild(base: Base, raw: Raw): BuildStep {
  const dockerfile = asMap(raw.dockerfile);
  return {
    ...base,
    type: 'build',
    imageName: scalarText(raw.image_name),
    dockerfile:
      dockerfile !== undefined
        ? { content: scalarText(dockerfile.content) }
        : { path: optionalString(raw.dockerfile) ?? 'Dockerfile' },
    tags: tagList(raw.tag, raw.tags, '${{CF_BRANCH_TAG_NORMALIZED}}'),
    tagPolicy: raw.tag_policy === 'original' ? 'original' : 'lowercase',
    buildArguments: environmentPairs(raw.build_arguments),
    target: optionalString(raw.target),
    noCache: asBool(raw.no_cache, false),
    registry: optionalString(raw.registry),
    // Codefresh pushes every build to a default registry; Sluice has none, so only on request.
    disablePush: asBool(raw.disable_push, true),
    buildkit: typeof raw.buildkit === 'boolean' ? raw.buildkit : undefined,
    platform: optionalString(raw.platform),
    cacheFrom: asList(raw.cache_from) ?? [],
    buildx: typeof raw.buildx === 'boolean' ? raw.buildx : asMap(raw.buildx),
    buildVersion: optionalString(raw.build_version),
  };
}

export function buildPush(base: Base, raw: Raw): PushStep {
  return {
    ...base,
    type: 'push',
    candidate: scalarText(raw.candidate),
    tags: tagList(raw.tag, raw.tags, 'latest'),
    imageName: optionalString(raw.image_name),
    registry: optionalString(raw.registry),
    credentials: credentials(raw.credentials),
  };
}

export function buildComposition(base: Base, raw: Raw): CompositionStep {
  return {
    ...base,
    type: 'composition',
    services: composeContainers(raw.composition),
    candidates: composeContainers(raw.composition_candidates),
    variables: environmentPairs(raw.composition_variables),
    environment: environmentPairs(raw.environment),
    volumes: composeVolumes(raw.composition),
    addFlowVolume: asBool(raw.add_flow_volume_to_composition, false),
    file: typeof raw.composition === 'string' ? raw.composition : undefined,
  };
}

export function buildApproval(base: Base, raw: Raw): ApprovalStep {
  const timeout = asMap(raw.timeout);
  return {
    ...base,
    type: 'pending-approval',
    timeoutMs: approvalTimeoutMs(timeout),
    finalState: timeout?.finalState === 'approved' ? 'approved' : 'denied',
  };
}

function credentials(value: unknown): { username: string; password: string } | undefined {
  const map = asMap(value);
  return map === undefined
    ? undefined
    : { username: scalarText(map.username), password: scalarText(map.password) };
}
