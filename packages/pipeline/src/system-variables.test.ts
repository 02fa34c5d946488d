import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeBranchTag, repoFromUrl, systemVariables } from './system-variables.js';
import type { BuildFacts } from './system-variables.js';

const minimal: BuildFacts = {
  buildId: 'b-1',
  startedAt: 1_700_000_000_000,
  pipelineName: 'acme/app',
  volumeName: 'sluice-b-1',
};

test('a build with only the required facts gets the fixed variables and nothing else', () => {
  assert.deepEqual(systemVariables(minimal), {
    CF_BUILD_ID: 'b-1',
    CF_BUILD_TIMESTAMP: '1700000000000',
    CF_PIPELINE_NAME: 'acme/app',
    CF_VOLUME_NAME: 'sluice-b-1',
    CF_VOLUME_PATH: '/codefresh/volume',
    CF_BUILD_TRIGGER: 'build',
    CF_ACCOUNT: 'local',
  });
});

test('git facts add the revision, short revision, branch tags and repo', () => {
  const vars = systemVariables({
    ...minimal,
    branch: 'Feature/Login#2',
    revision: '0123456789abcdef0123456789abcdef01234567',
    repoOwner: 'acme',
    repoName: 'app',
    trigger: 'webhook',
    account: 'team',
  });
  assert.equal(vars.CF_BRANCH, 'Feature/Login#2');
  assert.equal(vars.CF_BRANCH_TAG_NORMALIZED, 'Feature_Login_2');
  assert.equal(vars.CF_BRANCH_TAG_NORMALIZED_LOWER_CASE, 'feature_login_2');
  assert.equal(vars.CF_REVISION, '0123456789abcdef0123456789abcdef01234567');
  assert.equal(vars.CF_SHORT_REVISION, '0123456');
  assert.equal(vars.CF_REPO_OWNER, 'acme');
  assert.equal(vars.CF_REPO_NAME, 'app');
  assert.equal(vars.CF_BUILD_TRIGGER, 'webhook');
  assert.equal(vars.CF_ACCOUNT, 'team');
  assert.equal('CF_COMMIT_MESSAGE' in vars, false);
});

test('the escaped commit message escapes backslashes before line breaks and quotes', () => {
  const vars = systemVariables({ ...minimal, commitMessage: 'Fix "x"\r\nsee C:\\new' });
  assert.equal(vars.CF_COMMIT_MESSAGE, 'Fix "x"\r\nsee C:\\new');
  assert.equal(vars.CF_COMMIT_MESSAGE_ESCAPED, 'Fix \\"x\\"\\r\\nsee C:\\\\new');
});

test('normalizeBranchTag makes a valid Docker tag', () => {
  assert.equal(normalizeBranchTag('main'), 'main');
  assert.equal(normalizeBranchTag('feature/x y'), 'feature_x_y');
  assert.equal(normalizeBranchTag('.-release'), 'release');
  assert.equal(normalizeBranchTag('v1.2-rc_3'), 'v1.2-rc_3');
  assert.equal(normalizeBranchTag('x'.repeat(200)).length, 128);
});

test('repoFromUrl reads owner and name from every remote form', () => {
  const cases: [string, { owner?: string; name?: string }][] = [
    ['https://github.com/acme/app.git', { owner: 'acme', name: 'app' }],
    ['https://github.com/acme/app', { owner: 'acme', name: 'app' }],
    ['https://user:token@github.com/acme/app.git/', { owner: 'acme', name: 'app' }],
    ['git@github.com:acme/app.git', { owner: 'acme', name: 'app' }],
    ['ssh://git@host:2222/group/acme/app.git', { owner: 'acme', name: 'app' }],
    ['file:///tmp/x/repo.git', { owner: 'x', name: 'repo' }],
    ['/srv/git/app', { owner: 'git', name: 'app' }],
    ['app.git', { owner: undefined, name: 'app' }],
    ['https://github.com', { owner: undefined, name: undefined }],
  ];
  for (const [url, expected] of cases) assert.deepEqual(repoFromUrl(url), expected, url);
});
