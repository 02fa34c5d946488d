import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGitRepo, makeTempDir, runCommand } from '@sluice/testkit';
import type { GitRepo } from '@sluice/testkit';
import {
  BuildHarness,
  GIT_IMAGE,
  SHELL_IMAGE,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';

let harness: BuildHarness;
let repo: GitRepo;
/** The first commit on main, no longer its tip: reachable only through history. */
let oldMainSha: string;
let mainTipSha: string;

const GIT_IDENTITY = ['-c', 'user.name=Sluice Test', '-c', 'user.email=test@sluice.invalid'];

async function git(cwd: string, args: string[]): Promise<string> {
  const result = await runCommand('git', [...GIT_IDENTITY, ...args], { cwd });
  assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Pushes one more commit onto `branch` of the bare repository; returns its sha. */
async function addCommit(branch: string, files: Record<string, string>): Promise<string> {
  const work = await makeTempDir('sluice-git-work-');
  try {
    await git(work.path, ['clone', '--quiet', '--branch', branch, repo.url, '.']);
    for (const [path, content] of Object.entries(files))
      await writeFile(join(work.path, path), content);
    await git(work.path, ['commit', '--quiet', '--all', '-m', `Second commit on ${branch}`]);
    await git(work.path, ['push', '--quiet', 'origin', branch]);
    return await git(work.path, ['rev-parse', 'HEAD']);
  } finally {
    await work.cleanup();
  }
}

before(async () => {
  harness = await BuildHarness.create();
  repo = await createGitRepo({
    files: { 'version.txt': 'main-v1\n', '.gitignore': 'ignored/\n' },
    branches: { feature: { 'version.txt': 'feature\n' } },
  });
  oldMainSha = repo.commits.main ?? '';
  mainTipSha = await addCommit('main', { 'version.txt': 'main-v2\n' });
});

after(async () => {
  await harness.close();
  await repo.cleanup();
});

/** The `steps:` of a pipeline that clones `revision` in step `stepName`, then runs `then`. */
function cloneSteps(stepName: string, revision: string, then: string): string {
  return `
  ${stepName}:
    type: git-clone
    repo: ${repo.url}
    revision: ${revision}
${then}`;
}

test('main_clone at a branch makes the clone the working directory of later steps', async () => {
  const build = await harness.runSteps(
    cloneSteps(
      'main_clone',
      'feature',
      `
  inspect:
    image: ${GIT_IMAGE}
    commands:
      - pwd
      - cat version.txt
      - git rev-parse HEAD
      - echo '\${{main_clone}}|\${{steps.main_clone.revision}}'
`,
    ),
  );

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  assert.equal(stepSummary(build, 'main_clone').exitCode, 0);
  assert.deepEqual(stepLines(build.events, 'inspect', 'stdout'), [
    '/codefresh/volume/repo',
    'feature',
    repo.commits.feature,
    '/codefresh/volume/repo|feature',
  ]);
  assert.ok(
    stepLines(build.events, 'main_clone').some((l) => l.includes(repo.commits.feature ?? '-')),
  );
});

test('a clone at a sha from history; only main_clone sets the default directory', async () => {
  const build = await harness.runSteps(
    cloneSteps(
      'checkout',
      oldMainSha,
      `
  default_dir:
    image: ${SHELL_IMAGE}
    commands: [pwd]
  in_clone:
    image: ${GIT_IMAGE}
    working_directory: \${{checkout}}
    commands: [pwd, cat version.txt, git rev-parse HEAD]
`,
    ),
  );

  assert.equal(build.summary.result, 'success', JSON.stringify(build.summary.steps));
  assert.deepEqual(stepLines(build.events, 'default_dir', 'stdout'), ['/codefresh/volume']);
  assert.deepEqual(stepLines(build.events, 'in_clone', 'stdout'), [
    '/codefresh/volume/repo',
    'main-v1',
    oldMainSha,
  ]);
});

test('a re-run reuses the cached clone and still checks out the requested revision', async () => {
  const volumeKey = harness.volumeKey('clone-cache');
  const inspect = `
  inspect:
    image: ${GIT_IMAGE}
    commands:
      - cat version.txt
      - git rev-parse HEAD
      - if [ -e untracked.txt ]; then echo untracked-present; else echo untracked-gone; fi
      - ls ignored
`;
  // Leaves an untracked file (purged on the next clone) and an ignored one (kept as cache).
  const litter = `
  litter:
    image: ${SHELL_IMAGE}
    commands: [echo leftover > untracked.txt, mkdir -p ignored, echo kept > ignored/cache.txt]
`;
  const first = await harness.runSteps(cloneSteps('main_clone', 'feature', litter), {
    volumeKey,
  });
  assert.equal(first.summary.result, 'success', JSON.stringify(first.summary.steps));
  assert.ok(stepLines(first.events, 'main_clone').some((l) => l.startsWith('Cloning ')));

  const second = await harness.runSteps(cloneSteps('main_clone', 'main', inspect), {
    volumeKey,
  });
  assert.equal(second.summary.result, 'success', JSON.stringify(second.summary.steps));
  assert.ok(stepLines(second.events, 'main_clone').some((l) => l.startsWith('Using the cached')));
  assert.deepEqual(stepLines(second.events, 'inspect', 'stdout'), [
    'main-v2',
    mainTipSha,
    'untracked-gone',
    'cache.txt',
  ]);

  const third = await harness.runSteps(cloneSteps('main_clone', oldMainSha, inspect), {
    volumeKey,
  });
  assert.equal(third.summary.result, 'success', JSON.stringify(third.summary.steps));
  assert.ok(stepLines(third.events, 'main_clone').some((l) => l.startsWith('Using the cached')));
  assert.deepEqual(stepLines(third.events, 'inspect', 'stdout').slice(0, 2), [
    'main-v1',
    oldMainSha,
  ]);
});

test('a revision that does not exist fails the clone step with a readable reason', async () => {
  for (const revision of ['no-such-branch', 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef']) {
    const build = await harness.runSteps(
      cloneSteps(
        'main_clone',
        revision,
        `
  after_clone:
    image: ${SHELL_IMAGE}
    commands: [echo must-not-run]
`,
      ),
    );
    assert.equal(build.summary.result, 'failure');
    const clone = stepSummary(build, 'main_clone');
    assert.equal(clone.result, 'failure');
    assert.ok(clone.reason?.includes(revision), `reason names the revision: ${clone.reason}`);
    assert.ok(clone.reason?.includes(repo.url), `reason names the repository: ${clone.reason}`);
    // git's own complaint, not just an exit code.
    assert.match(clone.reason ?? '', /couldn't find remote ref|not a tree/);
    assert.equal(stepSummary(build, 'after_clone').result, 'skipped');
  }
});
