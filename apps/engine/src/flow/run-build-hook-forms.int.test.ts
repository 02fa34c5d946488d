/**
 * Hooks in the forms Codefresh's hooks page writes them, run on the real Docker engine: hooks
 * of only annotations or metadata set them at their moment and start no container (Docker's
 * own event log says which containers the build created); the shorter forms (no `exec`) run;
 * typed steps in a hook's `steps` (or in `exec.steps`) run from the catalog given to the parser.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureDockerEngine, runCommand } from '@sluice/testkit';
import { catalogFromDefinitions } from '@sluice/pipeline';
import {
  SHELL_IMAGE,
  pipelineFrom,
  stepLines,
  useBuildHarness,
} from './build-harness.test-support.js';
import { containerNameFor } from '../base/resource-names.js';

const harness = useBuildHarness();

/** Names of the containers Docker created between `since` and `until` (seconds since epoch). */
async function containersCreated(since: number, until: number): Promise<string[]> {
  const engine = await ensureDockerEngine();
  const result = await runCommand('docker', [
    '-H',
    `unix://${engine.socketPath}`,
    'events',
    ...['--since', String(since), '--until', String(until)],
    ...['--filter', 'type=container', '--filter', 'event=create'],
    ...['--format', '{{.Actor.Attributes.name}}'],
  ]);
  assert.equal(result.code, 0, `docker events failed: ${result.stderr}`);
  return result.stdout.split('\n').filter((line) => line !== '');
}

test('hooks of only annotations or metadata set them at their moment and start no container; a hook without exec runs its container', async () => {
  const pipeline = pipelineFrom(`version: '1.0'
hooks:
  on_elected:
    annotations: {set: [{annotations: [{elected: '\${{CF_BUILD_ID}}'}, {stale: x}]}]}
  on_success:
    annotations: {set: [{annotations: [{pipeline_ok: true}]}]}
  on_fail:
    annotations: {set: [{annotations: [{never: 1}]}]}
  on_finish:
    image: ${SHELL_IMAGE}
    commands: ['echo pipeline finished']
steps:
  made:
    image: ${SHELL_IMAGE}
    commands: ['cf_export IMAGE_ID=sha256:89abcdef']
    hooks:
      on_elected:
        annotations: {unset: [{annotations: [stale]}]}
      on_success:
        metadata: {set: [{'\${{IMAGE_ID}}': [{CF_QUALITY: true}]}]}
      on_finish:
        exec: {image: ${SHELL_IMAGE}, commands: ['echo made finished']}
`);
  const since = Math.floor(Date.now() / 1000) - 1;
  const build = await harness().run(pipeline);
  const until = Math.ceil(Date.now() / 1000) + 1;

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  assert.deepEqual(build.summary.annotations, {
    annotations: { elected: build.buildId, pipeline_ok: true },
    imageAnnotations: { 'sha256:89abcdef': { CF_QUALITY: true } },
  });
  const reported = build.events.flatMap((e) => (e.type === 'annotations' ? [e.step] : []));
  assert.deepEqual(reported, [
    'hooks.on_elected',
    'made.on_elected',
    'made.on_success',
    'hooks.on_success',
  ]);
  // The hooks with a container ran it; the others started none.
  assert.deepEqual(stepLines(build.events, 'made.on_finish', 'stdout'), ['made finished']);
  assert.deepEqual(stepLines(build.events, 'hooks.on_finish', 'stdout'), ['pipeline finished']);
  const created = await containersCreated(since, until);
  const ofBuild = created.filter((name) => name.includes(build.buildId));
  for (const step of ['made', 'made.on_finish', 'hooks.on_finish']) {
    const name = containerNameFor(build.buildId, step, 1);
    assert.ok(ofBuild.includes(name), `${name} not among ${ofBuild.join(', ')}`);
  }
  const hookContainers = ofBuild.filter((name) => /on_elected|on_success|on_fail\b/.test(name));
  assert.deepEqual(hookContainers, [], 'an annotations-only hook started a container');
});

const GREET = `version: '1.0'
kind: step-type
metadata:
  name: acme/greet
  version: 1.0.0
spec:
  arguments:
    type: object
    required: [WHO]
    properties:
      WHO: {type: string}
  steps:
    say:
      image: ${SHELL_IMAGE}
      commands: ['echo hello [[ .Arguments.WHO ]]']
`;

test("typed steps in hooks, as the page writes them (exec.steps on the pipeline, a step named exec under a step hook's steps), run", async () => {
  const stepTypes = catalogFromDefinitions(
    [{ name: 'acme/greet', version: '1.0.0', source: 'memory', text: GREET }],
    'memory',
  );
  const pipeline = pipelineFrom(
    `version: '1.0'
hooks:
  on_elected:
    exec:
      steps:
        pending:
          type: acme/greet:1.0.0
          arguments: {WHO: pipeline}
steps:
  made:
    image: ${SHELL_IMAGE}
    commands: ['echo made']
    hooks:
      on_finish:
        steps:
          exec:
            type: acme/greet
            arguments: {WHO: '\${{CF_BUILD_ID}}'}
`,
    { stepTypes },
  );
  const build = await harness().run(pipeline);

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  const said = build.events.flatMap((e) =>
    e.type === 'step-log' && e.stream === 'stdout' && e.line.startsWith('hello')
      ? [`${e.step}: ${e.line}`]
      : [],
  );
  assert.deepEqual(said, ['pending_say: hello pipeline', `exec_say: hello ${build.buildId}`]);
});
