/**
 * Git integrations end to end, against a private git server over HTTP (git http-backend behind
 * basic auth) and a real `sluice server`: `sluice create|get|delete git-integration` never show
 * the token; a build through the control plane whose git-clone step says `git: NAME` clones
 * the private repository and the token is in no stored log line; with a wrong token the step
 * fails naming the integration; `sluice run --git-integration` clones it too; a webhook
 * trigger names its integration and `sluice get triggers` shows it. Over SSH (Debian's sshd, the
 * key restricted to git-shell): `sluice run` clones with the integration's key and never prints
 * it, and a key the server does not know fails naming the integration.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { TestDatabases } from '@sluice/db/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  createGitRepo,
  dockerHostAddress,
  ensureDockerEngine,
  ensureTestImages,
  makeTempDir,
  runCommand,
  startGitSshServer,
} from '@sluice/testkit';
import type { GitHttpServer, TempDir } from '@sluice/testkit';
import { kill, runSluice } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { createPipelines, runBuildEngine, startGitControlPlane } from './control-plane-seed.js';

const TOKEN = 'slu_u_git-integrations-token-0123456789';
const GIT_TOKEN = 'ghp_e2ePrivateRepoToken_Xk29Lq';
const PROJECT = `git${process.pid}${Date.now().toString(36)}`;

const databases = TestDatabases.create({ kinds: ['postgres'] });
let dir: TempDir;
let git: GitHttpServer;
let repoUrl: string;
let server: RunningServer | undefined;
let admin: SluiceClient;
let agent: SluiceClient;
let pipelineId: string;
let env: NodeJS.ProcessEnv;

function cloneYaml(url: string, integration = 'github-main'): string {
  return [
    'version: "1.0"',
    'steps:',
    '  main_clone:',
    '    type: git-clone',
    `    repo: ${url}`,
    `    git: ${integration}`,
    '  show:',
    '    image: sluice/git:1',
    '    commands:',
    '      - cat secret.txt',
    '      - echo "repo is $CF_REPO_OWNER/$CF_REPO_NAME"',
    '',
  ].join('\n');
}

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  dir = await makeTempDir('sluice-e2e-git-');
  await createGitRepo({
    files: { 'secret.txt': 'private-content\n' },
    dir: join(dir.path, 'acme'),
  });
  ({ git, repoUrl, server, admin, agent, env } = await startGitControlPlane({
    root: dir.path,
    databases,
    token: TOKEN,
    gitToken: GIT_TOKEN,
  }));
  pipelineId = (await createPipelines(admin, PROJECT, { clone: cloneYaml(repoUrl) })).clone ?? '';
});

after(async () => {
  if (server) await kill(server);
  await databases.close();
  await git.close();
  await dir.cleanup();
  const volumes = [`${PROJECT}-clone`, ...volumeKeys].map((key) => `sluice-volume-${key}`);
  spawnSync('docker', ['volume', 'rm', '-f', ...volumes]);
});

/** `sluice run FILE` on a volume of its own (`volumeKey`), with `--git-integration` when given. */
function sluiceRun(file: string, volumeKey: string, integration?: string) {
  volumeKeys.push(volumeKey);
  const flags = integration === undefined ? [] : ['--git-integration', integration];
  return runSluice(['run', file, '--volume-key', volumeKey, ...flags], { cwd: dir.path });
}
const volumeKeys: string[] = [];

/** Creates a build and runs its engine as the agent would. */
async function runBuildThroughControlPlane(): Promise<{ buildId: string; output: string }> {
  const build = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const output = await runBuildEngine(agent, build.id, {
    serverUrl: server?.url ?? '',
    spoolDir: join(dir.path, 'log-spool'),
  });
  return { buildId: build.id, output };
}

test('sluice create|get git-integration: the token goes in on stdin and never comes back', async () => {
  const created = await runSluice(
    [
      'create',
      'git-integration',
      'github-main',
      '--kind',
      'git',
      '--url',
      git.urlVia('127.0.0.1'),
      '--username',
      'ci-bot',
      '--token-stdin',
    ],
    { env, input: `${GIT_TOKEN}\n` },
  );
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /git-integration\/github-main created \(default\)/);
  const table = await runSluice(['get', 'git-integrations'], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^NAME\s+KIND\s+URL\s+USERNAME\s+AUTH\s+DEFAULT$/m);
  assert.match(
    table.stdout,
    /^github-main\s+git\s+http:\/\/127\.0\.0\.1:\d+\s+ci-bot\s+token\s+yes$/m,
  );
  const one = await runSluice(['get', 'git-integration', 'github-main', '-o', 'yaml'], { env });
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(
    (({ name, kind, auth }) => ({ name, kind, auth }))(
      parse(one.stdout) as Record<string, unknown>,
    ),
    { name: 'github-main', kind: 'git', auth: 'token' },
  );
  const json = await runSluice(['get', 'git-integrations', '-o', 'json'], { env });
  for (const output of [created, table, one, json])
    assert.ok(!(output.stdout + output.stderr).includes(GIT_TOKEN), 'the token was printed');
  const missing = await runSluice(['get', 'git-integration', 'nope'], { env });
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /Git integration "nope" does not exist/);
});

test('a build through the control plane clones the private repository with git: NAME; the token is in no stored log line', async () => {
  const { buildId, output } = await runBuildThroughControlPlane();
  const build = await admin.call('getBuild', { params: { buildId } });
  const log = await (await admin.raw('buildLog', { params: { buildId } })).text();
  assert.equal(build.status, 'success', `${JSON.stringify(build)}\n${log}\n${output}`);
  assert.ok(log.split('\n').includes('[show] private-content'), log);
  assert.ok(log.split('\n').includes('[show] repo is acme/repo'), log);
  assert.ok(!log.includes(GIT_TOKEN), `the token is in the stored log:\n${log}`);
  assert.ok(!output.includes(GIT_TOKEN), 'the engine printed the token');
  assert.ok(git.requests.some((r) => r.auth === 'accepted'));
});

test('with a wrong token the step fails with a reason naming the integration', async () => {
  await admin.call('updateGitIntegration', {
    params: { name: 'github-main' },
    body: { token: 'ghp_wrongTokenForE2e_000' },
  });
  try {
    const { buildId } = await runBuildThroughControlPlane();
    const build = await admin.call('getBuild', { params: { buildId } });
    const clone = build.steps.find((s) => s.name === 'main_clone');
    assert.equal(build.status, 'failure');
    assert.equal(
      clone?.reason,
      `git integration "github-main" was refused by ${repoUrl}: authentication failed; check its token or key`,
    );
  } finally {
    await admin.call('updateGitIntegration', {
      params: { name: 'github-main' },
      body: { token: GIT_TOKEN },
    });
  }
});

test('sluice run --git-integration clones the private repository; without one it warns and clones anonymously', async () => {
  const file = join(dir.path, 'codefresh.yml');
  writeFileSync(file, cloneYaml(repoUrl));
  const run = await sluiceRun(file, `${PROJECT}-run`, `github-main=user:ci-bot:token:${GIT_TOKEN}`);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /private-content/);
  assert.ok(!(run.stdout + run.stderr).includes(GIT_TOKEN), 'sluice run printed the token');
  const anonymous = await sluiceRun(file, `${PROJECT}-run-anon`);
  assert.equal(anonymous.code, 1, anonymous.stdout + anonymous.stderr);
  assert.match(
    anonymous.stdout + anonymous.stderr,
    /Warning: git integration "github-main" was not given/,
  );
});

test('sluice run --git-integration NAME=ssh-key-file: clones over SSH with the key and never prints it; an unknown key fails naming the integration', async () => {
  const ssh = await startGitSshServer({ root: dir.path });
  try {
    const url = ssh.urlVia(await dockerHostAddress(), 'acme/repo.git');
    const file = join(dir.path, 'ssh.codefresh.yml');
    writeFileSync(file, cloneYaml(url, 'gitea-ssh'));
    const key = join(dir.path, 'deploy_key');
    writeFileSync(key, ssh.clientKey, { mode: 0o600 });
    const run = await sluiceRun(file, `${PROJECT}-ssh`, `gitea-ssh=ssh-key-file:${key}`);
    const output = run.stdout + run.stderr;
    assert.equal(run.code, 0, output);
    assert.match(run.stdout, /private-content/);
    const keyBody = ssh.clientKey.split('\n')[2] ?? '';
    assert.ok(keyBody.length > 20 && !output.includes(keyBody), 'sluice run printed the SSH key');
    assert.match(ssh.log(), /Accepted publickey for root/);

    const other = join(dir.path, 'unknown_key');
    const made = await runCommand('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    assert.equal(made.code, 0, made.stderr);
    const refused = await sluiceRun(
      file,
      `${PROJECT}-ssh-refused`,
      `gitea-ssh=ssh-key-file:${other}`,
    );
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(
      refused.stdout + refused.stderr,
      /git integration "gitea-ssh" was refused by ssh:\/\/[^ ]+: authentication failed; check its token or key/,
    );
  } finally {
    await ssh.close();
  }
});

test('a webhook trigger names its integration, and sluice get triggers shows it', async () => {
  await admin.call('createTrigger', {
    params: { pipelineId },
    body: {
      kind: 'git',
      provider: 'github',
      repo: 'acme/repo',
      events: ['push'],
      secret: 'webhook-secret-for-e2e-0123',
      gitIntegration: 'github-main',
    },
  });
  const table = await runSluice(['get', 'triggers', `${PROJECT}/clone`], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /GIT-INTEGRATION/);
  assert.match(table.stdout, /^trg_\S+\s+git\s+github\s+acme\/repo\s+push\s+github-main\s+yes$/m);
  assert.ok(!table.stdout.includes('webhook-secret-for-e2e'), 'the webhook secret was printed');
});

test('sluice delete git-integration removes it; a build naming it then fails saying it does not exist', async () => {
  const deleted = await runSluice(['delete', 'git-integration', 'github-main'], { env });
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, /git-integration\/github-main deleted/);
  const { buildId } = await runBuildThroughControlPlane();
  const build = await admin.call('getBuild', { params: { buildId } });
  assert.match(
    build.steps.find((s) => s.name === 'main_clone')?.reason ?? '',
    /^git integration "github-main" does not exist in the account/,
  );
});
