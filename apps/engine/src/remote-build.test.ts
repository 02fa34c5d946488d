import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UnavailableError } from '@sluice/errors';
import { withIncompleteLog } from './remote-build.js';

const notStored = new UnavailableError(
  'SLUICE_LOG_NOT_ACKNOWLEDGED',
  'The control plane did not acknowledge the build log within 15m: 3 chunks were not stored',
);

test('a build whose log was not stored is never reported as a success, and says why', () => {
  assert.deepEqual(withIncompleteLog({ buildId: 'b', result: 'success' }, notStored), {
    buildId: 'b',
    result: 'error',
    reason:
      'The steps ended success; the build log is incomplete: The control plane did not acknowledge the build log within 15m: 3 chunks were not stored',
  });
});

test('a build that failed keeps its status and its reason, with the log added', () => {
  const reported = withIncompleteLog(
    { buildId: 'b', result: 'terminated', reason: 'The build was cancelled' },
    notStored,
  );
  assert.equal(reported.result, 'terminated');
  assert.match(reported.reason ?? '', /^The build was cancelled; the build log is incomplete: /);
});
