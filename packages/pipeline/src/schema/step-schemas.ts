/**
 * The whole step vocabulary of codefresh.yml v1.0 (reference §5.2–5.3): every built-in step type
 * with every field, so a typo is named and a valid-but-not-yet-runnable construct is reported as
 * unsupported rather than ignored. `RUNNABLE_STEP_TYPES` lists what the engine executes today.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { ISSUE_CODES } from '../pipeline-issue.js';
import { commandText, common, environment, isString } from './common-fields.js';
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
  typeName,
  union,
  unsupported,
} from './validators.js';
import type { Fields, Schema, SchemaContext } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

const freestyle: Fields = {
  ...common,
  image: required(str),
  commands: commandText,
  cmd: commandText,
  entry_point: commandText,
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
  const name = String(path[path.length - 1]);
  if (!isPlainMap(value)) {
    ctx.report(path, `Step "${name}" must be a map of fields, got ${typeName(value)}`);
    return;
  }
  const rawType = value.type === undefined ? 'freestyle' : value.type;
  if (typeof rawType !== 'string' || rawType.trim() === '') {
    const message = `"type" of step "${name}" must be a step type name, got ${typeName(rawType)}`;
    ctx.report([...path, 'type'], message);
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
  const hint = rawType.includes('/') ? '' : didYouMean(rawType, BUILT_IN_STEP_TYPES);
  if (hint !== '') {
    ctx.report([...path, 'type'], `Unknown step type "${rawType}"${hint}`, {
      code: ISSUE_CODES.unknownStepType,
    });
    return;
  }
  ctx.report([...path, 'type'], `Typed step "${rawType}" is not supported by Sluice yet`, {
    code: ISSUE_CODES.unsupported,
  });
}
