/**
 * A typed step's images are made present before its first step starts (group-images.ts): the
 * shipped `helm` step, whose helm image cannot be built or pulled here, fails at once with the
 * image-not-found message that says how to load the image, and its `prepare` step never runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadStepTypeCatalog } from '@sluice/pipeline';
import { pipelineFrom, stepSummary, useBuildHarness } from './build-harness.test-support.js';
import { PULL_FIX } from './container-run.js';

const harness = useBuildHarness();
const STEP_TYPES = fileURLToPath(new URL('../../../step-types', import.meta.url));
const catalog = loadStepTypeCatalog([STEP_TYPES], { fs });
// A tag nobody publishes: the image is missing whatever this machine has loaded.
const HELM_IMAGE = 'alpine/helm:0.0.0-sluice-missing';

test('helm without its image fails before its first step, saying how to load the image', async () => {
  assert.equal(await harness().docker.imageExists(HELM_IMAGE), false);
  const pipeline = pipelineFrom(
    `version: '1.0'
steps:
  deploy:
    type: helm:1.1.12
    arguments:
      chart_name: ./charts/app
      release_name: web
      helm_version: 0.0.0-sluice-missing
  after:
    image: sluice/busybox:1
    commands: ['echo never']
`,
    { stepTypes: catalog },
  );
  const build = await harness().run(pipeline, { facts: { pipelineName: 'helm-missing' } });

  assert.equal(build.summary.result, 'failure');
  const deploy = stepSummary(build, 'deploy');
  assert.equal(deploy.result, 'failure');
  assert.match(
    deploy.reason ?? '',
    new RegExp(`^Image "${HELM_IMAGE}" is not on the Docker engine and could not be pulled: `),
  );
  assert.ok(deploy.reason?.endsWith(PULL_FIX), deploy.reason);
  const started = build.events.flatMap((e) => (e.type === 'step-started' ? [e.step] : []));
  assert.deepEqual(started, ['deploy'], 'a step of helm, or the next step, started');
});
