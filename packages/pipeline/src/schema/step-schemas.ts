/**
 * The whole step vocabulary of codefresh.yml v1.0 (reference §5.2–5.3): every built-in step type
 * with every field, so a typo is named and a valid-but-not-yet-runnable construct is reported as
 * unsupported rather than ignored. `RUNNABLE_STEP_TYPES` lists what the engine executes today.
 * @module
 */
import { didYouMean, closest } from '../suggest.js';
import { ISSUE_CODES } from '../pipeline-issue.js';
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
import type { Fields, Schema, SchemaContext } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

const isString = (v: unknown) => typeof v === 'string' || typeof v === 'number';
const isList = (v: unknown) => Array.isArray(v);
const isBoolish = (v: unknown) => typeof v === 'boolean' || v === 'true' || v === 'false';

export const stringOrList: Schema = union([
  { when: isString, schema: str },
  { when: isList, schema: list(str) },
]);

/** `KEY=value` entries, or a map of KEY: value (compose style). */
const envEntry: Schema = {
  describe: 'a KEY=value string',
  check(value, path, ctx) {
    if (typeof value !== 'string' || !/^[^=\s]+=/.test(value)) {
      ctx.report(path, `Environment entry ${JSON.stringify(value)} must be written KEY=value`);
    }
  },
};
const scalar = union([
  { when: (v) => isString(v) || typeof v === 'boolean' || v === null, schema: any },
]);
export const environment: Schema = union([
  { when: isList, schema: list(envEntry) },
  { when: isPlainMap, schema: record(scalar, 'a map of values') },
]);

const hookBody = object('hook', {
  exec: object('hook exec', { image: str, commands: stringOrList, environment, shell: str }),
  steps: record(any, 'a map of steps'),
  mode: oneOf(['sequential', 'parallel']),
  fail_fast: bool,
  metadata: any,
  annotations: any,
});
export const hooks = object('hooks', {
  on_elected: hookBody,
  on_success: hookBody,
  on_fail: hookBody,
  on_finish: hookBody,
});

const when = object('when', {
  branch: object('when.branch', { only: list(str), ignore: list(str) }),
  condition: object('when.condition', {
    all: record(str, 'a map of expressions'),
    any: record(str, 'a map of expressions'),
  }),
  steps: unsupported(),
});

const failFast = union([
  { when: isBoolish, schema: bool },
  {
    when: isPlainMap,
    schema: object('fail_fast', { onFailure: unsupported(), ignore: unsupported() }),
  },
]);

/** Fields every step type accepts. */
const common: Fields = {
  type: str,
  title: str,
  description: str,
  stage: str,
  working_directory: str,
  fail_fast: failFast,
  when,
  strict_fail_fast: unsupported(bool),
  timeout: unsupported(str),
  retry: unsupported(object('retry', { maxAttempts: num, delay: num, exponentialFactor: num })),
  on_success: unsupported(),
  on_fail: unsupported(),
  on_finish: unsupported(),
  hooks: unsupported(hooks),
  registry_context: unsupported(str),
  registry_contexts: unsupported(list(str)),
  metadata: unsupported(),
  annotations: unsupported(),
  arguments: unsupported(),
  docker_machine: unsupported(),
};

const freestyle: Fields = {
  ...common,
  image: required(str),
  commands: stringOrList,
  cmd: stringOrList,
  entry_point: stringOrList,
  shell: oneOf(['sh', 'bash']),
  environment,
  volumes: list(str),
  services: unsupported(),
  debug: unsupported(),
  user: unsupported(str),
};

const gitClone: Fields = {
  ...common,
  repo: required(str),
  revision: str,
  depth: num,
  credentials: object('git-clone credentials', { username: str, password: str }),
  use_proxy: bool,
  git: unsupported(str),
  exclude_blob: unsupported(),
  lfs: unsupported(),
};

const build: Fields = {
  ...common,
  image_name: required(str),
  dockerfile: union([
    { when: isString, schema: str },
    { when: isPlainMap, schema: object('inline dockerfile', { content: required(str) }) },
  ]),
  tag: str,
  tags: list(str),
  tag_policy: oneOf(['lowercase', 'original']),
  build_arguments: list(str),
  target: str,
  no_cache: bool,
  no_cf_cache: bool,
  cache_from: list(str),
  cache_to: any,
  registry: str,
  disable_push: bool,
  buildkit: bool,
  ssh: any,
  secrets: any,
  platform: str,
  buildx: any,
  progress: str,
  region: str,
  role_arn: str,
  provider: any,
};

const push: Fields = {
  ...common,
  candidate: required(str),
  tag: str,
  tags: list(str),
  image_name: str,
  registry: str,
  provider: oneOf(['docker', 'ecr']),
  credentials: object('push credentials', { username: str, password: str }),
  accessKeyId: str,
  secretAccessKey: str,
  region: str,
  role_arn: str,
  aws_session_name: str,
  aws_duration_seconds: num,
};

const composition: Fields = {
  ...common,
  composition: required(any),
  composition_candidates: required(any),
  composition_variables: list(str),
  add_flow_volume_to_composition: bool,
  environment,
};

const stepTable = {
  freestyle: { fields: freestyle, runnable: true },
  'git-clone': { fields: gitClone, runnable: true },
  build: { fields: build, runnable: false },
  push: { fields: push, runnable: false },
  composition: { fields: composition, runnable: false },
  'launch-composition': {
    fields: {
      ...common,
      composition: required(any),
      environment_name: str,
      composition_variables: list(str),
      entry_point: any,
    },
    runnable: false,
  },
  deploy: {
    fields: {
      ...common,
      kind: oneOf(['kubernetes']),
      cluster: required(str),
      namespace: str,
      service: str,
      file_path: str,
      candidate: any,
      arguments: any,
    },
    runnable: false,
  },
  'pending-approval': {
    fields: {
      ...common,
      timeout: object('approval timeout', {
        duration: num,
        timeUnit: oneOf(['minutes', 'hours']),
        finalState: oneOf(['approved', 'denied']),
      }),
    },
    runnable: false,
  },
  parallel: {
    fields: {
      ...common,
      steps: required(
        record({ describe: 'a step', check: (v, p, c) => checkStep(v, p, c) }, 'a map of steps'),
      ),
      success_criteria: any,
    },
    runnable: false,
  },
  'push-tag': { fields: { ...common, candidate: any, tags: any }, runnable: false },
  'integration-test': {
    fields: { ...common, composition: any, composition_candidates: any },
    runnable: false,
  },
  travis: { fields: common, runnable: false },
  simple_travis: { fields: common, runnable: false },
  'freestyle-ssh': { fields: { ...freestyle }, runnable: false },
  'github-action': {
    fields: { ...common, uses: any, with: any, env: any, run: any },
    runnable: false,
  },
} as const;

export type StepTypeName = keyof typeof stepTable;
export const BUILT_IN_STEP_TYPES = Object.keys(stepTable) as StepTypeName[];
export const RUNNABLE_STEP_TYPES = BUILT_IN_STEP_TYPES.filter((t) => stepTable[t].runnable);

/** Fields allowed on a step only inside `parallel` (implicit expansion). */
const parallelChildFields: Fields = { scale: unsupported(), matrix: unsupported() };

const schemas = new Map<string, Schema>(
  BUILT_IN_STEP_TYPES.map((t) => [
    t,
    object(`${t} step`, { ...stepTable[t].fields, ...parallelChildFields }),
  ]),
);

export function checkStep(value: unknown, path: IssuePath, ctx: SchemaContext): void {
  if (!isPlainMap(value)) {
    ctx.report(
      path,
      `Step "${String(path[path.length - 1])}" must be a map of fields, got ${describeValue(value)}`,
    );
    return;
  }
  const rawType = value.type ?? 'freestyle';
  if (typeof rawType !== 'string') {
    ctx.report([...path, 'type'], `"type" must be a step type name, got ${describeValue(rawType)}`);
    return;
  }
  const schema = schemas.get(rawType);
  if (schema !== undefined) {
    schema.check(value, path, ctx);
    if (!stepTable[rawType as StepTypeName].runnable) {
      ctx.report([...path, 'type'], `Step type "${rawType}" is not supported by Sluice yet`, {
        code: ISSUE_CODES.unsupported,
      });
    }
    return;
  }
  // A bare name close to a built-in is a typo; anything else is a typed (plugin) step.
  if (!rawType.includes('/') && closest(rawType, BUILT_IN_STEP_TYPES) !== undefined) {
    ctx.report(
      [...path, 'type'],
      `Unknown step type "${rawType}"${didYouMean(rawType, BUILT_IN_STEP_TYPES)}`,
      {
        code: ISSUE_CODES.unknownStepType,
      },
    );
    return;
  }
  ctx.report([...path, 'type'], `Typed step "${rawType}" is not supported by Sluice yet`, {
    code: ISSUE_CODES.unsupported,
  });
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  return Array.isArray(value) ? 'a list' : `${typeof value} ${JSON.stringify(value)}`;
}
