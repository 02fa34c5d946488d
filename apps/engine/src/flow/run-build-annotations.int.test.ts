import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LIMITS } from '@sluice/protocol';
import {
  pipelineFrom,
  useBuildHarness,
  SHELL_IMAGE,
  stepLines,
} from './build-harness.test-support.js';
import { MASK } from '../base/secret-masker.js';

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

test("hooks' annotations and metadata are set once the hook has run, on the pipeline and on steps, as the hook's", async () => {
  const token = `token-${randomBytes(6).toString('hex')}`;
  const pipeline = pipelineFrom(`version: '1.0'
hooks:
  on_elected:
    exec: {image: ${SHELL_IMAGE}, commands: ['echo elected']}
    annotations: {set: [{annotations: [{elected: '\${{CF_BUILD_ID}}'}, {stale: x}]}]}
  on_success:
    exec: {image: ${SHELL_IMAGE}, commands: ['echo never']}
    annotations: {set: [{annotations: [{never: 1}]}]}
  on_fail:
    exec: {image: ${SHELL_IMAGE}, commands: ['exit 7']}
    annotations: {set: [{annotations: [{pipeline_failed: true}, {key: '\${{API_TOKEN}}'}]}]}
  on_finish:
    exec: {image: ${SHELL_IMAGE}, commands: ['echo finished']}
    annotations:
      set: [{annotations: [{huge: '${'y'.repeat(LIMITS.annotationValue + 1)}'}]}]
      unset: [{annotations: [stale]}]
steps:
  made:
    image: ${SHELL_IMAGE}
    commands: ['cf_export IMAGE_ID=sha256:4567cdef']
    hooks:
      on_success:
        metadata: {set: [{'\${{IMAGE_ID}}': [{CF_QUALITY: true}]}]}
        exec: {image: ${SHELL_IMAGE}, commands: ['echo made']}
      on_fail:
        exec: {image: ${SHELL_IMAGE}, commands: ['echo never']}
        annotations: {set: [{annotations: [{never: 2}]}]}
  broken:
    image: ${SHELL_IMAGE}
    commands: ['exit 3']
    hooks:
      on_fail:
        steps:
          report: {image: ${SHELL_IMAGE}, commands: ['echo report']}
        annotations: {set: [{annotations: [{failed_by: '\${{WHO}}'}]}]}
`);
  const build = await harness().run(pipeline, {
    variables: { WHO: 'alice' },
    secrets: { API_TOKEN: token },
  });

  assert.equal(build.summary.result, 'failure', JSON.stringify(build.summary.steps));
  assert.deepEqual(build.summary.annotations, {
    annotations: {
      elected: build.buildId,
      failed_by: 'alice',
      pipeline_failed: true,
      key: MASK,
    },
    imageAnnotations: { 'sha256:4567cdef': { CF_QUALITY: true } },
  });
  // Reported as the hook's, after its exec and steps ran; the hooks that did not run set nothing.
  const reported = build.events.flatMap((e) =>
    e.type === 'annotations'
      ? [`${e.step} ${e.changes.map((c) => Object.keys(c.set ?? {}).join(',')).join(';')}`]
      : [],
  );
  assert.deepEqual(reported, [
    'hooks.on_elected elected,stale',
    'made.on_success CF_QUALITY',
    'broken.on_fail failed_by',
    'hooks.on_fail pipeline_failed,key',
    'hooks.on_finish ',
  ]);
  const order = build.events.flatMap((e) =>
    (e.type === 'step-finished' && e.step === 'hooks.on_fail') ||
    (e.type === 'annotations' && e.step === 'hooks.on_fail')
      ? [e.type]
      : [],
  );
  assert.deepEqual(order, ['step-finished', 'annotations'], 'the exec ran first, though it failed');
  assert.deepEqual(
    stepLines(build.events, 'hooks.on_finish', 'system').filter((l) => l.startsWith('Annotations')),
    [
      `Annotations not kept: an annotation of the build is refused at set.huge: Too big: expected string to have <=${LIMITS.annotationValue} characters`,
    ],
  );
  assert.equal(JSON.stringify(build.events).includes(token), false, 'the token leaked');
});
