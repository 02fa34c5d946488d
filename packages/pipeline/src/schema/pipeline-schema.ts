/**
 * Root keys of codefresh.yml (reference §5.1).
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import { checkStep, hooks } from './step-schemas.js';
import {
  any,
  bool,
  list,
  object,
  oneOf,
  record,
  required,
  str,
  unsupported,
} from './validators.js';
import type { Schema } from './validators.js';

const version: Schema = {
  describe: '"1.0"',
  check(value, path, ctx) {
    if (value === '1.0') return;
    if (value === 1 || value === '1') {
      ctx.report(path, 'Version should be the string "1.0"; the number is read as "1.0"', {
        code: ISSUE_CODES.deprecated,
        severity: 'warning',
      });
      return;
    }
    ctx.report(path, `"version" must be "1.0", got ${JSON.stringify(value)}`);
  },
};

const steps: Schema = {
  describe: 'a map of steps',
  check(value, path, ctx) {
    record({ describe: 'a step', check: checkStep }, 'a map of steps').check(value, path, ctx);
    if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) {
      ctx.report(path, '"steps" must hold at least one step');
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
