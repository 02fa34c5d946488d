import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRegistry } from '@sluice/testkit';
import type { TestRegistry } from '@sluice/testkit';
import { runPushStep } from './step-push.js';
import { runBuildStep } from './step-build.js';
import {
  buildStep,
  createStepRuntime,
  pushStep,
  SHELL_IMAGE,
  uniqueId,
} from './step-runtime.test-support.js';
import type { StepRuntimeFixture } from './step-runtime.test-support.js';

const LOGIN = { username: 'sluice-ci', password: 'p4ss-w0rd-xyz' };
let secured: TestRegistry;
let open: TestRegistry;

before(async () => {
  secured = await startRegistry({ host: '127.0.0.1', auth: LOGIN });
  open = await startRegistry({ host: '127.0.0.1' });
});
after(async () => {
  await secured?.stop();
  await open?.stop();
});

/** A candidate image made by a real build step, so it is unique to the test. */
async function buildCandidate(fx: StepRuntimeFixture, marker: string): Promise<string> {
  const imageName = uniqueId('sluice-it/push-src');
  const step = buildStep({
    name: 'candidate',
    imageName,
    tags: ['src'],
    dockerfile: { content: `FROM ${SHELL_IMAGE}\nRUN echo ${marker} > /marker\n` },
  });
  fx.removeOnClose(`${imageName}:src`);
  const built = await runBuildStep(step, fx.runtime);
  assert.equal(built.result, 'success', built.reason);
  return `${imageName}:src`;
}

async function markerOf(fx: StepRuntimeFixture, image: string): Promise<string | undefined> {
  const { code, output } = await fx.sh('cat /marker', { image });
  assert.equal(code, 0, output.join('\n'));
  return output[0];
}

test('pushes each tag to the default registry with its login, and the pushed tag pulls back', async () => {
  const repository = uniqueId('team/app');
  const step = pushStep({
    name: 'push',
    candidate: '',
    imageName: repository,
    tags: ['1.0', 'latest'],
  });
  const fx = await createStepRuntime({
    steps: [step],
    registries: [{ name: 'local', domain: secured.address, ...LOGIN, default: true }],
  });
  const pushed = `${secured.address}/${repository}:1.0`;
  fx.removeOnClose(pushed);
  try {
    const candidate = await buildCandidate(fx, 'marker-auth');
    const outcome = await runPushStep({ ...step, candidate }, fx.runtime);
    assert.equal(outcome.result, 'success', outcome.reason);

    const tags = await fetch(`http://${secured.address}/v2/${repository}/tags/list`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${LOGIN.username}:${LOGIN.password}`).toString('base64')}`,
      },
    });
    assert.deepEqual(((await tags.json()) as { tags: string[] }).tags.sort(), ['1.0', 'latest']);
    const digest = fx.runtime.scope.lookup('steps.push.imageRepoDigest') ?? '';
    assert.match(digest, new RegExp(`^${secured.address}/${repository}@sha256:[0-9a-f]{64}$`));
    assert.equal(fx.runtime.scope.lookup('steps.push.registry'), secured.address);
    assert.equal(
      fx.runtime.scope.lookup('steps.push.imageId'),
      (await fx.docker.inspectImage(candidate)).id,
    );
    assert.ok(fx.lines('push').some((l) => l.startsWith(`Pushing ${pushed}`)));
    assert.equal(fx.runtime.masker.mask(LOGIN.password), '****');
    assert.ok(!fx.events.some((e) => JSON.stringify(e).includes(LOGIN.password)));

    // The references push added are gone; pulling brings the pushed image back.
    assert.equal(await fx.docker.imageExists(pushed), false);
    await fx.docker.pullImage(pushed, { auth: { ...LOGIN, serveraddress: secured.address } });
    assert.equal(await markerOf(fx, pushed), 'marker-auth');
  } finally {
    await fx.close();
  }
});

test('wrong credentials fail the step naming the registry; the step login overrides the setting', async () => {
  const step = pushStep({
    name: 'push',
    candidate: '',
    imageName: uniqueId('team/denied'),
    registry: 'local',
  });
  const fx = await createStepRuntime({
    steps: [step],
    registries: [
      { name: 'local', domain: secured.address, username: 'sluice-ci', password: 'wrong-one' },
    ],
  });
  try {
    const candidate = await buildCandidate(fx, 'marker-denied');
    const denied = await runPushStep({ ...step, candidate }, fx.runtime);
    assert.equal(denied.result, 'failure');
    assert.match(denied.reason ?? '', new RegExp(`Registry ${secured.address} refused`));
    assert.match(denied.reason ?? '', /check the credentials/);

    const withLogin = await runPushStep({ ...step, candidate, credentials: LOGIN }, fx.runtime);
    assert.equal(withLogin.result, 'success', withLogin.reason);
  } finally {
    await fx.close();
  }
});

test('pushes to a registry without auth under the candidate repository; no registry is a clear failure', async () => {
  const fx = await createStepRuntime({
    steps: [pushStep({ name: 'push', candidate: '' })],
  });
  try {
    const candidate = await buildCandidate(fx, 'marker-open');
    const repository = candidate.slice(0, candidate.lastIndexOf(':'));
    const none = await runPushStep(pushStep({ name: 'push', candidate }), fx.runtime);
    assert.equal(none.result, 'failure');
    assert.match(none.reason ?? '', /^No registry: name one with registry: or configure a default/);

    fx.runtime.registries = [{ name: 'open', domain: open.address }];
    const outcome = await runPushStep(
      pushStep({ name: 'push', candidate, registry: 'open' }),
      fx.runtime,
    );
    assert.equal(outcome.result, 'success', outcome.reason);
    const pushed = `${open.address}/${repository}:latest`;
    fx.removeOnClose(pushed);
    await fx.docker.pullImage(pushed);
    assert.equal(await markerOf(fx, pushed), 'marker-open');
  } finally {
    await fx.close();
  }
});

test('a build step pushes to the registry it names unless disable_push', async () => {
  const imageName = uniqueId('sluice-it/auto');
  const step = buildStep({
    name: 'build',
    imageName,
    tags: ['v1'],
    registry: 'open',
    disablePush: false,
    dockerfile: { content: `FROM ${SHELL_IMAGE}\nRUN echo marker-auto > /marker\n` },
  });
  const fx = await createStepRuntime({
    steps: [step],
    registries: [{ name: 'open', domain: open.address }],
  });
  fx.removeOnClose(`${imageName}:v1`, `${open.address}/${imageName}:v1`);
  try {
    const outcome = await runBuildStep(step, fx.runtime);
    assert.equal(outcome.result, 'success', outcome.reason);
    assert.ok(fx.lines('build').includes(`Pushing ${open.address}/${imageName}:v1`));
    await fx.docker.pullImage(`${open.address}/${imageName}:v1`);
    assert.equal(await markerOf(fx, `${open.address}/${imageName}:v1`), 'marker-auto');
  } finally {
    await fx.close();
  }
});
