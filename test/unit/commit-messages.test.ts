// The commit-message rule (scripts/lib/commit-messages.mjs), its history check and its hook
// (scripts/check-commits.mjs, scripts/hooks/commit-msg), in a real git repository of its own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '@sluice/testkit';

interface CommitMessages {
  SUBJECT_MAX: number;
  messageProblems: (message: string) => string[];
}

// From test/dist/unit/ back to the repository.
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const { SUBJECT_MAX, messageProblems } = (await import(
  pathToFileURL(join(repo, 'scripts/lib/commit-messages.mjs')).href
)) as CommitMessages;

const temp = await makeTempDir('sluice-commit-messages-');
after(() => temp.cleanup());

const GOOD = 'Engine asks Docker once about a new build volume\n\nTwo inspects cost 40 ms.\n';

test('a subject within the limit, a blank line and a body pass', () => {
  assert.deepEqual(messageProblems(GOOD), []);
  const exact = `${'s'.repeat(SUBJECT_MAX)}\n\nwhy\n# a comment git strips\n`;
  assert.deepEqual(messageProblems(exact), []);
});

test('a long subject, a missing blank line and a missing body are each named', () => {
  const long = messageProblems(`${'s'.repeat(SUBJECT_MAX + 1)}\n\nwhy\n`);
  assert.equal(long.length, 1);
  assert.match(long[0] ?? '', /73 characters \(at most 72\)/);
  assert.deepEqual(messageProblems('Subject\nbody at once\n'), [
    'the second line must be empty: a blank line between the subject and the body',
  ]);
  assert.deepEqual(messageProblems('Subject only\n\n\n# Please enter the message\n'), [
    'there is no body: after a blank line, say why the change was made',
  ]);
  assert.deepEqual(messageProblems('\n\nbody\n'), ['the subject line is empty']);
});

/** A git repository holding the checker at the same paths as this one. */
async function gitRepo(): Promise<{ dir: string; git: (...args: string[]) => string }> {
  const dir = join(temp.path, 'repo');
  await mkdir(join(dir, 'scripts/lib'), { recursive: true });
  await mkdir(join(dir, 'scripts/hooks'), { recursive: true });
  for (const file of [
    'scripts/check-commits.mjs',
    'scripts/lib/commit-messages.mjs',
    'scripts/hooks/commit-msg',
  ]) {
    await copyFile(join(repo, file), join(dir, file));
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  const git = (...args: string[]) => {
    const result = spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
    return `${result.status}\n${result.stdout}${result.stderr}`;
  };
  assert.match(git('init', '-q'), /^0\n/);
  return { dir, git };
}

test('the hook refuses a bad message; the history check names each bad commit', async () => {
  const { dir, git } = await gitRepo();
  const check = () =>
    spawnSync(process.execPath, [join(dir, 'scripts/check-commits.mjs')], { encoding: 'utf8' });
  assert.match(git('add', '.'), /^0\n/);
  assert.match(git('commit', '-q', '-m', 'Checker added', '-m', 'The rule, checked.'), /^0\n/);
  assert.equal(check().status, 0);

  // Installed, the hook refuses a message without a body and says why.
  assert.match(
    spawnSync(process.execPath, [join(dir, 'scripts/check-commits.mjs'), '--install-hook'], {
      encoding: 'utf8',
    }).stdout,
    /now checked/,
  );
  const refused = git('commit', '-q', '--allow-empty', '-m', 'No body here');
  assert.match(refused, /^1\n/);
  assert.match(refused, /there is no body/);

  // A commit made past the hook is caught by the history check, by hash and subject.
  assert.match(git('commit', '-q', '--no-verify', '--allow-empty', '-m', 'No body'), /^0\n/);
  const result = check();
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^[0-9a-f]{7,} "No body": there is no body/m);
  assert.doesNotMatch(result.stderr, /Checker added/);
});
