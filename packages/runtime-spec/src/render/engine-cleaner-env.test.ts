import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderBuildObjects } from './render-build-objects.js';
import {
  BUILD,
  defaultSpec,
  envOf,
  fullSpec,
  validateKube,
} from './render-fixtures.test-support.js';

test('the engine pod cleans its dind by default (CLEAN_DOCKER=true)', () => {
  const { enginePod } = renderBuildObjects(defaultSpec(), BUILD);
  assert.deepEqual(envOf(enginePod, 'CLEAN_DOCKER'), { name: 'CLEAN_DOCKER', value: 'true' });
  assert.equal(envOf(enginePod, 'IMAGE_RETAIN_PERIOD'), undefined);
  validateKube(enginePod);
});

test("the cleaner's variables set on the dind (as a Codefresh runtime does) reach the engine, the others stay on the dind", () => {
  const spec = fullSpec();
  spec.dockerDaemonScheduler = {
    ...spec.dockerDaemonScheduler,
    envVars: { CLEAN_DOCKER: 'false', IMAGE_RETAIN_PERIOD: '3600', DOCKERD_EXTRA: 'x' },
  };
  const { enginePod, dindPod } = renderBuildObjects(spec, BUILD);
  assert.deepEqual(envOf(enginePod, 'CLEAN_DOCKER'), { name: 'CLEAN_DOCKER', value: 'false' });
  assert.deepEqual(envOf(enginePod, 'IMAGE_RETAIN_PERIOD'), {
    name: 'IMAGE_RETAIN_PERIOD',
    value: '3600',
  });
  assert.equal(envOf(enginePod, 'DOCKERD_EXTRA'), undefined);
  assert.deepEqual(envOf(dindPod, 'DOCKERD_EXTRA'), { name: 'DOCKERD_EXTRA', value: 'x' });
});
