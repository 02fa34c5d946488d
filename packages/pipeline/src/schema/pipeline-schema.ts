/**
 * Root keys of codefresh.yml (reference §5.1).
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import { hooks } from './common-fields.js';
import { checkStep } from './step-schemas.js';
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
  unsupported,
} from './validators.js';
import type { Schema } from './validators.js';

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

const steps: Schema = {
  describe: 'a map of steps',
  check(value, path, ctx) {
    record({ describe: 'a step', check: checkStep }, 'a map of steps').check(value, path, ctx);
    if (!isPlainMap(value)) return;
    if (Object.keys(value).length === 0) ctx.report(path, '"steps" must hold at least one step');
    if (Object.hasOwn(value, '')) {
      ctx.report([...path, ''], 'A step needs a name; this one has an empty key', { at: 'key' });
    }
  },
};

export const pipelineSchema = object('pipeline', {
  version: required(version),
  steps: required(steps),
  stages: list(str),
  mode: oneOf(['sequential', 'parallel']),
  fail_fast: bool,
  strict_fail_fast: unsupported(bool),
  hooks: unsupported(hooks),
  services: unsupported(),
  success_criteria: unsupported(),
  indicators: any,
  build_version: unsupported(oneOf(['v1', 'v2'])),
});
