import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusRequest } from './commit-status-hosts.js';
import type { StatusTarget } from './commit-status-hosts.js';

const target = (kind: StatusTarget['kind'], url: string | null): StatusTarget => ({
  kind,
  url,
  username: null,
  token: 'tok',
  repo: 'acme/web',
  sha: 'abc1234',
  context: 'sluice/web/build',
  targetUrl: 'https://ci.example.com/builds/bld_1',
  description: 'Sluice build bld_1: failure',
});

test("each host's public API, its words for the states, and hosts without one", () => {
  const github = statusRequest(target('github', 'https://github.com'), 'cancelled');
  assert.equal(github?.url, 'https://api.github.com/repos/acme/web/statuses/abc1234');
  const state = (body: string | undefined) => (JSON.parse(body ?? '{}') as { state: string }).state;
  assert.equal(state(github?.body), 'error', 'GitHub has no cancelled');
  const gitlab = statusRequest(target('gitlab', null), 'cancelled');
  assert.equal(gitlab?.url, 'https://gitlab.com/api/v4/projects/acme%2Fweb/statuses/abc1234');
  assert.equal(state(gitlab?.body), 'canceled');
  const bitbucket = statusRequest(
    { ...target('bitbucket', 'https://bitbucket.org'), context: `sluice/${'p'.repeat(60)}/x` },
    'success',
  );
  assert.equal(
    bitbucket?.url,
    'https://api.bitbucket.org/2.0/repositories/acme/web/commit/abc1234/statuses/build',
  );
  assert.equal(bitbucket?.headers['authorization'], 'Bearer tok');
  const body = JSON.parse(bitbucket?.body ?? '{}') as { key: string; state: string };
  assert.equal(body.state, 'SUCCESSFUL');
  assert.equal(body.key.length, 40, "a long context is keyed by its hash: Bitbucket's limit");
  // Bitbucket at its own URL is Bitbucket Server (Data Center): its build-status API.
  const server = statusRequest(target('bitbucket', 'https://bitbucket.acme.internal'), 'cancelled');
  assert.equal(
    server?.url,
    'https://bitbucket.acme.internal/rest/build-status/1.0/commits/abc1234',
  );
  assert.equal(state(server?.body), 'FAILED');
  assert.equal(statusRequest(target('git', 'https://git.internal'), 'success'), undefined);
  assert.equal(statusRequest(target('gitea', null), 'success'), undefined, 'Gitea needs its URL');
});
