import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadStepTypeCatalog } from '@sluice/pipeline';
import {
  useBuildHarness,
  pipelineFrom,
  SHELL_IMAGE,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';

const harness = useBuildHarness();
const STEP_TYPES = fileURLToPath(new URL('../../../../step-types', import.meta.url));

/** A one-connection-at-a-time HTTP server in busybox: it keeps each request body on the volume. */
const HANDLER = [
  'len=0',
  'while read -r line; do',
  '  line=$(printf "%s" "$line" | tr -d "\\r")',
  '  [ -z "$line" ] && break',
  '  case "$line" in [Cc]ontent-[Ll]ength:*) len=${line#*: };; esac',
  'done',
  'head -c "$len" > /codefresh/volume/hook-request',
  'printf "HTTP/1.0 200 OK\\r\\nContent-Length: 8\\r\\n\\r\\nreceived"',
].join('\n');

test('a typed step from the shipped catalog runs: webhook-notify posts to a service by name', async () => {
  const catalog = loadStepTypeCatalog([STEP_TYPES], { fs });
  const yaml = `
version: '1.0'
services:
  name: hooks
  composition:
    hook:
      image: ${SHELL_IMAGE}
      environment:
        HANDLER: ${JSON.stringify(HANDLER)}
      volumes: ['\${{CF_VOLUME_NAME}}:/codefresh/volume']
      command: ['sh', '-c', 'exec nc -ll -p 8080 -e sh -c "$HANDLER"']
  readiness:
    image: ${SHELL_IMAGE}
    periodSeconds: 1
    commands: ['echo | nc -w 2 hook 8080 | grep -q received']
steps:
  notify:
    type: sluice/webhook-notify:1.0.0
    arguments:
      URL: http://hook:8080/hooks/build
      TEXT: 'Build of \${{CF_BRANCH}} says "done"'
  check:
    image: ${SHELL_IMAGE}
    commands: ['cat /codefresh/volume/hook-request']
`;
  const build = await harness().run(pipelineFrom(yaml, { stepTypes: catalog }), {
    facts: { pipelineName: 'typed', branch: 'main' },
  });
  assert.equal(build.summary.result, 'success', build.summary.reason);
  assert.equal(stepSummary(build, 'notify').result, 'success');
  const inner = build.summary.steps.filter((s) => s.parent === 'notify');
  assert.deepEqual(
    inner.map((s) => s.result),
    ['success'],
  );
  assert.deepEqual(stepLines(build.events, 'check', 'stdout'), [
    '{"text":"Build of main says \\"done\\""}',
  ]);
});
