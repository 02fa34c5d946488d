/**
 * The fields of each built-in step type (reference §5.3). Fields Sluice does not run are
 * accepted with why (`notRun`), so they are named rather than ignored.
 * @module
 */
import { MAX_TIMEOUT_MS } from './duration.js';
import { commandText, common, environment, isString, keyValueEntry } from './common-fields.js';
import { composeService, stepComposition, stepServices } from './services-schema.js';
import {
  any,
  bool,
  isPlainMap,
  list,
  num,
  object,
  oneOf,
  record,
  required,
  str,
  union,
  notRun,
} from './validators.js';
import type { Fields } from './validators.js';

export const freestyleFields: Fields = {
  ...common,
  image: required(str),
  commands: commandText,
  cmd: commandText,
  entry_point: commandText,
  shell: oneOf(['sh', 'bash']),
  environment,
  volumes: list(str),
  services: stepServices,
  debug: notRun('there is no step debugger', 'ignored'),
  user: notRun('steps run as the user of their image', 'fails', str),
};

export const gitCloneFields: Fields = {
  ...common,
  repo: required(str),
  revision: str,
  depth: num,
  credentials: object('git-clone credentials', { username: str, password: str }),
  use_proxy: bool,
  // The git integration whose credentials clone the repository (control plane or `sluice run --git-integration`).
  git: str,
  exclude_blob: notRun('the whole repository is cloned', 'ignored'),
  lfs: notRun('Git LFS files are not fetched', 'fails'),
};

const credentials = object('credentials', { username: required(str), password: required(str) });

const NO_ECR = 'Amazon ECR credentials are not fetched; use a registry setting';

export const buildFields: Fields = {
  ...common,
  image_name: required(str),
  dockerfile: union([
    { when: isString, schema: str },
    { when: isPlainMap, schema: object('inline dockerfile', { content: required(str) }) },
  ]),
  tag: str,
  tags: list(str),
  tag_policy: oneOf(['lowercase', 'original']),
  build_arguments: list(keyValueEntry('Build argument')),
  target: str,
  no_cache: bool,
  // Sluice keeps no Codefresh layer cache, so skipping it is what already happens.
  no_cf_cache: bool,
  registry: str,
  disable_push: bool,
  // BuildKit: the engine builds through the Docker CLI (docs/adr/0002-buildkit-builds-through-the-docker-cli.md).
  buildkit: bool,
  platform: str,
  buildx: union([
    { when: (v) => typeof v === 'boolean', schema: bool },
    { when: isPlainMap, schema: object('buildx', { builder: any, qemu: any }) },
  ]),
  cache_from: list(str),
  build_version: oneOf(['v1', 'v2']),
  cache_to: notRun('build caches are not exported', 'ignored'),
  ssh: notRun('SSH agents are not forwarded into builds', 'fails'),
  secrets: notRun('build secrets are not mounted', 'fails'),
  progress: notRun('the build output is always plain', 'ignored', str),
  region: notRun(NO_ECR, 'fails', str),
  role_arn: notRun(NO_ECR, 'fails', str),
  provider: notRun(NO_ECR, 'fails'),
};

export const pushFields: Fields = {
  ...common,
  candidate: required(str),
  tag: str,
  tags: list(str),
  image_name: str,
  registry: str,
  credentials,
  provider: notRun(NO_ECR, 'fails', oneOf(['docker', 'ecr'])),
  accessKeyId: notRun(NO_ECR, 'fails', str),
  secretAccessKey: notRun(NO_ECR, 'fails', str),
  region: notRun(NO_ECR, 'fails', str),
  role_arn: notRun(NO_ECR, 'fails', str),
  aws_session_name: notRun(NO_ECR, 'fails', str),
  aws_duration_seconds: notRun(NO_ECR, 'fails', num),
};

export const compositionFields: Fields = {
  ...common,
  composition: required(stepComposition),
  composition_candidates: required(record(composeService, 'a map of services')),
  composition_variables: list(keyValueEntry('Composition variable')),
  add_flow_volume_to_composition: bool,
  environment,
};

export const approvalFields: Fields = {
  ...common,
  timeout: object(
    'approval timeout',
    {
      duration: num,
      timeUnit: oneOf(['minutes', 'hours']),
      finalState: oneOf(['approved', 'denied']),
    },
    (value, path, ctx) => {
      const ms = approvalTimeoutMs(value as Record<string, unknown>);
      if (ms > MAX_TIMEOUT_MS) {
        ctx.report(
          [...path, 'duration'],
          'An approval can wait at most 596 hours (about 24.8 days)',
        );
      }
    },
  ),
};

/** `timeout: {duration, timeUnit}` of an approval; 168 hours when absent. */
export function approvalTimeoutMs(timeout: Record<string, unknown> | undefined): number {
  const duration = Number(timeout?.duration ?? 168);
  const unit = timeout?.timeUnit === 'minutes' ? 60_000 : 3_600_000;
  return Number.isFinite(duration) ? Math.round(duration * unit) : 168 * 3_600_000;
}

/** Codefresh's deploy step (`kind: kubernetes`): deploy-step.ts runs it. */
export const deployFields: Fields = {
  ...common,
  kind: oneOf(['kubernetes']),
  cluster: required(str),
  namespace: str,
  service: str,
  file_path: str,
  candidate: object('deploy candidate', { image: str, registry: str }),
  timestamp: bool,
  arguments: any,
};

export const unsupportedTypeFields: Record<string, Fields> = {
  'launch-composition': {
    ...common,
    composition: required(any),
    environment_name: str,
    composition_variables: list(str),
    entry_point: any,
  },
  'push-tag': { ...common, candidate: any, tags: any },
  'integration-test': { ...common, composition: any, composition_candidates: any },
  travis: common,
  simple_travis: common,
  'freestyle-ssh': { ...freestyleFields },
  'github-action': { ...common, uses: any, with: any, env: any, run: any },
};
