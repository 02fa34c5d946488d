import { test } from 'node:test';
import assert from 'node:assert/strict';
import { projectTargetOf } from './project-targets.js';

test("a request's project target comes from its params", () => {
  assert.deepEqual(projectTargetOf({ project: 'web', name: 'app' }), {
    kind: 'project',
    key: 'web',
  });
  assert.deepEqual(projectTargetOf({ pipelineId: 'pip_1', name: 'X' }), {
    kind: 'pipeline',
    key: 'pip_1',
  });
  assert.deepEqual(projectTargetOf({ buildId: 'bld_1' }), { kind: 'build', key: 'bld_1' });
  assert.deepEqual(projectTargetOf({ triggerId: 'trg_1' }), { kind: 'trigger', key: 'trg_1' });
  assert.equal(projectTargetOf({ name: 'local' }), undefined);
  assert.equal(projectTargetOf(undefined), undefined);
});
