import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand } from '@sluice/testkit';
import {
  pipelineFrom,
  SHELL_IMAGE,
  stepLines,
  uniqueId,
  useBuildHarness,
} from './build-harness.test-support.js';

const harness = useBuildHarness();

/**
 * The constructs as a Codefresh user writes them, through the parser: nothing is named as not
 * run, the build writes a compose file, builds it with BuildKit (cache_from its own first build)
 * and runs the composition from that file with depends_on, links and the flow volume.
 */
test('a codefresh.yml with a BuildKit build and a compose-file composition runs end to end', async () => {
  const image = uniqueId('sluice-it/cf-bk');
  const compose = [
    "version: '3'",
    'services:',
    '  api:',
    `    image: ${image}:v1`,
    '    entrypoint: [sh, -c]',
    "    command: ['exec nc -ll -p 80 -e cat /greeting']",
    "    ports: ['80']",
    '    depends_on: {seed: {condition: service_completed_successfully}}',
    '  seed:',
    `    image: ${SHELL_IMAGE}`,
    '    entrypoint: [sh, -c]',
    "    command: ['echo seeded > /codefresh/volume/seeded']",
  ];
  const indent = (lines: string[]) => lines.map((line) => `        ${line}`).join('\n');
  const yaml = `
version: '1.0'
steps:
  write:
    image: ${SHELL_IMAGE}
    commands:
      - |-
        mkdir -p app && cd app
        cat > Dockerfile <<'EOF'
${indent([`FROM ${SHELL_IMAGE}`, 'RUN echo hello > /greeting'])}
        EOF
        cat > docker-compose.yml <<'EOF'
${indent(compose)}
        EOF
  image:
    type: build
    working_directory: \${{write}}/app
    image_name: ${image}
    tag: v1
    buildkit: true
    platform: linux/amd64
    cache_from: ['${image}:v1']
  it:
    type: composition
    working_directory: \${{write}}/app
    composition: docker-compose.yml
    add_flow_volume_to_composition: true
    composition_candidates:
      tests:
        image: ${SHELL_IMAGE}
        links: ['api:greeter']
        depends_on: {api: {condition: service_healthy}}
        command: sh -c 'echo "greeter says $(nc -w 2 greeter 80)"; cat /codefresh/volume/seeded'
`;
  const pipeline = pipelineFrom(yaml);
  assert.deepEqual(pipeline.notRun, []);
  try {
    const build = await harness().run(pipeline);
    assert.equal(build.summary.result, 'success', build.summary.reason);
    assert.ok(
      stepLines(build.events, 'image', 'system').includes(
        `Building with BuildKit (platform linux/amd64; cache from ${image}:v1)`,
      ),
    );
    assert.deepEqual(stepLines(build.events, 'it', 'stdout'), ['greeter says hello', 'seeded']);
  } finally {
    await runCommand('docker', ['rmi', '-f', `${image}:v1`]);
  }
});
