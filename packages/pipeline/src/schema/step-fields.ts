/**
 * The fields of each built-in step type (reference §5.3). Fields Sluice does not run yet are
 * listed as unsupported, so they are named rather than ignored.
 * @module
 */
import { MAX_TIMEOUT_MS } from './duration.js';
import { commandText, common, environment, isString, keyValueEntry } from './common-fields.js';
import { composeService, composition, stepServices } from './services-schema.js';
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
  unsupported,
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
  debug: unsupported(),
  user: unsupported(str),
};

export const gitCloneFields: Fields = {
  ...common,
  repo: required(str),
  revision: str,
  depth: num,
  credentials: object('git-clone credentials', { username: str, password: str }),
  use_proxy: bool,
  exclude_blob: unsupported(),
  lfs: unsupported(),
  // The git integration whose credentials clone the repository (control plane or `sluice run --git-integration`).
  git: str,
};

const credentials = object('credentials', { username: required(str), password: required(str) });

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
  cache_from: unsupported(list(str)),
  cache_to: unsupported(),
  buildkit: unsupported(bool),
  ssh: unsupported(),
  secrets: unsupported(),
  platform: unsupported(str),
  buildx: unsupported(),
  progress: unsupported(str),
  region: unsupported(str),
  role_arn: unsupported(str),
  provider: unsupported(),
};

export const pushFields: Fields = {
  ...common,
  candidate: required(str),
  tag: str,
  tags: list(str),
  image_name: str,
  registry: str,
  credentials,
  provider: unsupported(oneOf(['docker', 'ecr'])),
  accessKeyId: unsupported(str),
  secretAccessKey: unsupported(str),
  region: unsupported(str),
  role_arn: unsupported(str),
  aws_session_name: unsupported(str),
  aws_duration_seconds: unsupported(num),
};

export const compositionFields: Fields = {
  ...common,
  composition: required(composition),
  composition_candidates: required(record(composeService, 'a map of services')),
  composition_variables: list(keyValueEntry('Composition variable')),
  add_flow_volume_to_composition: unsupported(bool),
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

export const unsupportedTypeFields: Record<string, Fields> = {
  'launch-composition': {
    ...common,
    composition: required(any),
    environment_name: str,
    composition_variables: list(str),
    entry_point: any,
  },
  deploy: {
    ...common,
    kind: oneOf(['kubernetes']),
    cluster: required(str),
    namespace: str,
    service: str,
    file_path: str,
    candidate: any,
    arguments: any,
  },
  'push-tag': { ...common, candidate: any, tags: any },
  'integration-test': { ...common, composition: any, composition_candidates: any },
  travis: common,
  simple_travis: common,
  'freestyle-ssh': { ...freestyleFields },
  'github-action': { ...common, uses: any, with: any, env: any, run: any },
};
