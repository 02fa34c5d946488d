import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { makeTempDir } from './temp-dir.js';

test('makeTempDir creates a fresh prefixed dir that cleanup removes with its content', async () => {
  const first = await makeTempDir('sluice-unit-');
  const second = await makeTempDir('sluice-unit-');
  assert.notEqual(first.path, second.path);
  assert.ok(isAbsolute(first.path));
  assert.ok(basename(first.path).startsWith('sluice-unit-'));
  await writeFile(join(first.path, 'file.txt'), 'x');
  await first.cleanup();
  await second.cleanup();
  assert.equal(existsSync(first.path), false);
  assert.equal(existsSync(second.path), false);
  await first.cleanup();
});
