import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { makeTempDir } from '../temp-dir.js';
import { KUBE_BUILD_FAILED, stepFailed } from './kube-errors.js';

test('a step failure names the step and its log, and carries the log tail', async () => {
  const temp = await makeTempDir();
  try {
    const logPath = join(temp.path, 'build.log');
    await writeFile(logPath, 'line 1\n\nmake: *** [all] Error 2\n');
    const err = stepFailed(KUBE_BUILD_FAILED, 'Building Kubernetes v1.20.2', 'make', { logPath });
    assert.ok(err instanceof UnavailableError);
    assert.equal(err.code, 'SLUICE_TEST_KUBE_BUILD_FAILED');
    assert.equal(
      err.message,
      `Building Kubernetes v1.20.2 failed at step "make" (log: ${logPath})`,
    );
    assert.equal(err.hint, `read ${logPath}`);
    assert.equal(err.details?.['logTail'], 'line 1\nmake: *** [all] Error 2');
  } finally {
    await temp.cleanup();
  }
});
