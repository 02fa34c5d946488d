import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDeleted, formatBytes } from './describe.js';

test('sizes in binary units, one decimal below ten', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(25 * 1024 ** 2), '25 MiB');
  assert.equal(formatBytes(3 * 1024 ** 5), '3072 TiB');
});

test('what a delete takes: pipelines when more than one, builds, logs; a pipeline that never ran', () => {
  const none = { dryRun: true, pipelines: 0, builds: 0, logChunks: 0, logBytes: 0 };
  assert.equal(describeDeleted(none), '');
  assert.equal(describeDeleted({ ...none, pipelines: 1 }), 'no builds');
  assert.equal(
    describeDeleted({ ...none, pipelines: 1, builds: 1, logChunks: 1, logBytes: 300 }),
    '1 build and 300 B of logs (1 chunk)',
  );
  assert.equal(
    describeDeleted({ ...none, pipelines: 2, builds: 3, logChunks: 40, logBytes: 1_258_291 }),
    '2 pipelines and 3 builds and 1.2 MiB of logs (40 chunks)',
  );
});
