import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCompositionStep } from './step-composition.js';
import { LABELS } from '../base/resource-names.js';
import {
  compositionStep,
  createStepRuntime,
  service,
  SHELL_IMAGE,
} from './step-runtime.test-support.js';

/** A service answering "ok" on port 80 of its name; `${WORD}` comes from composition_variables. */
const web = service({
  name: 'web',
  image: SHELL_IMAGE,
  entrypoint: ['sh', '-c'],
  command: ['exec nc -ll -p 80 -e echo "${WORD}"'],
});

test('candidates reach the services by name; all exit 0 is success; services are removed', async () => {
  const step = compositionStep({
    name: 'integration',
    services: [web],
    candidates: [
      service({
        name: 'tests',
        image: SHELL_IMAGE,
        entrypoint: ['sh', '-c'],
        command: [
          'for i in 1 2 3 4 5 6 7 8 9 10; do out=$(nc -w 1 web 80) && break; sleep 1; done; echo "web says $out to $WHO"; [ "$out" = "${WORD}" ]',
        ],
        environment: [['WHO', '${TARGET}']],
      }),
    ],
    variables: [
      ['WORD', 'hello'],
      ['TARGET', 'sluice'],
    ],
  });
  const fx = await createStepRuntime({ steps: [step] });
  try {
    const outcome = await runCompositionStep(step, fx.runtime);
    assert.equal(outcome.result, 'success', outcome.reason);
    assert.deepEqual(fx.lines('integration', 'stdout'), ['web says hello to sluice']);
    assert.ok(fx.lines('integration', 'system').includes('[web] starting sluice/busybox:1'));
    assert.deepEqual(await fx.containers({ [LABELS.step]: 'integration' }), []);
  } finally {
    await fx.close();
  }
});

test('a candidate that exits non-zero fails the step and names itself', async () => {
  const step = compositionStep({
    name: 'integration',
    services: [web],
    candidates: [
      service({
        name: 'unit',
        image: SHELL_IMAGE,
        entrypoint: ['sh', '-c'],
        command: ['echo unit ok'],
      }),
      service({
        name: 'e2e',
        image: SHELL_IMAGE,
        entrypoint: ['sh', '-c'],
        command: ['echo e2e broke >&2; exit 4'],
      }),
    ],
    variables: [['WORD', 'hello']],
  });
  const fx = await createStepRuntime({ steps: [step] });
  try {
    const outcome = await runCompositionStep(step, fx.runtime);
    assert.equal(outcome.result, 'failure');
    assert.equal(outcome.exitCode, 4);
    assert.equal(outcome.reason, 'Composition candidate e2e exited with code 4');
    assert.deepEqual(fx.lines('integration', 'stdout'), ['[unit] unit ok']);
    assert.deepEqual(fx.lines('integration', 'stderr'), ['[e2e] e2e broke']);
    assert.deepEqual(await fx.containers({ [LABELS.step]: 'integration' }), []);
  } finally {
    await fx.close();
  }
});
