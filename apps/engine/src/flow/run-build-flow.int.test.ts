import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalStep } from '@sluice/pipeline';
import {
  useBuildHarness,
  pipelineFrom,
  SHELL_IMAGE,
  stepsPipeline,
  stepFinished,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';
import type { BuildEvent } from '../base/build-events.js';
import type { ApprovalGate } from '../base/approval-gate.js';

const harness = useBuildHarness();

/** `type:step` entries of the events, in order, for the kinds asked for. */
function sequence(events: readonly BuildEvent[], types: BuildEvent['type'][]): string[] {
  return events.flatMap((e) =>
    types.includes(e.type) && 'step' in e ? [`${e.type.replace('step-', '')}:${e.step}`] : [],
  );
}

const index = (list: string[], entry: string) => {
  const at = list.indexOf(entry);
  assert.notEqual(at, -1, `${entry} missing from ${list.join(', ')}`);
  return at;
};

test('mode: parallel runs a DAG: independent steps at once, dependants after, unmet ones skipped', async () => {
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
mode: parallel
steps:
  a:
    image: ${SHELL_IMAGE}
    commands: ['sleep 1', 'echo a']
  d:
    image: ${SHELL_IMAGE}
    commands: ['echo d']
  b:
    image: ${SHELL_IMAGE}
    commands: ['echo b']
    when:
      steps:
        - name: a
          on: [success]
  on_a_failure:
    image: ${SHELL_IMAGE}
    commands: ['echo should not run']
    when:
      steps:
        - name: a
          on: [failure]
  e:
    image: ${SHELL_IMAGE}
    commands: ['echo e']
    when:
      steps:
        all:
          - name: b
            on: [success]
          - name: d
            on: [finished]
`),
  );
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const order = sequence(build.events, ['step-started', 'step-finished']);
  // d does not wait for a; b waits for a; e waits for both b and d.
  assert.ok(index(order, 'started:d') < index(order, 'finished:a'), order.join(', '));
  assert.ok(index(order, 'finished:a') < index(order, 'started:b'), order.join(', '));
  assert.ok(index(order, 'finished:b') < index(order, 'started:e'), order.join(', '));
  assert.ok(index(order, 'finished:d') < index(order, 'started:e'), order.join(', '));
  assert.equal(stepSummary(build, 'on_a_failure').result, 'skipped');
  assert.match(stepSummary(build, 'on_a_failure').reason ?? '', /a on failure/);
  assert.deepEqual(stepLines(build.events, 'e', 'stdout'), ['e']);
});

test('in a DAG a failing step runs its failure handler, and the build fails', async () => {
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
mode: parallel
steps:
  compile:
    image: ${SHELL_IMAGE}
    commands: ['exit 3']
  deploy:
    image: ${SHELL_IMAGE}
    commands: ['echo deploying']
    when: { steps: [{ name: compile, on: [success] }] }
  notify:
    image: ${SHELL_IMAGE}
    commands: ['echo compile failed']
    when: { steps: [{ name: compile, on: [failure] }] }
`),
  );
  assert.equal(build.summary.result, 'failure');
  assert.equal(stepSummary(build, 'compile').exitCode, 3);
  assert.equal(stepSummary(build, 'deploy').result, 'skipped');
  assert.deepEqual(stepLines(build.events, 'notify', 'stdout'), ['compile failed']);
});

test('a parallel block runs its children at once and a matrix expands into one child per value', async () => {
  const build = await harness().runSteps(`
  tests:
    type: parallel
    steps:
      unit:
        image: ${SHELL_IMAGE}
        matrix:
          environment:
            - [FLAVOR=alpha]
            - [FLAVOR=beta]
            - [FLAVOR=gamma]
        commands: ['echo flavor-$FLAVOR']
      lint:
        image: ${SHELL_IMAGE}
        commands: ['sleep 1', 'echo lint-done']
  after:
    image: ${SHELL_IMAGE}
    commands: ['echo after']
`);
  assert.equal(build.summary.result, 'success', build.summary.reason);
  // The matrix step becomes a parallel block of its own, one child per value, beside lint.
  assert.deepEqual(
    build.summary.steps
      .filter((s) => s.parent === 'tests')
      .map((s) => s.name)
      .sort(),
    ['lint', 'unit'],
  );
  const children = build.summary.steps.filter((s) => s.parent === 'unit');
  assert.equal(children.length, 3, children.map((c) => c.name).join(', '));
  const flavors = children
    .flatMap((c) => stepLines(build.events, c.name, 'stdout'))
    .filter((l) => l.startsWith('flavor-'))
    .sort();
  assert.deepEqual(flavors, ['flavor-alpha', 'flavor-beta', 'flavor-gamma']);
  const order = sequence(build.events, ['step-started', 'step-finished']);
  // Every matrix child started before the slow lint step finished: they ran side by side.
  for (const child of children)
    assert.ok(index(order, `started:${child.name}`) < index(order, 'finished:lint'));
  assert.ok(index(order, 'finished:tests') < index(order, 'started:after'));
  const started = build.events.find((e) => e.type === 'step-started' && e.step === 'lint');
  assert.equal(started?.type === 'step-started' ? started.parent : undefined, 'tests');
});

test('fail_fast in a parallel block stops the running siblings and fails the block', async () => {
  const build = await harness().runSteps(`
  block:
    type: parallel
    steps:
      broken:
        image: ${SHELL_IMAGE}
        commands: ['sleep 1', 'exit 1']
      slow:
        image: ${SHELL_IMAGE}
        commands: ['sleep 120']
  never:
    image: ${SHELL_IMAGE}
    commands: ['echo never']
`);
  assert.equal(build.summary.result, 'failure');
  assert.equal(stepSummary(build, 'block').result, 'failure');
  assert.equal(stepSummary(build, 'slow').result, 'terminated');
  assert.match(stepSummary(build, 'slow').reason ?? '', /step "broken" failed/);
  assert.equal(stepSummary(build, 'never').result, 'skipped');
});

test('retry runs a step again until its third attempt succeeds, with CF_CURRENT_ATTEMPT', async () => {
  const build = await harness().runSteps(`
  flaky:
    image: ${SHELL_IMAGE}
    retry:
      maxAttempts: 4
      delay: 0.2
    commands:
      - echo "attempt $CF_CURRENT_ATTEMPT of $CF_MAX_ATTEMPTS"
      - test "$CF_CURRENT_ATTEMPT" -ge 3
`);
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const flaky = stepSummary(build, 'flaky');
  assert.equal(flaky.result, 'success');
  assert.equal(flaky.attempts, 3);
  assert.deepEqual(stepLines(build.events, 'flaky', 'stdout'), [
    'attempt 1 of 4',
    'attempt 2 of 4',
    'attempt 3 of 4',
  ]);
  const attempts = build.events.flatMap((e) =>
    e.type === 'step-started' && e.step === 'flaky' ? [e.attempt] : [],
  );
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.equal(
    stepLines(build.events, 'flaky', 'system').filter((l) => /retry|next attempt/.test(l)).length,
    2,
  );
});

test('a timeout stops a hung step, reports it as timed out, and fails the build', async () => {
  const build = await harness().runSteps(`
  hung:
    image: ${SHELL_IMAGE}
    timeout: 3s
    commands: ['echo started', 'sleep 600']
  next:
    image: ${SHELL_IMAGE}
    commands: ['echo next']
`);
  assert.equal(build.summary.result, 'failure');
  const hung = stepSummary(build, 'hung');
  assert.equal(hung.result, 'timeout');
  assert.match(hung.reason ?? '', /timed out after 3s/);
  assert.equal(stepSummary(build, 'next').result, 'skipped');
  assert.deepEqual(stepLines(build.events, 'hung', 'stdout'), ['started']);
});

test('hooks run in the documented order and only on_elected decides a result', async () => {
  const exec = (text: string) => `{ exec: { image: ${SHELL_IMAGE}, commands: ['echo ${text}'] } }`;
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
hooks:
  on_elected: ${exec('pipeline-elected')}
  on_success: ${exec('pipeline-success')}
  on_fail: ${exec('pipeline-fail')}
  on_finish: ${exec('pipeline-finish')}
steps:
  main:
    image: ${SHELL_IMAGE}
    commands: ['echo main']
    hooks:
      on_elected: ${exec('step-elected')}
      on_success: ${exec('step-success')}
      on_fail: ${exec('step-fail')}
      on_finish:
        exec: { image: ${SHELL_IMAGE}, commands: ['echo step-finish', 'exit 1'] }
`),
  );
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const said = build.events.flatMap((e) =>
    e.type === 'step-log' && e.stream === 'stdout' ? [e.line] : [],
  );
  assert.deepEqual(said, [
    'pipeline-elected',
    'step-elected',
    'main',
    'step-success',
    'step-finish',
    'pipeline-success',
    'pipeline-finish',
  ]);
  // The failing on_finish hook is reported as its own step and leaves `main` a success.
  assert.equal(stepFinished(build.events, 'main.on_finish')?.result, 'failure');
  assert.equal(stepSummary(build, 'main').result, 'success');
});

test('a failing on_elected hook fails its step before the step runs, and on_fail hooks run', async () => {
  const build = await harness().run(
    pipelineFrom(`
version: '1.0'
hooks:
  on_fail: { exec: { image: ${SHELL_IMAGE}, commands: ['echo pipeline-fail'] } }
steps:
  guarded:
    image: ${SHELL_IMAGE}
    commands: ['echo must-not-run']
    hooks:
      on_elected: { exec: { image: ${SHELL_IMAGE}, commands: ['exit 2'] } }
      on_fail: { exec: { image: ${SHELL_IMAGE}, commands: ['echo step-fail'] } }
`),
  );
  assert.equal(build.summary.result, 'failure');
  assert.match(stepSummary(build, 'guarded').reason ?? '', /on_elected hook/);
  assert.deepEqual(stepLines(build.events, 'guarded', 'stdout'), []);
  assert.deepEqual(stepLines(build.events, 'guarded.on_fail', 'stdout'), ['step-fail']);
  assert.deepEqual(stepLines(build.events, 'hooks.on_fail', 'stdout'), ['pipeline-fail']);
});

const APPROVAL_STEPS = `
  approve:
    type: pending-approval
    title: Deploy to production?
  deploy:
    image: ${SHELL_IMAGE}
    commands: ['echo deployed']
`;

test('a pending-approval step waits for the gate: approved continues, denied fails the build', async () => {
  const asked: string[] = [];
  const approving: ApprovalGate = async (request) => {
    asked.push(`${request.step}:${request.title ?? ''}`);
    await new Promise((r) => setTimeout(r, 200));
    return { decision: 'approved', by: 'alice' };
  };
  const approved = await harness().runSteps(APPROVAL_STEPS, { approve: approving });
  assert.equal(approved.summary.result, 'success', approved.summary.reason);
  assert.deepEqual(asked, ['approve:Deploy to production?']);
  assert.ok(approved.events.some((e) => e.type === 'approval-requested' && e.step === 'approve'));
  assert.ok(stepLines(approved.events, 'approve', 'system').includes('Approved by alice'));
  assert.deepEqual(stepLines(approved.events, 'deploy', 'stdout'), ['deployed']);

  const denied = await harness().runSteps(APPROVAL_STEPS, {
    approve: () => Promise.resolve({ decision: 'denied', by: 'bob' }),
  });
  assert.equal(denied.summary.result, 'failure');
  assert.equal(stepSummary(denied, 'approve').result, 'denied');
  assert.equal(stepSummary(denied, 'approve').reason, 'Denied by bob');
  assert.equal(stepSummary(denied, 'deploy').result, 'skipped');
});

test('an unanswered approval takes its final state when its timeout passes', async () => {
  const timed = stepsPipeline(APPROVAL_STEPS);
  const step = timed.steps[0] as ApprovalStep;
  // The file's smallest timeout is a minute; the model's is milliseconds.
  timed.steps[0] = { ...step, timeoutMs: 300, finalState: 'approved' };
  const never: ApprovalGate = (_request, signal) =>
    new Promise((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new Error('stopped'))),
    );
  const build = await harness().run(timed, { approve: never });
  assert.equal(build.summary.result, 'success', build.summary.reason);
  assert.match(
    stepLines(build.events, 'approve', 'system').join('\n'),
    /Nobody answered within 300ms/,
  );
});

test('cancel during a parallel block stops every running child and ends the build terminated', async () => {
  const controller = new AbortController();
  const build = await harness().runSteps(
    `
  block:
    type: parallel
    steps:
      one: { image: ${SHELL_IMAGE}, commands: ['echo one-up', 'sleep 120'] }
      two: { image: ${SHELL_IMAGE}, commands: ['echo two-up', 'sleep 120'] }
  later: { image: ${SHELL_IMAGE}, commands: ['echo later'] }
`,
    {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'step-log' && e.line === 'two-up') setTimeout(() => controller.abort(), 300);
      },
    },
  );
  assert.equal(build.summary.result, 'terminated');
  assert.equal(stepSummary(build, 'one').result, 'terminated');
  assert.equal(stepSummary(build, 'two').result, 'terminated');
  assert.equal(stepSummary(build, 'later').result, 'skipped');
  assert.deepEqual(
    await harness().docker.listContainers({ 'io.sluice.build-id': build.buildId }),
    [],
  );
});
