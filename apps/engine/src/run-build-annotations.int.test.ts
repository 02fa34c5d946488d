import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LIMITS } from '@sluice/protocol';
import { useBuildHarness, SHELL_IMAGE, stepLines } from './build-harness.test-support.js';
import { MASK } from './secret-masker.js';

const harness = useBuildHarness();

test("a step's on_success, on_fail and on_finish annotate the build and its images as it ends, variables expanded and secrets masked", async () => {
  const token = `token-${randomBytes(6).toString('hex')}`;
  const build = await harness().runSteps(
    `
  made:
    image: ${SHELL_IMAGE}
    commands: ['cf_export IMAGE_ID=sha256:0123abcd']
    on_success:
      annotations:
        set:
          - entity_type: build
            annotations: [{tested: true}, {by: '\${{WHO}} with \${{API_TOKEN}}'}, {ratio: 0.5}, flaky, {old: x}]
      metadata:
        set:
          - '\${{IMAGE_ID}}': [{CF_QUALITY: true}, {built_by: '\${{CF_BUILD_ID}}'}]
    on_fail:
      annotations: {set: [{annotations: [{never: 1}]}]}
    on_finish:
      annotations: {unset: [{entity_type: build, annotations: [old]}]}
  broken:
    image: ${SHELL_IMAGE}
    commands: ['exit 3']
    on_success:
      annotations: {set: [{annotations: [{never: 2}]}]}
    on_fail:
      annotations:
        set:
          - annotations: [{failed_step: '\${{CF_BUILD_ID}}'}]
          - annotations: [{huge: '${'x'.repeat(LIMITS.annotationValue + 1)}'}]
          - {entity_type: image, entity_id: '\${{IMAGE_ID}}', annotations: [{CF_QUALITY: false}]}
`,
    { variables: { WHO: 'alice' }, secrets: { API_TOKEN: token } },
  );

  assert.equal(build.summary.result, 'failure', JSON.stringify(build.summary.steps));
  assert.deepEqual(build.summary.annotations, {
    annotations: {
      tested: true,
      by: `alice with ${MASK}`,
      ratio: 0.5,
      flaky: null,
      failed_step: build.buildId,
    },
    imageAnnotations: {
      'sha256:0123abcd': { CF_QUALITY: false, built_by: build.buildId },
    },
  });
  // Each step reports what it set once it ended, before its step-finished event.
  const reported = build.events.flatMap((e) =>
    e.type === 'annotations' || e.type === 'step-finished' ? [`${e.type} ${e.step}`] : [],
  );
  assert.deepEqual(reported, [
    'annotations made',
    'step-finished made',
    'annotations broken',
    'step-finished broken',
  ]);
  // The entry with an over-long value is named in the step's log and left out; the others are kept.
  assert.deepEqual(
    stepLines(build.events, 'broken', 'system').filter((l) => l.startsWith('Annotations')),
    [
      `Annotations not kept: an annotation of the build is refused at set.huge: Too big: expected string to have <=${LIMITS.annotationValue} characters`,
    ],
  );
  assert.equal(JSON.stringify(build.events).includes(token), false, 'the token leaked');
});
