/**
 * Stages: a build carries its pipeline's `stages:` in their order, and each step the stage it
 * belongs to — its own `stage:`, else its block's (a parallel block's children, a matrix's
 * copies) — as the web UI's timeline groups them.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { seedPipeline, startTestServer, ONE_KIND } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

const STAGED_PIPELINE = `version: "1.0"
stages: [clone, build, test, deploy]
steps:
  main_clone:
    stage: clone
    image: alpine
    commands: ["clone"]
  image:
    stage: build
    image: alpine
    commands: ["build"]
    matrix:
      image: [alpine, busybox]
  checks:
    stage: test
    type: parallel
    steps:
      style:
        image: busybox
        commands: ["style check"]
      specs:
        stage: build
        image: busybox
        commands: ["run specs"]
  notify:
    image: alpine
    commands: ["notify"]
`;

databases.test("a build lists its pipeline's stages and each step's stage", async (database) => {
  const t = await startTestServer(database);
  try {
    const pipeline = await seedPipeline(t);
    await t.admin.call('updatePipeline', {
      params: { pipelineId: pipeline.id },
      body: { yaml: STAGED_PIPELINE },
    });
    const created = await t.admin.call('createBuild', {
      params: { pipelineId: pipeline.id },
      body: {},
    });
    const build = await t.admin.call('getBuild', { params: { buildId: created.id } });
    assert.deepEqual(build.stages, ['clone', 'build', 'test', 'deploy']);
    assert.deepEqual(
      build.steps.map((s) => [s.name, s.stage]),
      [
        ['main_clone', 'clone'],
        ['image', 'build'],
        ['image_0', 'build'],
        ['image_1', 'build'],
        ['checks', 'test'],
        ['style', 'test'],
        ['specs', 'build'],
        ['notify', null],
      ],
    );
    // The list of builds carries the same.
    const { items } = await t.admin.call('listBuilds', { query: {} });
    assert.deepEqual(items.find((b) => b.id === build.id)?.stages, build.stages);

    // A pipeline without stages: an empty list, and no step has one.
    await t.admin.call('updatePipeline', {
      params: { pipelineId: pipeline.id },
      body: { yaml: STAGED_PIPELINE.replace(/^stages:.*\n/m, '').replace(/^ +stage: .*\n/gm, '') },
    });
    const plain = await t.admin.call('createBuild', {
      params: { pipelineId: pipeline.id },
      body: {},
    });
    assert.deepEqual(plain.stages, []);
    assert.ok(plain.steps.length > 0 && plain.steps.every((s) => s.stage === null));
  } finally {
    await t.close();
  }
});
