/**
 * `git-clone` with `git: NAME` against a private git server over HTTP (git http-backend behind
 * basic auth): the integration's token clones it and never shows in the log, the clone URL or
 * `.git/config`; a wrong token fails naming the integration; one the build lacks fails, or
 * under `sluice run` clones anonymously with a warning.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createGitRepo, dockerHostAddress, makeTempDir, startGitHttpServer } from '@sluice/testkit';
import type { GitHttpServer, TempDir } from '@sluice/testkit';
import {
  BuildHarness,
  GIT_IMAGE,
  pipelineFrom,
  stepLines,
  stepSummary,
} from './build-harness.test-support.js';
import type { GitIntegrationSetting } from '../base/registry-settings.js';

const TOKEN = 'ghp_privateRepoToken_5s8Kq2';
let harness: BuildHarness;
let dir: TempDir;
let server: GitHttpServer;
/** The server as step containers reach it. */
let hostUrl: string;

before(async () => {
  harness = await BuildHarness.create();
  dir = await makeTempDir('sluice-git-http-');
  await createGitRepo({
    files: {
      'secret.txt': 'private-content\n',
      'ci.yml': `version: '1.0'\nsteps:${CLONE_AND_SHOW('acme/repo')}`,
    },
    dir: join(dir.path, 'acme'),
  });
  server = await startGitHttpServer({ root: dir.path, username: 'ci-bot', password: TOKEN });
  hostUrl = server.urlVia(await dockerHostAddress());
});

after(async () => {
  await server.close();
  await harness.close();
  await dir.cleanup();
});

function integration(
  token: string,
  extra: Partial<GitIntegrationSetting> = {},
): GitIntegrationSetting {
  return { name: 'github-main', kind: 'git', url: hostUrl, username: 'ci-bot', token, ...extra };
}

const CLONE_AND_SHOW = (repoField: string) => `
  main_clone:
    type: git-clone
    repo: ${repoField}
    git: github-main
  show:
    image: ${GIT_IMAGE}
    commands:
      - cat secret.txt
      - echo "owner=$CF_REPO_OWNER name=$CF_REPO_NAME provider=$CF_GIT_PROVIDER"
      - cat .git/config
`;

function everyLine(build: { events: readonly unknown[] }): string {
  return JSON.stringify(build.events);
}

test('git: NAME clones a private repository with the token; the token is in no log line, URL or .git/config', async () => {
  const before = server.requests.length;
  const build = await harness.runSteps(CLONE_AND_SHOW(`${hostUrl}/acme/repo.git`), {
    gitIntegrations: [integration(TOKEN)],
  });
  assert.equal(stepSummary(build, 'main_clone').result, 'success', JSON.stringify(build.summary));
  const shown = stepLines(build.events, 'show');
  assert.ok(shown.includes('private-content'), shown.join('\n'));
  assert.ok(shown.includes('owner=acme name=repo provider=git'), shown.join('\n'));
  assert.ok(
    shown.some((l) => l.includes(`url = ${hostUrl}/acme/repo.git`)),
    shown.join('\n'),
  );
  assert.ok(!everyLine(build).includes(TOKEN), 'the token reached the log');
  const seen = server.requests.slice(before);
  assert.ok(
    seen.some((r) => r.auth === 'accepted'),
    JSON.stringify(seen),
  );
  assert.ok(
    seen.every((r) => !r.url.includes(TOKEN)),
    'the token was put in a URL',
  );
});

test("repo: owner/name is cloned from the integration's host", async () => {
  const build = await harness.runSteps(CLONE_AND_SHOW('acme/repo'), {
    gitIntegrations: [integration(TOKEN)],
  });
  assert.equal(stepSummary(build, 'main_clone').result, 'success', JSON.stringify(build.summary));
  assert.ok(stepLines(build.events, 'show').includes('private-content'));
  assert.ok(
    stepLines(build.events, 'main_clone').some((l) =>
      l.includes(`Cloning ${hostUrl}/acme/repo.git`),
    ),
    stepLines(build.events, 'main_clone').join('\n'),
  );
});

test('a wrong token fails the step with a reason naming the integration', async () => {
  const build = await harness.runSteps(CLONE_AND_SHOW(`${hostUrl}/acme/repo.git`), {
    gitIntegrations: [integration('ghp_wrongToken_0000')],
  });
  const clone = stepSummary(build, 'main_clone');
  assert.equal(clone.result, 'failure');
  assert.equal(
    clone.reason,
    `git integration "github-main" was refused by ${hostUrl}/acme/repo.git: authentication failed; check its token or key`,
  );
  assert.ok(!everyLine(build).includes('ghp_wrongToken_0000'), 'the wrong token reached the log');
});

test('an integration the build lacks fails the step, or under sluice run clones anonymously with a warning', async () => {
  const missing = await harness.runSteps(CLONE_AND_SHOW(`${hostUrl}/acme/repo.git`));
  assert.match(
    stepSummary(missing, 'main_clone').reason ?? '',
    /^git integration "github-main" does not exist in the account/,
  );
  const anonymous = await harness.runSteps(CLONE_AND_SHOW(`${hostUrl}/acme/repo.git`), {
    unknownGitIntegration: 'anonymous',
  });
  assert.ok(
    stepLines(anonymous.events, 'main_clone', 'system').some((l) =>
      l.startsWith('Warning: git integration "github-main" was not given'),
    ),
  );
  // The server is private: the anonymous clone is refused, and says which integration to give.
  assert.match(
    stepSummary(anonymous, 'main_clone').reason ?? '',
    /git integration "github-main" was refused/,
  );
});

test("an SSH-key integration clones owner/name over SSH; a host it cannot reach is named with ssh's reason", async () => {
  const build = await harness.runSteps(CLONE_AND_SHOW('acme/repo'), {
    gitIntegrations: [
      {
        name: 'github-main',
        kind: 'gitea',
        url: 'https://git.example.test',
        sshKey:
          '-----BEGIN OPENSSH PRIVATE KEY-----\nkeyMaterialNeverShown\n-----END OPENSSH PRIVATE KEY-----',
      },
    ],
  });
  const clone = stepSummary(build, 'main_clone');
  assert.equal(clone.result, 'failure');
  // sluice/git:1 has OpenSSH's client (a clone that succeeds over SSH: test/e2e/git-integrations).
  assert.match(
    clone.reason ?? '',
    /^Could not check out the default branch of git@git\.example\.test:acme\/repo\.git: ssh: Could not resolve hostname git\.example\.test/,
  );
  assert.ok(!everyLine(build).includes('keyMaterialNeverShown'), 'the key reached the log');
});

const CLONE_WITHOUT_GIT = (repoField: string) => `
  main_clone:
    type: git-clone
    repo: ${repoField}
`;

test('a clone without git: uses the default integration on its host only', async () => {
  const own = await harness.runSteps(CLONE_WITHOUT_GIT(`${hostUrl}/acme/repo.git`), {
    gitIntegrations: [integration(TOKEN, { default: true })],
  });
  assert.equal(stepSummary(own, 'main_clone').result, 'success', JSON.stringify(own.summary));
  const before = server.requests.length;
  const elsewhere = await harness.runSteps(CLONE_WITHOUT_GIT(`${hostUrl}/acme/repo.git`), {
    gitIntegrations: [integration(TOKEN, { default: true, url: 'https://git.example.test' })],
  });
  const clone = stepSummary(elsewhere, 'main_clone');
  assert.equal(clone.result, 'failure');
  assert.match(clone.reason ?? '', /^Could not check out the default branch of /);
  const seen = server.requests.slice(before);
  assert.ok(seen.length > 0 && seen.every((r) => r.auth === 'anonymous'), JSON.stringify(seen));
});

test('a definition read from the repository brings what it names: its clone gets an integration given only with the accepted definition', async () => {
  const reader = integration(TOKEN, { name: 'reader' });
  const build = await harness.run(
    {
      repo: `${hostUrl}/acme/repo.git`,
      path: 'ci.yml',
      revision: '',
      git: 'reader',
      fillsRevision: false,
      accept: (yaml) =>
        Promise.resolve({
          ok: true,
          pipeline: pipelineFrom(yaml, { file: 'ci.yml' }),
          grants: {
            registries: [],
            gitIntegrations: [integration(TOKEN)],
            clusters: [],
            deniedClusters: [],
          },
        }),
    },
    { gitIntegrations: [reader] },
  );
  assert.equal(stepSummary(build, 'main_clone').result, 'success', JSON.stringify(build.summary));
  assert.ok(stepLines(build.events, 'show').includes('private-content'));
  assert.ok(!everyLine(build).includes(TOKEN), 'the token reached the log');
});
