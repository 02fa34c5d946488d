import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_STEP_TYPES, repositoryRoot, stepTypeDirectories } from './step-type-dirs.js';

test('the built-in step-types directory is found from the CLI package, wherever the command runs', () => {
  assert.ok(existsSync(BUILT_IN_STEP_TYPES), BUILT_IN_STEP_TYPES);
  assert.ok(existsSync(join(BUILT_IN_STEP_TYPES, '..', 'apps', 'cli', 'package.json')));
});

test('flags, then SLUICE_STEP_TYPES, then the repository, then the built-in ones', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-step-types-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, 'repo');
  for (const dir of ['.git', '.sluice/step-types', 'ci/nested', 'mine', 'env'])
    mkdirSync(join(repo, dir), { recursive: true });
  const builtIn = join(root, 'built-in');
  mkdirSync(builtIn);
  const dirs = stepTypeDirectories({
    flags: ['mine'],
    env: [join(repo, 'env')],
    cwd: repo,
    pipelineDir: join(repo, 'ci', 'nested'),
    builtIn,
  });
  assert.deepEqual(dirs, [
    join(repo, 'mine'),
    join(repo, 'env'),
    join(repo, '.sluice', 'step-types'),
    builtIn,
  ]);
  assert.equal(repositoryRoot(join(repo, 'ci', 'nested')), repo);

  const bare = join(root, 'bare');
  mkdirSync(bare);
  assert.deepEqual(
    stepTypeDirectories({
      flags: [],
      env: [],
      cwd: bare,
      pipelineDir: bare,
      builtIn: join(root, 'none'),
    }),
    [],
    'directories that are not there are left out',
  );
  assert.throws(
    () => stepTypeDirectories({ flags: ['typo'], env: [], cwd: bare, pipelineDir: bare }),
    (err: Error & { code?: string }) =>
      err.code === 'SLUICE_CLI_STEP_TYPES_NOT_FOUND' && /typo \(--step-types\)/.test(err.message),
  );
});
