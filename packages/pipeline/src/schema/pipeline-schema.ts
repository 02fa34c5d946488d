/**
 * Root keys of codefresh.yml (reference §5.1), in either form: the bare file, or the full
 * `kind: pipeline` document (`version`, `kind`, `metadata`, `spec`) whose `spec` holds the same
 * keys plus control-plane settings Sluice does not use.
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import { rootServices } from './services-schema.js';
import { hooks, stepsMap } from './step-schemas.js';
import {
  any,
  bool,
  isPlainMap,
  list,
  object,
  oneOf,
  record,
  required,
  str,
  typeName,
  notRun,
} from './validators.js';
import type { Fields, Schema, SchemaContext } from './validators.js';

const version: Schema = {
  describe: '"1.0"',
  check(value, path, ctx) {
    if (value === '1.0') return;
    // YAML reads an unquoted `1.0` as the number 1; Codefresh accepts it, so only warn.
    if (value === 1 || value === '1') {
      const message = `"version" should be the string "1.0", got ${typeName(value)}; quote it`;
      ctx.report(path, message, { code: ISSUE_CODES.deprecated, severity: 'warning' });
      return;
    }
    ctx.report(path, `"version" must be "1.0", got ${typeName(value)}`);
  },
};

function warnWithoutVersion(value: unknown, _path: unknown, ctx: SchemaContext): void {
  if (Object.hasOwn(value as object, 'version')) return;
  const message = 'The pipeline has no "version"; it is read as version "1.0"';
  ctx.report([], message, { code: ISSUE_CODES.missingField, severity: 'warning' });
}

const steps: Schema = {
  describe: 'a map of steps',
  check(value, path, ctx) {
    stepsMap.check(value, path, ctx);
    if (!isPlainMap(value)) return;
    if (Object.keys(value).length === 0) ctx.report(path, '"steps" must hold at least one step');
    if (Object.hasOwn(value, '')) {
      ctx.report([...path, ''], 'A step needs a name; this one has an empty key', { at: 'key' });
    }
  },
};

const pipelineFields: Fields = {
  steps: required(steps),
  stages: list(str),
  mode: oneOf(['sequential', 'parallel']),
  fail_fast: bool,
  strict_fail_fast: bool,
  hooks,
  services: rootServices,
  success_criteria: notRun("the build's result is that of its steps", 'fails'),
  indicators: any,
  build_version: notRun('there is one build engine', 'ignored', oneOf(['v1', 'v2'])),
};

/** The bare file: pipeline keys at the root. */
export const pipelineSchema = object(
  'pipeline',
  { version, ...pipelineFields },
  warnWithoutVersion,
);

/** Settings of a `kind: pipeline` spec that belong to the Codefresh control plane. */
const CONTROL_PLANE_KEYS = [
  'triggers',
  'cronTriggers',
  'contexts',
  'variables',
  'runtimeEnvironment',
  'concurrency',
  'branchConcurrency',
  'triggerConcurrency',
  'terminationPolicy',
  'options',
  'packId',
  'requiredAvailableStorage',
  'externalResources',
  'debug',
  'serviceAccount',
  'priority',
  'permitRestartFromFailedSteps',
];

const ignored: Schema = {
  describe: 'anything',
  check(_value, path, ctx) {
    const message = `"${String(path[path.length - 1])}" is a Codefresh control-plane setting; Sluice ignores it`;
    ctx.report(path, message, { code: ISSUE_CODES.ignored, severity: 'warning', at: 'key' });
  },
};

/** `spec:` of a `kind: pipeline` document. */
export const specSchema = object('pipeline spec', {
  ...pipelineFields,
  ...Object.fromEntries(CONTROL_PLANE_KEYS.map((key) => [key, ignored])),
  specTemplate: notRun('Sluice reads only the pipeline file', 'fails'),
});

/** The outside of a `kind: pipeline` document; its `spec` is checked as the pipeline. */
export const documentSchema = object(
  'pipeline document',
  {
    version,
    kind: oneOf(['pipeline']),
    // Names, labels and the like: nothing Sluice runs depends on them.
    metadata: record(any, 'a map'),
    spec: required(record(any, 'a map')),
  },
  warnWithoutVersion,
);

/** Root keys known in either form, so an anchor holder is only looked for among other keys. */
export const PIPELINE_KEYS = new Set(Object.keys(pipelineFields).concat('version'));
export const SPEC_KEYS = new Set([
  ...Object.keys(pipelineFields),
  ...CONTROL_PLANE_KEYS,
  'specTemplate',
]);
export const DOCUMENT_KEYS = new Set(['version', 'kind', 'metadata', 'spec']);
