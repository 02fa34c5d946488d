import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  useBuildHarness,
  SHELL_IMAGE,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';
import { MASK } from '../base/secret-masker.js';

const harness = useBuildHarness();

/** A value that cannot appear in any output by accident. */
function secretValue(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

test('cf_export and env_vars_to_export values reach later steps as $VAR and ${{VAR}}', async () => {
  const build = await harness().runSteps(`
  export:
    image: ${SHELL_IMAGE}
    commands:
      - cf_export A=1
      - cf_export B="two words" C=x=y
      - echo "same step:$A|$B|$C"
      - echo DIRECT=written-directly >> /codefresh/volume/env_vars_to_export
  use:
    image: ${SHELL_IMAGE}
    commands:
      - echo "env:$A|$B|$C|$DIRECT"
      - echo 'interpolated:\${{A}}|\${{B}}|\${{DIRECT}}'
  condition_on_export:
    image: ${SHELL_IMAGE}
    commands: [echo condition-saw-export]
    when:
      condition:
        all:
          exported: '"\${{A}}" == "1"'
`);

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  assert.deepEqual(stepLines(build.events, 'export', 'stdout'), ['same step:1|two words|x=y']);
  assert.deepEqual(stepLines(build.events, 'use', 'stdout'), [
    'env:1|two words|x=y|written-directly',
    'interpolated:1|two words|written-directly',
  ]);
  assert.equal(stepSummary(build, 'condition_on_export').result, 'success');
  assert.deepEqual(build.summary.exported, {
    A: '1',
    B: 'two words',
    C: 'x=y',
    DIRECT: 'written-directly',
  });
});

test('secrets and cf_export --mask values never appear in any event or in the summary', async () => {
  const token = secretValue('token');
  const multi = [secretValue('multi-a'), secretValue('multi-b'), secretValue('multi-c')];
  const masked = secretValue('masked');
  const maskedLines = [secretValue('ml-a'), secretValue('ml-b')];
  const build = await harness().runSteps(
    `
  leak:
    title: 'Deploying with \${{API_TOKEN}}'
    image: ${SHELL_IMAGE}
    commands:
      - echo "token=$API_TOKEN"
      - echo "$API_TOKEN" >&2
      - echo 'interpolated=\${{API_TOKEN}}'
      - printf '%s\\n' "$CERT"
      - cf_export MASKED=${masked} --mask
      - echo "right after on stdout:$MASKED"
      - echo "right after on stderr:$MASKED" >&2
      - cf_export MULTI_MASKED="$(printf '${maskedLines.join('\\n')}')" --mask
      - printf '%s\\n' "$MULTI_MASKED"
      - printf '%s\\n' "$MULTI_MASKED" >&2
      - cf_export PLAIN=visible
  later:
    title: 'Later \${{MASKED}}'
    image: ${SHELL_IMAGE}
    fail_fast: false
    commands:
      - echo "later:$MASKED|\${{MASKED}}|$API_TOKEN"
      - echo "fail with $API_TOKEN" >&2
      - exit 4
  private_image:
    image: '\${{API_TOKEN}}/app:1'
    commands: [echo unreachable]
`,
    {
      secrets: { API_TOKEN: token, CERT: multi.join('\n') },
    },
  );

  assert.equal(build.summary.result, 'failure');
  assert.equal(stepSummary(build, 'leak').result, 'success');
  assert.equal(stepSummary(build, 'later').exitCode, 4);
  assert.match(stepSummary(build, 'private_image').reason ?? '', /could not be pulled/);
  const serialized = JSON.stringify({ events: build.events, summary: build.summary });
  for (const secret of [token, ...multi, masked, ...maskedLines]) {
    const leaks = build.events.filter((e) => JSON.stringify(e).includes(secret));
    assert.ok(!serialized.includes(secret), `${secret} leaked: ${JSON.stringify(leaks)}`);
  }
  assert.deepEqual(stepLines(build.events, 'leak', 'stdout'), [
    `token=${MASK}`,
    `interpolated=${MASK}`,
    MASK,
    MASK,
    MASK,
    `right after on stdout:${MASK}`,
    MASK,
    MASK,
  ]);
  assert.deepEqual(stepLines(build.events, 'leak', 'stderr'), [
    MASK,
    `right after on stderr:${MASK}`,
    MASK,
    MASK,
  ]);
  assert.deepEqual(stepLines(build.events, 'later', 'stdout'), [`later:${MASK}|${MASK}|${MASK}`]);
  assert.deepEqual(build.summary.exported, { PLAIN: 'visible' });
});

test('the volume persists across steps and builds with the same key, but not other keys', async () => {
  const key = harness().volumeKey('persist');
  const marker = secretValue('persisted');
  const first = await harness().runSteps(
    `
  write:
    image: ${SHELL_IMAGE}
    commands:
      - echo ${marker} > /codefresh/volume/data.txt
      - cf_export FIRST_BUILD=yes
  read:
    image: ${SHELL_IMAGE}
    commands: [cat /codefresh/volume/data.txt]
`,
    { volumeKey: key },
  );
  assert.equal(first.summary.result, 'success');
  assert.deepEqual(stepLines(first.events, 'read', 'stdout'), [marker]);
  assert.deepEqual(first.summary.exported, { FIRST_BUILD: 'yes' });

  const second = await harness().runSteps(
    `
  raw_read:
    image: ${SHELL_IMAGE}
    cmd: [cat, /codefresh/volume/data.txt]
  read_again:
    image: ${SHELL_IMAGE}
    commands:
      - cat /codefresh/volume/data.txt
      - echo "first build export:[$FIRST_BUILD]"
      - cf_export SECOND_BUILD=yes
  after_export:
    image: ${SHELL_IMAGE}
    commands:
      - echo "seen:[$FIRST_BUILD][$SECOND_BUILD]"
      - echo 'interpolated:[\${{FIRST_BUILD}}][\${{SECOND_BUILD}}]'
`,
    { volumeKey: key },
  );
  assert.equal(second.summary.result, 'success', JSON.stringify(second.summary.steps));
  assert.deepEqual(stepLines(second.events, 'raw_read', 'stdout'), [marker]);
  assert.deepEqual(stepLines(second.events, 'read_again', 'stdout'), [
    marker,
    'first build export:[]',
  ]);
  assert.deepEqual(stepLines(second.events, 'after_export', 'stdout'), [
    'seen:[][yes]',
    'interpolated:[${{FIRST_BUILD}}][yes]',
  ]);
  assert.deepEqual(second.summary.exported, { SECOND_BUILD: 'yes' });

  const other = await harness().runSteps(`
  look:
    image: ${SHELL_IMAGE}
    commands: ['if [ -e /codefresh/volume/data.txt ]; then echo present; else echo absent; fi']
`);
  assert.notEqual(other.volumeKey, key);
  assert.deepEqual(stepLines(other.events, 'look', 'stdout'), ['absent']);
});
