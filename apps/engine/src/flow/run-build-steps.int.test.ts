import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  useBuildHarness,
  outline,
  SHELL_IMAGE,
  stepFinished,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';

const harness = useBuildHarness();

test('a multi-step build succeeds and streams every line in order, per step and stream', async () => {
  const build = await harness().runSteps(`
  first:
    title: First step
    image: ${SHELL_IMAGE}
    commands:
      - echo out-1
      - echo err-1 >&2
      - echo out-2
      - echo err-2 >&2
      - for i in 1 2 3 4 5 6 7 8 9 10; do echo "loop-$i"; done
      - printf 'no trailing newline'
  second:
    image: ${SHELL_IMAGE}
    commands:
      - echo second-out
      - echo second-err >&2
`);

  assert.equal(build.summary.result, 'success');
  assert.equal(build.summary.reason, undefined);
  assert.deepEqual(
    build.summary.steps.map((s) => [s.name, s.title, s.result, s.exitCode]),
    [
      ['first', 'First step', 'success', 0],
      ['second', undefined, 'success', 0],
    ],
  );
  const loop = Array.from({ length: 10 }, (_, i) => `loop-${i + 1}`);
  assert.deepEqual(stepLines(build.events, 'first', 'stdout'), [
    'out-1',
    'out-2',
    ...loop,
    'no trailing newline',
  ]);
  assert.deepEqual(stepLines(build.events, 'first', 'stderr'), ['err-1', 'err-2']);
  assert.deepEqual(stepLines(build.events, 'second', 'stdout'), ['second-out']);
  assert.deepEqual(stepLines(build.events, 'second', 'stderr'), ['second-err']);
  assert.deepEqual(stepLines(build.events, 'first', 'system'), []);
  // Every line of a step arrives between its start and its end, and steps do not interleave.
  assert.deepEqual(outline(build.events), [
    'build-started',
    'volume-ready',
    'step-started:first',
    'log:first',
    'step-finished:first',
    'step-started:second',
    'log:second',
    'step-finished:second',
    'build-finished',
  ]);
  const started = build.events.find((e) => e.type === 'step-started' && e.step === 'first');
  assert.equal(started?.type === 'step-started' && started.title, 'First step');
  const finished = build.events.at(-1);
  assert.equal(finished?.type === 'build-finished' && finished.result, 'success');
});

test('a failing step fails the build with its exit code and later steps do not run', async () => {
  const build = await harness().runSteps(`
  before_failure:
    image: ${SHELL_IMAGE}
    commands: [echo ran-before]
  fails:
    image: ${SHELL_IMAGE}
    commands:
      - echo about-to-fail
      - exit 3
      - echo never-printed
  later:
    image: ${SHELL_IMAGE}
    commands: [echo must-not-run]
`);

  assert.equal(build.summary.result, 'failure');
  assert.match(build.summary.reason ?? '', /fails/);
  const fails = stepSummary(build, 'fails');
  assert.equal(fails.result, 'failure');
  assert.equal(fails.exitCode, 3);
  assert.match(fails.reason ?? '', /code 3/);
  assert.deepEqual(stepLines(build.events, 'fails', 'stdout'), ['about-to-fail']);
  assert.equal(stepFinished(build.events, 'fails')?.exitCode, 3);

  const later = stepSummary(build, 'later');
  assert.equal(later.result, 'skipped');
  assert.ok(later.reason, 'a step that did not run says why');
  assert.equal(later.exitCode, undefined);
  assert.ok(!build.events.some((e) => e.type === 'step-started' && e.step === 'later'));
  assert.deepEqual(stepLines(build.events, 'later'), []);
  const last = build.events.at(-1);
  assert.equal(last?.type === 'build-finished' && last.result, 'failure');
  assert.ok(last?.type === 'build-finished' && last.reason);
});

test('fail_fast: false lets later steps run, the build succeeds and workflow.result is failure', async () => {
  const build = await harness().runSteps(`
  tolerated:
    image: ${SHELL_IMAGE}
    fail_fast: false
    commands: [exit 3]
  still_runs:
    image: ${SHELL_IMAGE}
    commands: [echo still-ran]
  on_failure:
    image: ${SHELL_IMAGE}
    commands: [echo saw-failure]
    when:
      condition:
        all:
          failed: workflow.result == 'failure'
          tolerated: steps.tolerated.result == 'failure'
`);

  assert.equal(build.summary.result, 'success');
  assert.deepEqual(
    build.summary.steps.map((s) => [s.name, s.result, s.exitCode]),
    [
      ['tolerated', 'failure', 3],
      ['still_runs', 'success', 0],
      ['on_failure', 'success', 0],
    ],
  );
  assert.deepEqual(stepLines(build.events, 'still_runs', 'stdout'), ['still-ran']);
  assert.deepEqual(stepLines(build.events, 'on_failure', 'stdout'), ['saw-failure']);
});

test('when.branch.only skips a step and when.condition.all reads steps.X.result', async () => {
  const build = await harness().runSteps(
    `
  compile:
    image: ${SHELL_IMAGE}
    commands: [echo compiled]
  main_only:
    image: ${SHELL_IMAGE}
    commands: [echo deploying]
    when:
      branch:
        only: [main]
  feature_only:
    image: ${SHELL_IMAGE}
    commands: [echo feature-build]
    when:
      branch:
        only: ['/^feature\\//']
  after_compile:
    image: ${SHELL_IMAGE}
    commands: [echo compile-succeeded]
    when:
      condition:
        all:
          compiled: steps.compile.result == 'success'
  if_compile_failed:
    image: ${SHELL_IMAGE}
    commands: [echo compile-failed]
    when:
      condition:
        all:
          compiled: steps.compile.result == 'failure'
  if_main_ran:
    image: ${SHELL_IMAGE}
    commands: [echo main-ran]
    when:
      condition:
        all:
          ran: steps.main_only.result == 'success'
`,
    {
      facts: { pipelineName: 'conditions', branch: 'feature/login' },
    },
  );

  assert.equal(build.summary.result, 'success');
  assert.deepEqual(
    build.summary.steps.map((s) => [s.name, s.result]),
    [
      ['compile', 'success'],
      ['main_only', 'skipped'],
      ['feature_only', 'success'],
      ['after_compile', 'success'],
      ['if_compile_failed', 'skipped'],
      ['if_main_ran', 'skipped'],
    ],
  );
  assert.match(stepSummary(build, 'main_only').reason ?? '', /feature\/login/);
  assert.match(stepSummary(build, 'if_compile_failed').reason ?? '', /condition/);
  assert.deepEqual(stepLines(build.events, 'main_only'), []);
  assert.ok(!build.events.some((e) => e.type === 'step-started' && e.step === 'main_only'));
  assert.equal(stepFinished(build.events, 'main_only')?.result, 'skipped');
  assert.deepEqual(stepLines(build.events, 'after_compile', 'stdout'), ['compile-succeeded']);
});

test('a missing image fails its step with a message naming the image', async () => {
  const build = await harness().runSteps(`
  missing:
    image: sluice/does-not-exist:1
    commands: [echo unreachable]
  later:
    image: ${SHELL_IMAGE}
    commands: [echo must-not-run]
`);

  assert.equal(build.summary.result, 'failure');
  const missing = stepSummary(build, 'missing');
  assert.equal(missing.result, 'failure');
  assert.match(missing.reason ?? '', /sluice\/does-not-exist:1/);
  assert.equal(stepSummary(build, 'later').result, 'skipped');
  assert.ok(
    stepLines(build.events, 'missing', 'system').some((l) => l.includes('sluice/does-not-exist:1')),
  );
});

test('working_directory, environment, cmd and entry_point shape the step container', async () => {
  const build = await harness().runSteps(
    `
  prepare:
    image: ${SHELL_IMAGE}
    commands: [mkdir -p sub/dir, pwd]
  relative:
    image: ${SHELL_IMAGE}
    working_directory: sub/dir
    commands: [pwd]
  absolute:
    image: ${SHELL_IMAGE}
    working_directory: /tmp
    commands: [pwd]
  with_env:
    image: ${SHELL_IMAGE}
    environment:
      - GREETING=hello world
      - EQUALS=a=b
      - CF_BRANCH=overridden
    commands: ['echo "$GREETING|$EQUALS|$CF_BRANCH|$CF_STEP_NAME"']
  via_cmd:
    image: ${SHELL_IMAGE}
    cmd: [echo, from-cmd]
  via_entry_point:
    image: ${SHELL_IMAGE}
    entry_point: [sh, -c]
    cmd: ['echo "from-entry-point in $(pwd)"; echo to-stderr >&2']
`,
    {
      facts: { pipelineName: 'shape', branch: 'main' },
    },
  );

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  assert.deepEqual(stepLines(build.events, 'prepare', 'stdout'), ['/codefresh/volume']);
  assert.deepEqual(stepLines(build.events, 'relative', 'stdout'), ['/codefresh/volume/sub/dir']);
  assert.deepEqual(stepLines(build.events, 'absolute', 'stdout'), ['/tmp']);
  assert.deepEqual(stepLines(build.events, 'with_env', 'stdout'), [
    'hello world|a=b|overridden|with_env',
  ]);
  assert.deepEqual(stepLines(build.events, 'via_cmd', 'stdout'), ['from-cmd']);
  assert.deepEqual(stepLines(build.events, 'via_entry_point', 'stdout'), [
    'from-entry-point in /codefresh/volume',
  ]);
  assert.deepEqual(stepLines(build.events, 'via_entry_point', 'stderr'), ['to-stderr']);
});

test('shell: bash on an image without bash fails the step with a readable reason', async () => {
  const build = await harness().runSteps(`
  needs_bash:
    image: ${SHELL_IMAGE}
    shell: bash
    commands: [echo from-bash]
  later:
    image: ${SHELL_IMAGE}
    commands: [echo must-not-run]
`);

  assert.equal(build.summary.result, 'failure', build.summary.reason);
  const step = stepSummary(build, 'needs_bash');
  assert.equal(step.result, 'failure');
  assert.match(step.reason ?? '', /"bash": executable file not found/);
  assert.match(step.reason ?? '', /sluice\/busybox:1/);
  assert.equal(stepSummary(build, 'later').result, 'skipped');
  const containers = await harness().docker.listContainers({ 'io.sluice.build-id': build.buildId });
  assert.deepEqual(containers, []);
});
