import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileLink } from './git-host-links.js';

const SHA = '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c';

test("a file at a commit on each known host's pages; a plain git server has none", () => {
  const at = (kind: Parameters<typeof fileLink>[0]['kind'], url: string | null, repo: string) =>
    fileLink({ kind, url }, repo, SHA, '.sluice/ci build.yml');
  assert.equal(
    at('github', null, 'acme/app'),
    `https://github.com/acme/app/blob/${SHA}/.sluice/ci%20build.yml`,
  );
  assert.equal(
    at('github', 'https://ghe.example.com/', 'acme/app'),
    `https://ghe.example.com/acme/app/blob/${SHA}/.sluice/ci%20build.yml`,
  );
  assert.equal(
    at('gitlab', null, 'group/sub/app'),
    `https://gitlab.com/group/sub/app/-/blob/${SHA}/.sluice/ci%20build.yml`,
  );
  assert.equal(
    at('gitea', 'https://git.example.com', 'acme/app'),
    `https://git.example.com/acme/app/src/commit/${SHA}/.sluice/ci%20build.yml`,
  );
  assert.equal(
    at('bitbucket', null, 'acme/app'),
    `https://bitbucket.org/acme/app/src/${SHA}/.sluice/ci%20build.yml`,
  );
  // A clone URL names its own host; ssh and git:// URLs have no page to link.
  assert.equal(
    at('github', null, 'https://ghe.example.com/acme/app.git'),
    `https://ghe.example.com/acme/app/blob/${SHA}/.sluice/ci%20build.yml`,
  );
  assert.equal(at('github', null, 'git@github.com:acme/app.git'), null);
  assert.equal(at('gitea', null, 'acme/app'), null, 'a Gitea integration without its URL');
  assert.equal(at('git', 'https://git.example.com', 'acme/app'), null);
});
