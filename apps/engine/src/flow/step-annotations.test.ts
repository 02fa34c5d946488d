import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from '@sluice/pipeline';
import { applyAnnotationChanges } from '@sluice/protocol';

/** Whether `sluice validate` and the control plane (a step's change when it ends) refuse `name`. */
function refused(name: string): [boolean, boolean] {
  const yaml = [
    'version: "1.0"',
    'steps:',
    '  test:',
    '    image: alpine',
    `    on_success: {annotations: {set: [{annotations: [{"${name}": 1}]}]}}`,
  ].join('\n');
  const parsed = parsePipeline(yaml, { file: 'codefresh.yml' });
  const atValidate = parsed.issues.some((issue) => issue.severity === 'error');
  const change = { entity: 'build' as const, set: { [name]: 1 }, unset: [] };
  const current = { annotations: {}, imageAnnotations: {} };
  const atRun = !applyAnnotationChanges(current, [change]).ok;
  return [atValidate, atRun];
}

test('the pipeline check and the control plane refuse the same annotation names', () => {
  for (const name of ['sluice.log-limit', 'sluice.', 'sluice.x.y'])
    assert.deepEqual(refused(name), [true, true], name);
  for (const name of ['Sluice.log-limit', 'my.sluice.note', 'sluice', 'sluicex'])
    assert.deepEqual(refused(name), [false, false], name);
});
