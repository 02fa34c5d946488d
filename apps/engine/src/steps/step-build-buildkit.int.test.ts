import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { ensureDockerEngine } from '@sluice/testkit';
import { runBuildStep, usesBuildKit } from './step-build.js';
import {
  buildStep,
  createStepRuntime,
  SHELL_IMAGE,
  uniqueId,
} from './step-runtime.test-support.js';

/** A RUN whose layer is worth caching, made unique per test run so no earlier run serves it. */
function dockerfile(token: string): string {
  return [
    `FROM ${SHELL_IMAGE}`,
    `RUN echo "${token}" > /token && echo "built-$(cat /token)"`,
    'COPY data.txt /data.txt',
  ].join('\n');
}

let engine: ReturnType<typeof ensureDockerEngine> | undefined;

/** One call of the Engine API of the engine the tests use, over its socket: the JSON answer. */
async function engineApi(method: 'GET' | 'POST', path: string): Promise<unknown> {
  const { socketPath } = await (engine ??= ensureDockerEngine());
  const tcp = /^tcp:\/\/([^:/]+):(\d+)/.exec(socketPath);
  const where = tcp ? { host: tcp[1], port: Number(tcp[2]) } : { socketPath };
  return new Promise((resolve, reject) => {
    const req = request({ ...where, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${method} ${path}: ${body}`));
        else resolve(body === '' ? undefined : (JSON.parse(body) as unknown));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface BuildCacheRecord {
  ID: string;
  /** API 1.41 and older. */
  Parent?: string;
  /** API 1.42 and newer. */
  Parents?: string[] | null;
  /** `mount / from exec /bin/sh -c …` for a RUN. */
  Description?: string;
}

async function buildCacheRecords(): Promise<BuildCacheRecord[]> {
  const usage = (await engineApi('GET', '/system/df')) as {
    BuildCache?: BuildCacheRecord[] | null;
  };
  return usage.BuildCache ?? [];
}

/**
 * Removes the daemon's BuildKit cache records of the RUN that wrote `token` and those made on
 * top of them (the COPY after it), and no other: `docker builder prune --all` would take the
 * build cache of every build on the machine's engine, under the builds other test files run
 * meanwhile. A record goes only once nothing is built on it, so the rounds take the children
 * first. Returns how many records went.
 */
async function pruneBuildCacheOf(token: string): Promise<number> {
  const records = await buildCacheRecords();
  const ours = new Set(records.filter((r) => r.Description?.includes(token)).map((r) => r.ID));
  for (let grew = ours.size > 0; grew;) {
    grew = false;
    for (const record of records) {
      const parents = [...(record.Parents ?? []), ...(record.Parent ? [record.Parent] : [])];
      if (!ours.has(record.ID) && parents.some((id) => ours.has(id))) {
        ours.add(record.ID);
        grew = true;
      }
    }
  }
  let left = [...ours];
  for (let round = 0; round <= ours.size && left.length > 0; round++) {
    for (const id of left) {
      const filters = encodeURIComponent(JSON.stringify({ id: [id] }));
      await engineApi('POST', `/build/prune?all=1&filters=${filters}`);
    }
    const now = new Set((await buildCacheRecords()).map((r) => r.ID));
    left = left.filter((id) => now.has(id));
  }
  assert.deepEqual(left, [], `build cache records of the RUN writing ${token} were not removed`);
  return ours.size;
}

test('buildkit, buildx, platform, cache_from and build_version v2 choose BuildKit; buildkit: false wins', () => {
  const base = { name: 'b', imageName: 'x' };
  assert.equal(usesBuildKit(buildStep(base)), false);
  assert.equal(usesBuildKit(buildStep({ ...base, buildkit: true })), true);
  assert.equal(usesBuildKit(buildStep({ ...base, buildx: true })), true);
  assert.equal(usesBuildKit(buildStep({ ...base, platform: 'linux/amd64' })), true);
  assert.equal(usesBuildKit(buildStep({ ...base, cacheFrom: ['a:1'] })), true);
  assert.equal(usesBuildKit(buildStep({ ...base, buildVersion: 'v2' })), true);
  assert.equal(
    usesBuildKit(buildStep({ ...base, buildkit: false, platform: 'linux/amd64' })),
    false,
  );
});

test('a BuildKit build for linux/amd64 seeds the cache that a later build names in cache_from', async () => {
  const token = uniqueId('token');
  const seedName = uniqueId('sluice-it/bk-seed');
  const userName = uniqueId('sluice-it/bk-user');
  const seed = buildStep({
    name: 'seed',
    imageName: seedName,
    buildkit: true,
    platform: 'linux/amd64',
    dockerfile: { content: dockerfile(token) },
  });
  const user = buildStep({
    name: 'user',
    imageName: userName,
    cacheFrom: [`${seedName}:latest`],
    dockerfile: { content: dockerfile(token) },
  });
  const fx = await createStepRuntime({ steps: [seed, user] });
  fx.removeOnClose(`${seedName}:latest`, `${userName}:latest`);
  try {
    await fx.writeFiles('', { 'data.txt': 'payload' });
    const first = await runBuildStep(seed, fx.runtime);
    assert.equal(first.result, 'success', first.reason);
    const seedLog = fx.lines('seed', 'stdout').join('\n');
    assert.match(seedLog, new RegExp(`built-${token}`), 'the RUN ran in the first build');
    assert.ok(fx.lines('seed', 'system').includes('Building with BuildKit (platform linux/amd64)'));
    const info = await fx.docker.inspectImage(`${seedName}:latest`);
    assert.equal(fx.runtime.scope.lookup('steps.seed.imageId'), info.id);

    // Without the daemon's build cache of that RUN, only the seed image's inline cache can
    // serve it. Only this build's records go: other test files build on the same engine.
    const pruned = await pruneBuildCacheOf(token);
    assert.ok(pruned > 0, `no build cache record of the RUN writing ${token} to remove`);
    const second = await runBuildStep(user, fx.runtime);
    assert.equal(second.result, 'success', second.reason);
    const userLog = fx.lines('user', 'stdout').join('\n');
    assert.match(userLog, new RegExp(`importing cache manifest from ${seedName}:latest`));
    const run = /^(#\d+) \[2\/3\] RUN echo/m.exec(userLog)?.[1];
    assert.ok(run !== undefined, userLog);
    assert.ok(userLog.split('\n').includes(`${run} CACHED`), userLog);
    assert.doesNotMatch(userLog, new RegExp(`built-${token}`), 'the RUN did not run again');
    const { stdout } = await fx.sh('cat /token /data.txt', { image: `${userName}:latest` });
    assert.deepEqual(stdout, [token, 'payload']);
  } finally {
    await fx.close();
  }
});

test('a platform the daemon cannot build fails with both platforms named', async () => {
  const imageName = uniqueId('sluice-it/bk-platform');
  const step = buildStep({
    name: 'foreign',
    imageName,
    platform: 'linux/s390x',
    dockerfile: { content: `FROM ${SHELL_IMAGE}\nRUN echo never\n` },
  });
  const fx = await createStepRuntime({ steps: [step] });
  fx.removeOnClose(`${imageName}:latest`);
  try {
    const outcome = await runBuildStep(step, fx.runtime);
    assert.equal(outcome.result, 'failure');
    assert.match(
      outcome.reason ?? '',
      /for platform linux\/s390x failed on a Docker daemon that runs linux\/amd64: \S/,
    );
  } finally {
    await fx.close();
  }
});

test('cancelling a BuildKit build stops the CLI: the step is terminated and no image is made', async () => {
  const imageName = uniqueId('sluice-it/bk-cancel');
  const step = buildStep({
    name: 'slow',
    imageName,
    buildkit: true,
    dockerfile: { content: `FROM ${SHELL_IMAGE}\nRUN echo ${uniqueId('run')} && sleep 60\n` },
  });
  const fx = await createStepRuntime({ steps: [step] });
  fx.removeOnClose(`${imageName}:latest`);
  try {
    const running = runBuildStep(step, fx.runtime);
    const started = setInterval(() => {
      // BuildKit's plain output shows a RUN's own lines late; its header comes as it starts.
      if (fx.lines('slow', 'stdout').some((line) => line.includes('] RUN echo')))
        fx.controller.abort();
    }, 100);
    const outcome = await running.finally(() => clearInterval(started));
    assert.equal(outcome.result, 'terminated');
    assert.equal(await fx.docker.imageExists(`${imageName}:latest`), false);
  } finally {
    await fx.close();
  }
});
