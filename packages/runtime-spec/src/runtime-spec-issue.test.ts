import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeFor } from '@sluice/errors';
import {
  formatRuntimeSpecIssue,
  formatRuntimeSpecPath,
  invalidRuntimeSpecError,
  RUNTIME_SPEC_ISSUE_CODES,
} from './runtime-spec-issue.js';
import type { RuntimeSpecIssue, RuntimeSpecYamlIssue } from './runtime-spec-issue.js';

const issue: RuntimeSpecIssue = {
  path: ['dockerDaemonScheduler', 'tolerations', 0, 'operator'],
  code: RUNTIME_SPEC_ISSUE_CODES.invalidValue,
  message: '"operator" must be one of "Exists", "Equal", got the string "exists"',
};

test('paths print as dotted fields with list indexes', () => {
  assert.equal(formatRuntimeSpecPath(issue.path), 'dockerDaemonScheduler.tolerations[0].operator');
  assert.equal(formatRuntimeSpecPath([]), '');
});

test('issues print with their path, and YAML issues with file:line:column', () => {
  assert.equal(
    formatRuntimeSpecIssue(issue),
    '"operator" must be one of "Exists", "Equal", got the string "exists" (at dockerDaemonScheduler.tolerations[0].operator)',
  );
  const placed: RuntimeSpecYamlIssue = { ...issue, path: [], file: 're.yaml', line: 3, column: 7 };
  assert.equal(formatRuntimeSpecIssue(placed), `re.yaml:3:7: ${issue.message}`);
});

test('invalidRuntimeSpecError is one input error carrying every issue', () => {
  const err = invalidRuntimeSpecError('prod/ci', [issue, { ...issue, path: ['version'] }]);
  assert.equal(err.code, 'SLUICE_RUNTIME_SPEC_INVALID');
  assert.equal(err.category, 'input');
  assert.equal(exitCodeFor(err), 2);
  assert.match(err.message, /^Runtime environment "prod\/ci" has 2 problems: "operator" must be/);
  assert.deepEqual((err.details?.issues as unknown[]).length, 2);
  const one = invalidRuntimeSpecError('a', [issue]);
  assert.match(one.message, /has 1 problem: /);
});
