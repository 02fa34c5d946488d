import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemVariables } from '@sluice/pipeline';
import type { GitProvider } from './webhook-headers.js';
import { deliver } from './webhook.test-support.js';

test('github push: branch, head commit and repository', () => {
  assert.deepEqual(deliver('github', 'push', 'github-push'), {
    kind: 'push',
    event: 'push',
    ref: { type: 'branch', name: 'feature/login-form' },
    facts: {
      repoOwner: 'acme',
      repoName: 'widgets',
      initiator: 'octocat',
      trigger: 'webhook',
      branch: 'feature/login-form',
      revision: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      commitAuthor: 'monalisa',
      commitMessage: 'Add login form\n\nValidates the e-mail field "as you type".',
      commitUrl: 'https://github.com/acme/widgets/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    },
    variables: {},
  });
});

test('github push facts fill the CF_* system variables', () => {
  const event = deliver('github', 'push', 'github-push');
  const vars = systemVariables({
    buildId: 'b1',
    startedAt: 0,
    pipelineName: 'widgets/ci',
    volumeName: 'v',
    ...event.facts,
  });
  assert.equal(vars.CF_BRANCH, 'feature/login-form');
  assert.equal(vars.CF_BRANCH_TAG_NORMALIZED, 'feature_login-form');
  assert.equal(vars.CF_SHORT_REVISION, '0d1a26e');
  assert.equal(vars.CF_REPO_OWNER, 'acme');
  assert.equal(vars.CF_COMMIT_AUTHOR, 'monalisa');
  assert.equal(vars.CF_BUILD_TRIGGER, 'webhook');
  assert.equal(vars.CF_BUILD_INITIATOR, 'octocat');
});

test('github tag push: the tag is the branch and CF_RELEASE_TAG; revision is the commit', () => {
  const event = deliver('github', 'push', 'github-push-tag');
  assert.equal(event.kind, 'push');
  assert.deepEqual(event.kind === 'push' && event.ref, { type: 'tag', name: 'v1.4.0' });
  assert.equal(event.facts.branch, 'v1.4.0');
  assert.equal(event.facts.revision, '3c9e1f7a2b8d4c6e0f1a2b3c4d5e6f708192a3b4');
  assert.equal(event.facts.commitAuthor, 'Release Bot');
  assert.deepEqual(event.variables, { CF_RELEASE_TAG: 'v1.4.0' });
});

test('github branch deletion is ignored with a reason', () => {
  const event = deliver('github', 'push', 'github-push-delete');
  assert.equal(event.kind, 'ignored');
  assert.equal(
    event.kind === 'ignored' && event.reason,
    'Push deletes branch feature/old-experiment',
  );
  assert.deepEqual(event.facts, {
    repoOwner: 'acme',
    repoName: 'widgets',
    initiator: 'octocat',
    trigger: 'webhook',
  });
});

test('github pull_request opened: CF_PULL_REQUEST_* variables', () => {
  const event = deliver('github', 'pull_request', 'github-pull-request');
  assert.equal(event.kind === 'pull_request' && event.action, 'opened');
  assert.deepEqual(event.facts, {
    repoOwner: 'acme',
    repoName: 'widgets',
    initiator: 'monalisa',
    trigger: 'webhook',
    branch: 'feature/login-form',
    revision: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    commitAuthor: 'monalisa',
    commitUrl: 'https://github.com/acme/widgets/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
  });
  assert.deepEqual(event.variables, {
    CF_PULL_REQUEST_ACTION: 'opened',
    CF_PULL_REQUEST_ID: '1754123987',
    CF_PULL_REQUEST_NUMBER: '42',
    CF_PULL_REQUEST_TARGET: 'main',
    CF_PULL_REQUEST_TITLE: 'Add login form',
    CF_PULL_REQUEST_HEAD_BRANCH: 'feature/login-form',
    CF_PULL_REQUEST_HEAD_COMMIT_SHA: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    CF_PULL_REQUEST_MERGED: 'false',
    CF_PULL_REQUEST_LABELS: 'enhancement,deploy-preview',
  });
});

test('github pull_request closed and merged: merged flag and merge commit', () => {
  const event = deliver('github', 'pull_request', 'github-pull-request-merged');
  assert.equal(event.variables.CF_PULL_REQUEST_ACTION, 'closed');
  assert.equal(event.variables.CF_PULL_REQUEST_MERGED, 'true');
  assert.equal(
    event.variables.CF_PULL_REQUEST_MERGED_COMMIT_SHA,
    'e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6',
  );
  assert.equal(event.variables.CF_PULL_REQUEST_LABELS, 'dependencies');
  assert.equal(event.facts.branch, 'dependabot/npm_and_yarn/lodash-4.17.21');
});

test('github ping', () => {
  assert.deepEqual(deliver('github', 'ping', 'github-ping'), {
    kind: 'ping',
    event: 'ping',
    facts: { repoOwner: 'acme', repoName: 'widgets', trigger: 'webhook' },
    variables: {},
  });
});

test('an event that starts no build is ignored, naming the event', () => {
  const cases: [GitProvider, string, string, string][] = [
    ['github', 'issues', 'github-issues', 'GitHub event "issues" does not trigger builds'],
    ['gitlab', 'Note Hook', 'gitlab-note', 'GitLab event "Note Hook" does not trigger builds'],
    ['gitea', 'issues', 'github-issues', 'Gitea event "issues" does not trigger builds'],
  ];
  for (const [provider, name, file, reason] of cases) {
    const event = deliver(provider, name, file);
    assert.equal(event.kind, 'ignored');
    assert.equal(event.kind === 'ignored' && event.reason, reason);
    assert.equal(event.event, name);
  }
});
