import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '@sluice/testkit';
import { readmeProblems } from './readme-problems.js';

const root = new URL('../../../', import.meta.url).pathname;

test('every package and app has a README.md, and what each one names exists', () => {
  assert.deepEqual(readmeProblems(root), []);
});

function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

test('a missing README, a file that is gone and an entry point not exported are each named', async (t) => {
  const temp = await makeTempDir('sluice-readmes-');
  t.after(() => temp.cleanup());
  const dir = temp.path;
  write(dir, 'docs/errors.md', '# Errors\n');
  write(
    dir,
    'packages/a/package.json',
    JSON.stringify({ name: '@sluice/a', exports: { '.': {} } }),
  );
  write(dir, 'packages/a/src/kept.ts', '');
  write(dir, 'packages/a/src/nested/deep.test.ts', '');
  write(
    dir,
    'packages/a/README.md',
    [
      'Kept: `src/kept.ts`, `kept.ts` in src/, `docs/errors.md` from the root, [errors](../../docs/errors.md),',
      'tests `src/**/*.test.ts`, a label `sluice.io/build-id`, a URL <https://example.com/x.md>.',
      'Gone: `src/moved.ts`, [link](./gone.md), `src/*.int.test.ts`, `@sluice/a/testing`, `@sluice/b`.',
      '```',
      'src/inside-a-code-block.ts',
      '```',
    ].join('\n'),
  );
  write(dir, 'apps/b/package.json', JSON.stringify({ name: '@sluice/cli-like' }));

  assert.deepEqual(readmeProblems(dir), [
    'apps/b (@sluice/cli-like) has no README.md',
    'packages/a/README.md: src/moved.ts does not exist',
    'packages/a/README.md: src/*.int.test.ts does not exist',
    'packages/a/README.md: @sluice/a/testing is not in the exports of @sluice/a',
    'packages/a/README.md: @sluice/b is not a workspace',
    'packages/a/README.md: ./gone.md does not exist',
  ]);
});
