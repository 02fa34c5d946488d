/**
 * What a pipeline uses that Sluice accepts but does not run is named in the build's log before
 * any step starts; a construct the build cannot do without stops it there, with no container
 * started. Also the Codefresh forms of `when.steps` the parser now reads: `on: approved|denied`
 * and a dependency on the implicit `main_clone`; and an image that cannot be pulled says how to
 * fix it. On the real Docker engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  pipelineFrom,
  SHELL_IMAGE,
  stepLines,
  stepSummary,
  useBuildHarness,
} from './build-harness.test-support.js';
import { PULL_FIX } from '../containers/container-run.js';
import { PIPELINE_LOG_OWNER } from './not-run-check.js';
import { LABELS } from '../base/resource-names.js';
import type { ApprovalGate } from '../base/approval-gate.js';

const harness = useBuildHarness();

test('a step type Sluice does not run stops the build before its first step, naming it and where', async () => {
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
steps:
  test:
    image: ${SHELL_IMAGE}
    commands: ['echo never runs']
  ship:
    type: launch-composition
    composition: app
`),
  );
  assert.equal(build.summary.result, 'failure');
  assert.equal(
    build.summary.reason,
    'Step type "launch-composition" at codefresh.yml:8:11 is not run by Sluice; no step was started',
  );
  assert.deepEqual(
    build.events.filter((e) => e.type === 'step-started'),
    [],
  );
  assert.equal(stepSummary(build, 'test').result, 'skipped');
  assert.deepEqual(stepLines(build.events, PIPELINE_LOG_OWNER, 'system'), [
    'This pipeline uses 1 construct that Sluice does not run:',
    '  codefresh.yml:8:11: Step type "launch-composition" is not run by Sluice: environments that outlive the build are not kept; the build stops before its first step',
  ]);
  const containers = await harness().docker.listContainers({ [LABELS.build]: build.buildId });
  assert.deepEqual(containers, []);
});

test('constructs with no effect here are named and the build runs; approved, denied and main_clone dependencies work', async () => {
  const approve: ApprovalGate = () => Promise.resolve({ decision: 'approved', by: 'test' });
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
mode: parallel
steps:
  gate:
    type: pending-approval
  shipped:
    image: ${SHELL_IMAGE}
    registry_context: gcr
    env: [IGNORED=1]
    commands: ['echo approved, shipping']
    when: {steps: [{name: gate, on: approved}, {name: main_clone, on: success}]}
  rolled_back:
    image: ${SHELL_IMAGE}
    commands: ['echo denied']
    when: {steps: [{name: gate, on: denied}]}
`),
    { approve },
  );
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const notes = stepLines(build.events, PIPELINE_LOG_OWNER, 'system');
  assert.equal(notes[0], 'This pipeline uses 3 constructs that Sluice does not run:');
  assert.match(
    notes[1] ?? '',
    /^ {2}codefresh\.yml:9:5: Field "registry_context" of freestyle step/,
  );
  assert.match(notes[2] ?? '', /^ {2}codefresh\.yml:10:5: Unknown field "env"/);
  assert.match(notes[3] ?? '', /^ {2}codefresh\.yml:12:55: "when\.steps" names "main_clone"/);
  assert.deepEqual(stepLines(build.events, 'shipped', 'stdout'), ['approved, shipping']);
  assert.equal(stepSummary(build, 'rolled_back').result, 'skipped');
});

test("an image that cannot be pulled fails its step with Docker's reason and how to fix it", async () => {
  const build = await harness().runSteps(`
  test:
    image: sluice-it/no-such-image:404
    commands: [echo never]
`);
  assert.equal(build.summary.result, 'failure');
  const reason = stepSummary(build, 'test').reason ?? '';
  assert.match(
    reason,
    /^Image "sluice-it\/no-such-image:404" is not on the Docker engine and could not be pulled: \S/,
  );
  assert.ok(reason.endsWith(`; ${PULL_FIX}`), reason);
});
