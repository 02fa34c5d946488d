import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cloneUrlFor,
  credentialsOf,
  gitComplaint,
  onIntegrationHost,
  parseGitIntegrationFlag,
  refusedReason,
  repoVariables,
  stepTypeGitEnvironment,
} from './git-integrations.js';

test('--git-integration takes NAME=token:VALUE, a username, a key file and url/kind options', () => {
  assert.deepEqual(parseGitIntegrationFlag('github-main=token:ghp_x'), {
    ok: true,
    value: { name: 'github-main', kind: 'github', url: '', token: 'ghp_x' },
  });
  assert.deepEqual(
    parseGitIntegrationFlag('lab=user:ci:token:a,b=c,url=https://git.example.com,kind=gitlab'),
    {
      ok: false,
      message:
        '--git-integration lab: unknown option "b=c" (expected url=https://host or kind=github|gitlab|bitbucket|gitea|git)',
    },
  );
  assert.deepEqual(
    parseGitIntegrationFlag('lab=user:ci:token:abc,url=https://git.example.com,kind=gitlab'),
    {
      ok: true,
      value: {
        name: 'lab',
        kind: 'gitlab',
        url: 'https://git.example.com',
        username: 'ci',
        token: 'abc',
      },
    },
  );
  assert.deepEqual(parseGitIntegrationFlag('box=ssh-key-file:/keys/id,url=ssh://git.example.com'), {
    ok: true,
    value: { name: 'box', kind: 'git', url: 'ssh://git.example.com', sshKeyFile: '/keys/id' },
  });
});

test('a malformed --git-integration names what is wrong and never echoes the token', () => {
  const noName = parseGitIntegrationFlag('token:ghp_secret');
  assert.equal(noName.ok, false);
  assert.ok(!noName.ok && !noName.message.includes('ghp_secret'), JSON.stringify(noName));
  const noKind = parseGitIntegrationFlag('gh=ghp_secret');
  assert.ok(
    !noKind.ok &&
      /expected token:VALUE/.test(noKind.message) &&
      !noKind.message.includes('ghp_secret'),
  );
});

test('owner/name is cloned from the integration host; a full URL as written; tokens get the provider user name', () => {
  const gh = { name: 'gh', kind: 'github' as const, url: '', token: 't' };
  assert.equal(cloneUrlFor('acme/app', gh), 'https://github.com/acme/app.git');
  assert.equal(cloneUrlFor('acme/app', undefined), 'https://github.com/acme/app.git');
  assert.equal(
    cloneUrlFor('group/sub/app', { ...gh, kind: 'gitlab', url: 'https://gitlab.example.com/' }),
    'https://gitlab.example.com/group/sub/app.git',
  );
  assert.equal(
    cloneUrlFor('acme/app', { ...gh, token: undefined, sshKey: 'KEY' }),
    'git@github.com:acme/app.git',
  );
  assert.equal(cloneUrlFor('https://h/x/y.git', gh), 'https://h/x/y.git');
  assert.deepEqual(credentialsOf(gh), { kind: 'token', username: 'x-access-token', token: 't' });
  assert.deepEqual(credentialsOf({ ...gh, kind: 'gitlab', username: 'me' }), {
    kind: 'token',
    username: 'me',
    token: 't',
  });
  assert.deepEqual(credentialsOf(undefined), { kind: 'none' });
  assert.deepEqual(repoVariables('https://github.com/acme/app.git', gh), {
    CF_REPO_OWNER: 'acme',
    CF_REPO_NAME: 'app',
    CF_GIT_PROVIDER: 'github',
    CF_GIT_INTEGRATION: 'gh',
  });
});

test('a default integration is used only for repositories on its own host', () => {
  const gh = { name: 'gh', kind: 'github' as const, url: '', token: 't' };
  const gitea = {
    name: 'ge',
    kind: 'gitea' as const,
    url: 'https://git.example.com:3000',
    token: 't',
  };
  assert.equal(onIntegrationHost('acme/app', gh), true);
  assert.equal(onIntegrationHost('https://github.com/acme/app.git', gh), true);
  assert.equal(onIntegrationHost('git@github.com:acme/app.git', gh), true);
  assert.equal(onIntegrationHost('https://gitlab.com/acme/app.git', gh), false);
  assert.equal(onIntegrationHost('file:///srv/git/app.git', gh), false);
  assert.equal(onIntegrationHost('https://git.example.com/acme/app', gitea), true);
  assert.equal(onIntegrationHost('https://evil.example.net/git.example.com/app', gitea), false);
});

// What OpenSSH and git print when a key is refused: the advice comes last.
const REFUSED_OVER_SSH = [
  'root@172.17.0.1: Permission denied (publickey).',
  'fatal: Could not read from remote repository.',
  '',
  'Please make sure you have the correct access rights',
  'and the repository exists.',
];

test('a refused login is recognised in any of the last lines, not only the last', () => {
  assert.equal(
    refusedReason('gitea-ssh', 'ssh://git.example:2222/acme/repo.git', REFUSED_OVER_SSH),
    'git integration "gitea-ssh" was refused by ssh://git.example:2222/acme/repo.git: authentication failed; check its token or key',
  );
  assert.equal(refusedReason(undefined, 'ssh://x/y.git', REFUSED_OVER_SSH), undefined);
  assert.equal(
    refusedReason('gh', 'https://x/y.git', ["fatal: couldn't find remote ref nope"]),
    undefined,
  );
});

test("a failed clone's complaint is ssh's own line, else git's last fatal or error, not the advice after it", () => {
  assert.equal(gitComplaint(REFUSED_OVER_SSH), 'fatal: Could not read from remote repository.');
  assert.equal(
    gitComplaint([
      'Cloning…',
      'error: RPC failed; HTTP 500',
      'fatal: expected flush after ref listing',
    ]),
    'fatal: expected flush after ref listing',
  );
  assert.equal(
    gitComplaint([
      'ssh: Could not resolve hostname git.example.test: Name or service not known',
      'fatal: Could not read from remote repository.',
    ]),
    'ssh: Could not resolve hostname git.example.test: Name or service not known',
  );
  assert.equal(gitComplaint(['  something odd  ', '']), 'something odd');
  assert.equal(gitComplaint([]), undefined);
});

test("a step type's step that names a git integration gets its key or token; no other step does", () => {
  const integrations = [
    { name: 'box', kind: 'git' as const, url: '', sshKey: 'KEY' },
    { name: 'hub', kind: 'github' as const, url: '', token: 'T0K' },
  ];
  const options = { integrations, cloneIntegration: 'hub' };
  const named = (name: string) => [['SLUICE_GIT_INTEGRATION', name] as const];
  assert.deepEqual(stepTypeGitEnvironment(named('box'), true, options), ['SLUICE_GIT_SSH_KEY=KEY']);
  assert.deepEqual(
    stepTypeGitEnvironment(named(''), true, options),
    ['SLUICE_GIT_TOKEN=T0K', 'SLUICE_GIT_TOKEN_USERNAME=x-access-token'],
    "an empty name is the pipeline's clone's integration",
  );
  assert.deepEqual(stepTypeGitEnvironment(named('box'), false, options), [], 'a freestyle step');
  assert.deepEqual(stepTypeGitEnvironment([['OTHER', 'box']], true, options), []);
  assert.deepEqual(stepTypeGitEnvironment(named('missing'), true, options), []);
});
