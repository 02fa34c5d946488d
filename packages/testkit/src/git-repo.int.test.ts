import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@sluice/errors';
import { createGitRepo } from './git-repo.js';
import { runCommand } from './run-command.js';
import { makeTempDir } from './temp-dir.js';

test('createGitRepo pushes main and branches with distinct shas to a bare repo', async () => {
  const repo = await createGitRepo({
    files: { 'README.md': 'hello\n', 'nested/dir/file.txt': 'deep\n' },
    branches: { feature: { 'README.md': 'feature\n' }, 'release/1.0': {} },
  });
  try {
    assert.equal(fileURLToPath(repo.url), repo.path);
    const shas = Object.values(repo.commits);
    assert.deepEqual(Object.keys(repo.commits).sort(), ['feature', 'main', 'release/1.0']);
    assert.equal(new Set(shas).size, 3);
    for (const sha of shas) assert.match(sha, /^[0-9a-f]{40}$/);

    const remote = await runCommand('git', ['ls-remote', repo.url]);
    for (const [branch, sha] of Object.entries(repo.commits)) {
      assert.ok(remote.stdout.includes(`${sha}\trefs/heads/${branch}\n`), remote.stdout);
    }
    const clone = join(repo.path, '..', 'clone');
    const cloned = await runCommand('git', ['clone', '-q', '-b', 'feature', repo.url, clone]);
    assert.equal(cloned.code, 0, cloned.stderr);
    assert.equal(await readFile(join(clone, 'README.md'), 'utf8'), 'feature\n');
    assert.equal(await readFile(join(clone, 'nested/dir/file.txt'), 'utf8'), 'deep\n');
  } finally {
    await repo.cleanup();
  }
  assert.equal(existsSync(repo.path), false);
});

test('createGitRepo gives the same shas for the same input', async () => {
  const options = { files: { 'a.txt': 'a\n' }, branches: { dev: { 'b.txt': 'b\n' } } };
  const [one, two] = await Promise.all([createGitRepo(options), createGitRepo(options)]);
  try {
    assert.deepEqual(one.commits, two.commits);
  } finally {
    await Promise.all([one.cleanup(), two.cleanup()]);
  }
});

test('createGitRepo in a given dir cleans up only what it created', async () => {
  const temp = await makeTempDir();
  try {
    const repo = await createGitRepo({ files: { 'x.txt': 'x\n' }, dir: temp.path });
    assert.equal(repo.path, join(temp.path, 'repo.git'));
    await repo.cleanup();
    assert.equal(existsSync(repo.path), false);
    assert.equal(existsSync(temp.path), true);
  } finally {
    await temp.cleanup();
  }
});

test('createGitRepo rejects paths outside the repo and invalid branch names', async () => {
  await assert.rejects(createGitRepo({ files: { '../escape.txt': 'x' } }), InputError);
  await assert.rejects(createGitRepo({ files: { '/etc/passwd': 'x' } }), InputError);
  await assert.rejects(createGitRepo({ files: {}, branches: { 'bad..name': {} } }), InputError);
});
