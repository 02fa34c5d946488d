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
import { PULL_FIX } from '../containers/container-run.js';

const harness = useBuildHarness();
const STEP_TYPES = fileURLToPath(new URL('../../../../step-types', import.meta.url));
const catalog = loadStepTypeCatalog([STEP_TYPES], { fs });
// A tag nobody publishes: the image is missing whatever this machine has loaded.
const HELM_IMAGE = 'alpine/helm:0.0.0-sluice-missing';

test('helm without its image fails before its first step, saying how to load the image', async () => {
  assert.equal(await harness().docker.imageExists(HELM_IMAGE), false);
  const pipeline = pipelineFrom(
    `version: '1.0'
steps:
  release:
    type: helm
    arguments:
      helm_version: 0.0.0-sluice-missing
      chart_name: ./chart
      release_name: api
  after:
    image: sluice/busybox:1
    commands: ['echo never']
`,
    { stepTypes: catalog },
  );
  const build = await harness().run(pipeline, { facts: { pipelineName: 'helm-missing' } });

  assert.equal(build.summary.result, 'failure');
  const release = stepSummary(build, 'release');
  assert.equal(release.result, 'failure');
  assert.match(
    release.reason ?? '',
    new RegExp(`^Image "${HELM_IMAGE}" is not on the Docker engine and could not be pulled: `),
  );
  assert.ok(release.reason?.endsWith(PULL_FIX), release.reason);
  const started = build.events.flatMap((e) => (e.type === 'step-started' ? [e.step] : []));
  assert.deepEqual(started, ['release'], 'a step of helm, or the next step, started');
});
