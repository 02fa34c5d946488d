import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand } from '@sluice/testkit';
import { runBuildStep } from './step-build.js';
import {
  buildStep,
  createStepRuntime,
  SHELL_IMAGE,
  uniqueId,
} from './step-runtime.test-support.js';
import type { StepRuntimeFixture } from './step-runtime.test-support.js';

/** Runs `image` with `command` and returns its stdout lines. */
async function runImage(fx: StepRuntimeFixture, image: string, command: string): Promise<string[]> {
  const { code, stdout } = await fx.sh(command, { image });
  assert.equal(code, 0, `check in ${image} failed: ${stdout.join('\n')}`);
  return stdout;
}

const DOCKERFILE = [
  `FROM ${SHELL_IMAGE} AS base`,
  'ARG GREETING=unset',
  'COPY . /ctx/',
  'RUN echo "greeting=$GREETING" > /greeting && ls -a /ctx > /listing',
  'FROM base AS final',
  'RUN echo final > /stage',
].join('\n');

test('builds the working directory on the volume, with build args, target, tags and .dockerignore', async () => {
  const imageName = uniqueId('sluice-it/build');
  const step = buildStep({
    name: 'build',
    imageName,
    workingDirectory: '/codefresh/volume/app',
    tags: ['V1', 'extra'],
    tagPolicy: 'lowercase',
    buildArguments: [['GREETING', 'hello']],
    target: 'base',
  });
  const fx = await createStepRuntime({ steps: [step] });
  fx.removeOnClose(`${imageName}:v1`, `${imageName}:extra`);
  try {
    await fx.writeFiles('app', {
      Dockerfile: DOCKERFILE,
      'keep.txt': 'kept',
      'secret.log': 'ignored',
      'node_modules/x/index.js': 'ignored',
      '.dockerignore': '*.log\nnode_modules\n',
    });
    const outcome = await runBuildStep(step, fx.runtime);
    assert.equal(outcome.result, 'success', outcome.reason);
    const log = fx.lines('build', 'stdout').join('\n');
    assert.match(log, /Step 1\/\d+ : FROM/);

    const [greeting] = await runImage(fx, `${imageName}:v1`, 'cat /greeting');
    assert.equal(greeting, 'greeting=hello');
    const listing = await runImage(fx, `${imageName}:extra`, 'cat /listing; test ! -e /stage');
    assert.ok(listing.includes('keep.txt'), listing.join(','));
    assert.ok(listing.includes('Dockerfile'));
    assert.ok(!listing.includes('secret.log'), listing.join(','));
    assert.ok(!listing.includes('node_modules'), listing.join(','));

    const info = await fx.docker.inspectImage(`${imageName}:v1`);
    assert.equal(fx.runtime.scope.lookup('steps.build.imageId'), info.id);
    assert.equal(fx.runtime.scope.lookup('steps.build.imageName'), imageName);
    assert.equal(fx.runtime.scope.lookup('steps.build.imageTagName'), 'v1');
    assert.equal(fx.runtime.scope.lookup('steps.build.image'), `${imageName}:v1`);
  } finally {
    await fx.close();
  }
});

test('a second identical build reuses the layer cache, and an inline Dockerfile stays out of COPY', async () => {
  const imageName = uniqueId('sluice-it/cache');
  const dockerfile = `FROM ${SHELL_IMAGE}\nCOPY . /ctx/\nRUN ls -a /ctx > /listing\n`;
  const step = buildStep({ name: 'cached', imageName, dockerfile: { content: dockerfile } });
  const fx = await createStepRuntime({ steps: [step] });
  fx.removeOnClose(`${imageName}:latest`);
  try {
    await fx.writeFiles('', { 'data.txt': 'same' });
    const first = await runBuildStep(step, fx.runtime);
    assert.equal(first.result, 'success', first.reason);
    const listing = await runImage(fx, `${imageName}:latest`, 'cat /listing');
    assert.ok(listing.includes('data.txt'), listing.join(','));
    assert.ok(!listing.some((name) => name.startsWith('.dockerfile.')), listing.join(','));

    const before = fx.lines('cached', 'stdout').length;
    const second = await runBuildStep(step, fx.runtime);
    assert.equal(second.result, 'success', second.reason);
    const secondLog = fx.lines('cached', 'stdout').slice(before).join('\n');
    assert.match(secondLog, /Using cache/);
  } finally {
    await fx.close();
  }
});

test('a failing RUN fails the step with the daemon message; a missing context says so', async () => {
  const imageName = uniqueId('sluice-it/fail');
  const failing = buildStep({
    name: 'broken',
    imageName,
    dockerfile: { content: `FROM ${SHELL_IMAGE}\nRUN echo about to fail && exit 3\n` },
  });
  const missing = buildStep({
    name: 'nowhere',
    imageName,
    workingDirectory: '/codefresh/volume/none',
  });
  const fx = await createStepRuntime({ steps: [failing, missing] });
  fx.removeOnClose(`${imageName}:latest`);
  try {
    const outcome = await runBuildStep(failing, fx.runtime);
    assert.equal(outcome.result, 'failure');
    assert.match(outcome.reason ?? '', /returned a non-zero code: 3/);
    assert.ok(fx.lines('broken', 'stdout').includes('about to fail'));

    const gone = await runBuildStep(missing, fx.runtime);
    assert.equal(gone.result, 'failure');
    assert.match(gone.reason ?? '', /build context \/codefresh\/volume\/none does not exist/);
    assert.deepEqual(
      (await fx.docker.listContainers(fx.runtime.labels)).filter(
        (c) => !c.name.endsWith('sandbox-0'),
      ),
      [],
    );
  } finally {
    await fx.close();
  }
});

test('cancelling the build stops it: the step is terminated and nothing is left running', async () => {
  const imageName = uniqueId('sluice-it/cancel');
  // This build's RUN, told apart from every other container on the engine (other test files
  // run `sleep 600` steps of their own) by a marker of its own in the command.
  const marker = uniqueId('cancel-run');
  const step = buildStep({
    name: 'slow',
    imageName,
    dockerfile: {
      content: `FROM ${SHELL_IMAGE}\nRUN echo started && sleep 60 && echo ${marker}\n`,
    },
  });
  const fx = await createStepRuntime({ steps: [step] });
  fx.removeOnClose(`${imageName}:latest`);
  try {
    const running = runBuildStep(step, fx.runtime);
    const started = setInterval(() => {
      if (fx.lines('slow', 'stdout').includes('started')) fx.controller.abort();
    }, 100);
    const outcome = await running.finally(() => clearInterval(started));
    assert.equal(outcome.result, 'terminated');
    assert.equal(await fx.docker.imageExists(`${imageName}:latest`), false);
    // The daemon stops the RUN container once the request is gone; give it a moment to.
    let sleeping = '';
    for (let i = 0; i < 50; i += 1) {
      const ps = await runCommand('docker', ['ps', '--no-trunc', '--format', '{{.Command}}']);
      sleeping = ps.stdout
        .split('\n')
        .filter((c) => c.includes(marker))
        .join('\n');
      if (sleeping === '') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(sleeping, '');
  } finally {
    await fx.close();
  }
});
