import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWebhook } from './parse-webhook.js';
import { deliver, fixture, fixtureJson, parseEvent } from './webhook.test-support.js';

test('gitlab push: subgroup owner, head commit from the list, pusher', () => {
  assert.deepEqual(deliver('gitlab', 'Push Hook', 'gitlab-push'), {
    kind: 'push',
    event: 'Push Hook',
    ref: { type: 'branch', name: 'main' },
    facts: {
      repoOwner: 'platform/backend',
      repoName: 'payments-api',
      initiator: 'jdoe',
      trigger: 'webhook',
      branch: 'main',
      revision: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      commitAuthor: 'Jane Doe',
      commitMessage: 'Retry card authorisation once on timeout\n',
      commitUrl:
        'https://gitlab.example.com/platform/backend/payments-api/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    },
    variables: {},
  });
});

test('gitlab tag push: the annotated tag resolves to its commit', () => {
  const event = deliver('gitlab', 'Tag Push Hook', 'gitlab-tag-push');
  assert.deepEqual(event.kind === 'push' && event.ref, { type: 'tag', name: 'v2.0.0' });
  assert.equal(event.facts.revision, 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7');
  assert.deepEqual(event.variables, { CF_RELEASE_TAG: 'v2.0.0' });
});

test('gitlab merge request: iid is the number, labels by title, last commit', () => {
  const event = deliver('gitlab', 'Merge Request Hook', 'gitlab-merge-request');
  assert.equal(event.kind, 'pull_request');
  assert.equal(event.facts.commitMessage, 'Retry card authorisation once on timeout\n');
  assert.equal(event.facts.initiator, 'jdoe');
  assert.deepEqual(event.variables, {
    CF_PULL_REQUEST_ACTION: 'open',
    CF_PULL_REQUEST_ID: '99017',
    CF_PULL_REQUEST_NUMBER: '7',
    CF_PULL_REQUEST_TARGET: 'main',
    CF_PULL_REQUEST_TITLE: 'Retry card authorisation on timeout',
    CF_PULL_REQUEST_HEAD_BRANCH: 'retry-timeouts',
    CF_PULL_REQUEST_HEAD_COMMIT_SHA: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    CF_PULL_REQUEST_MERGED: 'false',
    CF_PULL_REQUEST_LABELS: 'backend,needs-review',
  });
});

test('gitea push and pull_request', () => {
  const push = deliver('gitea', 'push', 'gitea-push');
  assert.deepEqual(push.facts, {
    repoOwner: 'tools',
    repoName: 'linter',
    initiator: 'kimlee',
    trigger: 'webhook',
    branch: 'develop',
    revision: 'bffeb74224043ba2feb48d137756c8a9331c449a',
    commitAuthor: 'kimlee',
    commitMessage: 'Fix false positive on unused imports\n',
    commitUrl:
      'https://git.example.org/tools/linter/commit/bffeb74224043ba2feb48d137756c8a9331c449a',
  });
  const pr = deliver('gitea', 'pull_request', 'gitea-pull-request');
  assert.equal(pr.kind === 'pull_request' && pr.action, 'synchronized');
  assert.equal(pr.facts.branch, 'unused-blank');
  assert.equal(pr.variables.CF_PULL_REQUEST_NUMBER, '3');
  assert.equal(pr.variables.CF_PULL_REQUEST_ID, '58');
  assert.equal(pr.variables.CF_PULL_REQUEST_LABELS, 'bug');
});

test('gitea tag push without head_commit uses `after`', () => {
  const event = deliver('gitea', 'push', 'gitea-push-tag');
  assert.equal(event.facts.branch, 'v0.9.1');
  assert.equal(event.facts.revision, 'bffeb74224043ba2feb48d137756c8a9331c449a');
  assert.deepEqual(event.variables, { CF_RELEASE_TAG: 'v0.9.1' });
});

test('a push to a ref that is neither branch nor tag is ignored', () => {
  const body = { ...fixtureJson('github-push'), ref: 'refs/notes/commits' };
  const event = parseEvent('github', 'push', body);
  assert.equal(
    event.kind === 'ignored' && event.reason,
    'Push to refs/notes/commits, which is neither a branch nor a tag',
  );
});

test('gitlab branch deletion (after is all zeros) is ignored', () => {
  const body = {
    ...fixtureJson('gitlab-push'),
    after: '0000000000000000000000000000000000000000',
    checkout_sha: null,
    commits: [],
  };
  const event = parseEvent('gitlab', 'Push Hook', body);
  assert.equal(event.kind === 'ignored' && event.reason, 'Push deletes branch main');
});

test('a missing or mistyped field is an InputError naming its path', () => {
  const pr = fixtureJson('github-pull-request');
  const pullRequest = pr.pull_request as Record<string, unknown>;
  const head = { ...(pullRequest.head as Record<string, unknown>) };
  delete head.ref;
  assert.throws(
    () => parseEvent('github', 'pull_request', { ...pr, pull_request: { ...pullRequest, head } }),
    {
      name: 'InputError',
      code: 'SLUICE_WEBHOOK_PAYLOAD_INVALID',
      message: 'GitHub pull_request payload is missing pull_request.head.ref (expected a string)',
    },
  );
  const labels = [{ name: 'ok' }, { title: 'no name' }];
  assert.throws(
    () => parseEvent('github', 'pull_request', { ...pr, pull_request: { ...pullRequest, labels } }),
    {
      message:
        'GitHub pull_request payload is missing pull_request.labels[1].name (expected a string)',
    },
  );
  assert.throws(
    () => parseEvent('gitlab', 'Push Hook', { ...fixtureJson('gitlab-push'), ref: 42 }),
    { message: 'GitLab Push Hook payload has ref of type number, expected a string' },
  );
});

test('bodies that are not JSON objects are InputErrors', () => {
  const headers = { 'x-gitea-event': 'push' };
  for (const [body, message] of [
    ['{"ref":', 'Gitea push payload is not valid JSON'],
    [[1, 2], 'Gitea push payload is not a JSON object'],
    [null, 'Gitea push payload is not a JSON object'],
  ] as const)
    assert.throws(() => parseWebhook({ provider: 'gitea', headers, body }), {
      code: 'SLUICE_WEBHOOK_PAYLOAD_INVALID',
      message,
    });
});

test('a request without the event header is an InputError', () => {
  assert.throws(() => parseWebhook({ provider: 'gitlab', headers: {}, body: {} }), {
    code: 'SLUICE_WEBHOOK_EVENT_MISSING',
    message: 'GitLab webhook request has no X-Gitlab-Event header',
  });
});

test("GitHub's form-encoded delivery carries the JSON in `payload`", () => {
  const form = new URLSearchParams({ payload: fixture('github-ping') }).toString();
  const headers = {
    'x-github-event': 'ping',
    'content-type': 'application/x-www-form-urlencoded',
  };
  assert.equal(parseWebhook({ provider: 'github', headers, body: Buffer.from(form) }).kind, 'ping');
  assert.throws(() => parseWebhook({ provider: 'github', headers, body: 'zen=1' }), {
    message: 'GitHub ping form body has no payload field',
  });
});
