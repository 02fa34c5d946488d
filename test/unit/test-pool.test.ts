// The test runner's scheduler (scripts/lib/test-pool.mjs): limits, the tier beside the others,
// tiers that wait until they are ready, longest first, and the tier beside taking free slots at
// the end — on jobs that only wait. And the compiled test files it leaves out, those whose
// source is gone (scripts/lib/test-sources.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface Job {
  tier: string;
  name: string;
  estimate?: number;
  first?: boolean;
  run: () => Promise<{ passed: number; failed: number; skipped: number; failures: string[] }>;
}
interface FileResult {
  passed: number;
  failed: number;
  failures: string[];
}
interface Pool {
  runPool: (
    jobs: Job[],
    options: {
      limit: number;
      tierLimits: Record<string, number>;
      ready: Record<string, Promise<unknown> | undefined>;
      onDone: (job: Job) => void;
      beside?: string[];
      grow?: Record<string, number>;
    },
  ) => Promise<void>;
}

// From test/dist/unit/ back to the repository's scripts/lib/.
const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { runPool } = (await import(pathToFileURL(join(lib, 'test-pool.mjs')).href)) as Pool;
const { staleTestFiles, testSourceOf } = (await import(
  pathToFileURL(join(lib, 'test-sources.mjs')).href
)) as {
  staleTestFiles: (root: string, paths: string[]) => string[];
  testSourceOf: (path: string) => string;
};

/** Jobs that each wait `ms`, recording how many of each kind ran at once at most. */
function recorder() {
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const started: string[] = [];
  const job = (tier: string, name: string, estimate: number, ms = 20): Job => ({
    tier,
    name,
    estimate,
    run: async () => {
      started.push(name);
      for (const key of [tier, tier === 'kube' ? 'beside' : 'busy', 'all']) {
        running.set(key, (running.get(key) ?? 0) + 1);
        most.set(key, Math.max(most.get(key) ?? 0, running.get(key) ?? 0));
      }
      await new Promise((resolve) => setTimeout(resolve, ms));
      for (const key of [tier, tier === 'kube' ? 'beside' : 'busy', 'all'])
        running.set(key, (running.get(key) ?? 1) - 1);
      return { passed: 1, failed: 0, skipped: 0, failures: [] };
    },
  });
  return { job, most, started };
}

test('at most `limit` jobs at once, and at most each tier limit', async () => {
  const { job, most } = recorder();
  const jobs = [
    ...Array.from({ length: 6 }, (_, i) => job('int', `int ${i}`, i)),
    ...Array.from({ length: 6 }, (_, i) => job('e2e', `e2e ${i}`, i)),
  ];
  const done: string[] = [];
  await runPool(jobs, {
    limit: 3,
    tierLimits: { int: 2, e2e: 2 },
    ready: {},
    onDone: (j) => done.push(j.name),
  });
  assert.equal(done.length, 12);
  assert.equal(most.get('all'), 3);
  assert.equal(most.get('int'), 2);
  assert.equal(most.get('e2e'), 2);
});

test('a tier beside the others runs in slots of its own, to its own limit', async () => {
  const { job, most } = recorder();
  const jobs = [
    ...Array.from({ length: 6 }, (_, i) => job('int', `int ${i}`, 100 + i)),
    ...Array.from({ length: 4 }, (_, i) => job('kube', `kube ${i}`, i, 40)),
  ];
  await runPool(jobs, {
    limit: 2,
    tierLimits: { int: 2, kube: 1 },
    ready: {},
    onDone: () => undefined,
    beside: ['kube'],
  });
  assert.equal(most.get('busy'), 2, 'the other tiers keep both slots');
  assert.equal(most.get('beside'), 1);
  assert.equal(most.get('all'), 3, 'the kube file ran beside them');
});

test('a tier waits until it is ready; the longest estimate starts first', async () => {
  const { job, started } = recorder();
  let release = (): void => undefined;
  const ready = new Promise<void>((resolve) => (release = resolve));
  await runPool([job('e2e', 'short', 1), job('kube', 'waits', 1000), job('e2e', 'long', 50)], {
    limit: 1,
    tierLimits: { e2e: 1, kube: 1 },
    ready: { kube: ready },
    // Its estimate is the longest, yet it starts only once released, after the other two.
    onDone: (j) => (j.name === 'short' ? release() : undefined),
  });
  assert.deepEqual(started, ['long', 'short', 'waits']);
});

test('a job marked first starts before longer ones', async () => {
  const { job, started } = recorder();
  const api = { ...job('kube', 'api-only', 1), first: true };
  await runPool([job('kube', 'node long', 100), api, job('kube', 'node short', 10)], {
    limit: 1,
    tierLimits: { kube: 1 },
    ready: {},
    onDone: () => undefined,
  });
  assert.deepEqual(started, ['api-only', 'node long', 'node short']);
});

test('once the other tiers have nothing left to start, the tier beside grows into free slots', async () => {
  const { job, most, started } = recorder();
  // Kube files record themselves as `beside` whichever place they took: two at once means the
  // second one took a slot of the others.
  const jobs = [
    job('int', 'int long', 100, 60),
    job('int', 'int short', 90, 10),
    ...Array.from({ length: 4 }, (_, i) => job('kube', `kube ${i}`, i, 40)),
  ];
  const ended: string[] = [];
  await runPool(jobs, {
    limit: 2,
    tierLimits: { int: 2, kube: 1 },
    ready: {},
    onDone: (j) => ended.push(j.name),
    beside: ['kube'],
    grow: { kube: 2 },
  });
  assert.equal(most.get('beside'), 2, 'a second kube file ran in a free slot');
  assert.equal(most.get('all'), 3, 'never more than the slots and the one beside');
  assert.deepEqual(started.slice(0, 3), ['int long', 'int short', 'kube 3']);
  // While an int file still waited to start, no kube file took its slot.
  assert.ok(started.indexOf('kube 2') > started.indexOf('int short'));
  assert.equal(ended.length, 6);
});

test("the failures name each failed test with the first line of why, a failed hook's too", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-test-pool-'));
  try {
    const file = join(dir, 'failing.test.mjs');
    await writeFile(
      file,
      [
        "import { describe, before, test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "test('passes', () => {});",
        "test('compares', () => assert.equal(1, 2, 'the count is wrong\\nsecond line'));",
        "describe('set up', () => {",
        "  before(() => { throw new Error('the cluster is full'); });",
        "  test('needs it', () => {});",
        '});',
      ].join('\n'),
    );
    const result = await runFileOutsideThisTest(file);
    assert.equal(result.passed, 1);
    assert.ok(
      result.failures.includes('compares\n      the count is wrong'),
      result.failures.join('|'),
    );
    assert.ok(
      result.failures.includes('set up\n      the cluster is full'),
      result.failures.join('|'),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * runTestFile in a process of its own: node:test's run() refuses to start files from inside a
 * test file (it knows one by NODE_TEST_CONTEXT, which the child must not inherit).
 */
async function runFileOutsideThisTest(file: string): Promise<FileResult> {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  // A script file, not -e: run() starts each test file with this process's own node flags.
  const driver = join(dirname(file), 'drive.mjs');
  await writeFile(
    driver,
    `const { runTestFile } = await import(${JSON.stringify(pathToFileURL(join(lib, 'test-pool.mjs')).href)});
    process.stdout.write(JSON.stringify(await runTestFile(${JSON.stringify(file)}, 10000)));`,
  );
  const { stdout } = await promisify(execFile)(process.execPath, [driver], { env });
  return JSON.parse(stdout) as FileResult;
}

test('a compiled test file whose source was moved or deleted is stale; one with its source is not', async () => {
  assert.equal(
    testSourceOf('apps/engine/dist/flow/a.int.test.js'),
    'apps/engine/src/flow/a.int.test.ts',
  );
  assert.equal(testSourceOf('test/dist/unit/b.test.js'), 'test/unit/b.test.ts');
  const root = await mkdtemp(join(tmpdir(), 'sluice-test-sources-'));
  try {
    for (const source of ['apps/engine/src/flow/moved.test.ts', 'test/unit/kept.test.ts']) {
      await mkdir(dirname(join(root, source)), { recursive: true });
      await writeFile(join(root, source), '');
    }
    const compiled = [
      'apps/engine/dist/moved.test.js',
      'apps/engine/dist/flow/moved.test.js',
      'test/dist/unit/kept.test.js',
      'test/dist/unit/deleted.test.js',
    ];
    assert.deepEqual(staleTestFiles(root, compiled), [
      'apps/engine/dist/moved.test.js',
      'test/dist/unit/deleted.test.js',
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
