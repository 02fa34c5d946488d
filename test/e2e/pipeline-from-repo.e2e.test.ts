/**
 * Pipelines as code, end to end: a pipeline made with `sluice create pipeline --from-repo` stores
 * where its definition is, and each build's engine reads `codefresh.yml` from the repository (a
 * private git server over HTTP with a token, reached from the build's containers) at the build's
 * own revision, through the control plane and the local runtime: two branches build with their
 * own file (a webhook push of one reads it at the pushed commit; over SSH with an integration's
 * key too), a commit changes the next build with no call to the server, a pinned revision reads
 * its branch whatever the build's, a restart reads the same commit; the build records the YAML it
 * ran and its commit (`describe build`, the API). A broken file fails the build at
 * `codefresh.yml:LINE:COL` with no step started; a missing file, a symlink, and a repository on
 * another host than the integration's each fail with their own reason, the token never sent;
 * `run-pipeline --local-file` runs a file once in place of the definition. In Chromium, the build
 * page shows the file and commit a build ran and its YAML, and the pipeline page switches the
 * pipeline between its repository and YAML stored in Sluice.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDatabases } from '@sluice/db/testing';
import type { Build, SluiceClient } from '@sluice/protocol';
import {
  createGitRepo,
  dockerHostAddress,
  ensureDockerEngine,
  ensureTestImages,
  makeTempDir,
  startGitSshServer,
} from '@sluice/testkit';
import type { GitHttpServer, TempDir } from '@sluice/testkit';
import { kill, REPO_ROOT, runSluice } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { launchChromium } from './browser.js';
import { runBuildEngine, startGitControlPlane } from './control-plane-seed.js';

const TOKEN = 'slu_u_pipeline-from-repo-token-0123456';
const GIT_TOKEN = 'ghp_fromRepoToken_Zq81Mn';
const PROJECT = `repo${process.pid}${Date.now().toString(36)}`;

/** A pipeline that says which file it is, then lists the clone its own first step made. */
function pipeline(says: string): string {
  return [
    'version: "1.0"',
    'steps:',
    '  main_clone:',
    '    type: git-clone',
    '    repo: ${{REPO_URL}}',
    '    revision: ${{CF_REVISION}}',
    '    git: gitsrv',
    '  say:',
    '    image: sluice/busybox:1',
    `    commands: ['echo "${says}"', 'ls']`,
    '',
  ].join('\n');
}

const BROKEN =
  'version: "1.0"\nsteps:\n  say:\n    image: sluice/busybox:1\n    commands: {a: 1}\n';

const databases = TestDatabases.create({ kinds: ['postgres'] });
let dir: TempDir;
let git: GitHttpServer;
let repoUrl: string;
let work: string;
let server: RunningServer | undefined;
let admin: SluiceClient;
let agent: SluiceClient;
let env: NodeJS.ProcessEnv;
let commits: Record<string, string>;

/** git in the repository's working copy, pushed to the served bare repository after a commit. */
function gitIn(...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: work,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  dir = await makeTempDir('sluice-e2e-from-repo-');
  const repo = await createGitRepo({
    files: { 'codefresh.yml': pipeline('main pipeline'), 'app.txt': 'app\n' },
    branches: {
      feature: { 'codefresh.yml': pipeline('feature pipeline') },
      broken: { 'codefresh.yml': BROKEN },
      moved: { 'ci/other.yml': pipeline('elsewhere') },
    },
    dir: join(dir.path, 'acme'),
  });
  commits = repo.commits;
  work = join(dir.path, 'acme', 'work');
  // A branch whose codefresh.yml is a symlink out of the repository.
  gitIn('checkout', '-q', '-B', 'linked', commits['main'] ?? '');
  gitIn('rm', '-q', 'codefresh.yml');
  symlinkSync('/etc/passwd', join(work, 'codefresh.yml'));
  gitIn('add', 'codefresh.yml');
  gitIn('commit', '-qm', 'a symlink');
  gitIn('push', '-q', repo.path, 'linked');
  ({ git, repoUrl, server, admin, agent, env } = await startGitControlPlane({
    root: dir.path,
    databases,
    token: TOKEN,
    gitToken: GIT_TOKEN,
  }));
  await admin.call('createGitIntegration', {
    body: {
      name: 'gitsrv',
      kind: 'git',
      url: git.urlVia(await dockerHostAddress()),
      username: 'ci-bot',
      token: GIT_TOKEN,
    },
  });
});

after(async () => {
  if (server) await kill(server);
  await databases.close();
  await git.close();
  await dir.cleanup();
  const volumes = ['from-repo', 'pinned', 'elsewhere'].map((p) => `sluice-volume-${PROJECT}-${p}`);
  spawnSync('docker', ['volume', 'rm', '-f', ...volumes]);
});

/** Creates a build as `body` says, runs its engine as the agent would, and returns it ended. */
async function runBuild(
  pipelineId: string,
  body: { branch?: string; revision?: string } = {},
  restartOf?: string,
): Promise<{ build: Build; output: string; log: string }> {
  const created =
    restartOf === undefined
      ? await admin.call('createBuild', {
          params: { pipelineId },
          body: { ...body, variables: { REPO_URL: repoUrl } },
        })
      : await admin.call('restartBuild', { params: { buildId: restartOf } });
  const output = await runBuildEngine(agent, created.id, {
    serverUrl: server?.url ?? '',
    spoolDir: join(dir.path, 'log-spool'),
  });
  const build = await admin.call('getBuild', { params: { buildId: created.id } });
  const log = await admin.raw('buildLog', { params: { buildId: created.id } });
  return { build, output, log: await log.text() };
}

function succeeded(run: { build: Build; output: string; log: string }): void {
  assert.equal(run.build.status, 'success', `${run.build.reason ?? ''}\n${run.log}\n${run.output}`);
}

async function createFromRepo(name: string, ...flags: string[]): Promise<string> {
  return createFromRepoUrl(name, repoUrl, ...flags);
}

async function createFromRepoUrl(name: string, url: string, ...flags: string[]): Promise<string> {
  const made = await runSluice(
    ['create', 'pipeline', `${PROJECT}/${name}`, '--from-repo', url, ...flags],
    { env },
  );
  assert.equal(made.code, 0, made.stderr);
  const found = await admin.call('getPipelineByName', { params: { project: PROJECT, name } });
  return found.id;
}

let fromRepo: string;
/** The first build of `fromRepo`, on main. */
let mainBuild: Build;
/** Reads ci/other.yml, which only the branch `moved` has. */
let elsewhere: string;

test('each branch builds with its own codefresh.yml, read at its commit and recorded on the build', async () => {
  fromRepo = await createFromRepo('from-repo', '--git-integration', 'gitsrv');
  const shown = await runSluice(['get', 'pipeline', `${PROJECT}/from-repo`, '-o', 'yaml'], { env });
  assert.match(
    shown.stdout,
    /specTemplate:\n\s+location: git\n\s+repo: http:\/\/\S+\/acme\/repo\.git/,
  );
  assert.doesNotMatch(shown.stdout, /^\s+yaml:/m);

  const main = await runBuild(fromRepo, { branch: 'main' });
  succeeded(main);
  mainBuild = main.build;
  assert.match(main.log, /main pipeline/);
  assert.doesNotMatch(main.log, /feature pipeline/);
  // One clone: the pipeline's own clone step found the engine's.
  assert.match(main.log, /Using the clone in \S+ made to read the definition/);
  assert.deepEqual(main.build.definition, {
    location: 'git',
    repo: repoUrl,
    path: 'codefresh.yml',
    revision: 'main',
    sha: commits['main'],
  });
  assert.deepEqual(
    main.build.steps.map((s) => s.name),
    ['main_clone', 'say'],
    'its steps, planned once the file was read',
  );
  const ran = await admin.call('getBuildDefinition', { params: { buildId: main.build.id } });
  assert.equal(ran.yaml, pipeline('main pipeline'));

  const feature = await runBuild(fromRepo, { branch: 'feature' });
  succeeded(feature);
  assert.match(feature.log, /feature pipeline/);
  assert.equal(feature.build.definition.sha, commits['feature']);
  const described = await runSluice(['describe', 'build', feature.build.id], { env });
  assert.match(
    described.stdout,
    new RegExp(`Definition: +codefresh\\.yml in \\S+acme/repo\\.git, at ${commits['feature']}`),
  );
  for (const text of [main.log, feature.log, main.output, feature.output])
    assert.ok(!text.includes(GIT_TOKEN), 'the token is in no log');
});

test("a webhook push builds with the pushed branch's file, read at the pushed commit", async () => {
  const secret = 'webhook-secret-0123456789abcdef';
  const trigger = await admin.call('createTrigger', {
    params: { pipelineId: fromRepo },
    body: {
      kind: 'git',
      provider: 'github',
      repo: 'acme/repo',
      events: ['push'],
      secret,
      variables: { REPO_URL: repoUrl },
    },
  });
  const push = JSON.parse(
    readFileSync(join(REPO_ROOT, 'packages/triggers/test-data/webhooks/github-push.json'), 'utf8'),
  ) as {
    ref: string;
    after: string;
    head_commit: Record<string, unknown>;
    repository: Record<string, unknown>;
  };
  push.ref = 'refs/heads/feature';
  push.after = commits['feature'] ?? '';
  push.head_commit = { ...push.head_commit, id: push.after };
  push.repository = {
    ...push.repository,
    full_name: 'acme/repo',
    name: 'repo',
    owner: { login: 'acme' },
  };
  const body = JSON.stringify(push);
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  const delivered = await fetch(`${server?.url ?? ''}/api/webhooks/${trigger.id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': `push-${Date.now()}`,
      'x-hub-signature-256': `sha256=${signature}`,
    },
    body,
  });
  const answer = (await delivered.json()) as { outcome?: string; buildId?: string };
  assert.equal(answer.outcome, 'build-created', JSON.stringify(answer));
  const buildId = answer.buildId ?? '';
  await runBuildEngine(agent, buildId, {
    serverUrl: server?.url ?? '',
    spoolDir: join(dir.path, 'log-spool'),
  });
  const build = await admin.call('getBuild', { params: { buildId } });
  const log = await (await admin.raw('buildLog', { params: { buildId } })).text();
  assert.equal(build.status, 'success', `${build.reason ?? ''}\n${log}`);
  assert.match(log, /feature pipeline/);
  assert.deepEqual(
    [build.branch, build.revision, build.definition.sha],
    ['feature', commits['feature'], commits['feature']],
    'read at the pushed commit',
  );
  await admin.call('deleteTrigger', { params: { triggerId: trigger.id } });
});

test('a commit that changes the file changes the next build, with no call to the server', async () => {
  gitIn('checkout', '-q', 'main');
  writeFileSync(join(work, 'codefresh.yml'), pipeline('changed in a commit'));
  gitIn('commit', '-qam', 'change the pipeline');
  gitIn('push', '-q', join(dir.path, 'acme', 'repo.git'), 'main');
  const sha = gitIn('rev-parse', 'HEAD');
  const next = await runBuild(fromRepo, { branch: 'main' });
  succeeded(next);
  assert.match(next.log, /changed in a commit/);
  assert.equal(next.build.definition.sha, sha);

  // A restart reads the commit its build read, though the branch has moved on since.
  writeFileSync(join(work, 'codefresh.yml'), pipeline('after the restart'));
  gitIn('commit', '-qam', 'again');
  gitIn('push', '-q', join(dir.path, 'acme', 'repo.git'), 'main');
  const again = await runBuild(fromRepo, {}, next.build.id);
  succeeded(again);
  assert.equal(again.build.definition.sha, sha);
  assert.match(again.log, /changed in a commit/);
});

test('a pinned revision reads its branch whatever the build runs on; a path elsewhere in it', async () => {
  const pinned = await createFromRepo(
    'pinned',
    '--git-integration',
    'gitsrv',
    '--revision',
    'feature',
  );
  const built = await runBuild(pinned, { branch: 'main', revision: commits['main'] });
  succeeded(built);
  assert.match(built.log, /feature pipeline/);
  assert.equal(built.build.definition.sha, commits['feature']);

  elsewhere = await createFromRepo(
    'elsewhere',
    '--git-integration',
    'gitsrv',
    '--path',
    'ci/other.yml',
  );
  const moved = await runBuild(elsewhere, { branch: 'moved' });
  succeeded(moved);
  assert.match(moved.log, /elsewhere/);
});

test('a broken file fails the build at codefresh.yml:LINE:COL before any step; a missing file and a symlink say so', async () => {
  const broken = await runBuild(fromRepo, { branch: 'broken' });
  assert.equal(broken.build.status, 'failure', `${broken.log}\n${broken.output}`);
  assert.match(
    broken.build.reason ?? '',
    new RegExp(`codefresh\\.yml in \\S+ at ${commits['broken']}`),
  );
  assert.match(
    broken.build.reason ?? '',
    /codefresh\.yml:5:15: "commands" must be a string or a list/,
  );
  assert.deepEqual(broken.build.steps, [], 'no step was planned, none started');

  const missing = await runBuild(elsewhere, { branch: 'main' });
  assert.equal(missing.build.status, 'failure', missing.log);
  assert.match(
    missing.build.reason ?? '',
    /ci\/other\.yml in \S+ does not exist at main \([0-9a-f]{40}\)/,
  );

  const linked = await runBuild(fromRepo, { branch: 'linked' });
  assert.equal(linked.build.status, 'failure');
  assert.match(linked.build.reason ?? '', /is not a regular file \(git mode 120000/);
  assert.doesNotMatch(linked.log + (linked.build.reason ?? ''), /root:x:0/);

  const noBranch = await runBuild(fromRepo, { branch: 'no-such-branch' });
  assert.equal(noBranch.build.status, 'failure');
  assert.match(
    noBranch.build.reason ?? '',
    /Could not read codefresh\.yml in \S+: .*no-such-branch/,
  );
});

test("the integration's token goes to its own host only; bad sources are refused when saved", async () => {
  const project = PROJECT;
  const other = await admin.call('createPipeline', {
    params: { project },
    body: {
      name: 'other-host',
      specTemplate: {
        location: 'git',
        repo: 'https://git.elsewhere.invalid/acme/repo.git',
        path: 'codefresh.yml',
        context: 'gitsrv',
      },
    },
  });
  const refused = await runBuild(other.id, { branch: 'main' });
  assert.equal(refused.build.status, 'failure');
  assert.match(refused.build.reason ?? '', /is not on the host of git integration "gitsrv"/);
  assert.doesNotMatch(refused.log, /Cloning/, 'nothing was cloned, so nothing was sent');

  const outside = await runSluice(
    ['create', 'pipeline', `${project}/bad`, '--from-repo', repoUrl, '--path', '../../etc/passwd'],
    { env },
  );
  assert.notEqual(outside.code, 0);
  assert.match(outside.stderr, /--path: a path inside the repository/);
  await assert.rejects(
    admin.call('createPipeline', {
      params: { project },
      body: {
        name: 'option',
        specTemplate: { location: 'git', repo: '--upload-pack=touch /x', path: 'codefresh.yml' },
      },
    }),
    /owner\/name, or a clone URL/,
  );
  await assert.rejects(
    admin.call('createPipeline', {
      params: { project },
      body: {
        name: 'both',
        yaml: pipeline('x'),
        specTemplate: { location: 'git', repo: repoUrl, path: 'codefresh.yml' },
      },
    }),
    /not both/,
  );
});

test("a repository reached over SSH with the integration's key is read the same way, the key never shown", async () => {
  const ssh = await startGitSshServer({ root: dir.path });
  try {
    await admin.call('createGitIntegration', {
      body: {
        name: 'gitssh',
        kind: 'git',
        url: `ssh://${await dockerHostAddress()}:${ssh.port}`,
        sshKey: ssh.clientKey,
      },
    });
    const url = ssh.urlVia(await dockerHostAddress(), 'acme/repo.git');
    const overSsh = await createFromRepoUrl('over-ssh', url, '--git-integration', 'gitssh');
    const built = await runBuild(overSsh, { branch: 'feature' });
    assert.equal(built.build.status, 'success', `${built.build.reason ?? ''}\n${built.log}`);
    assert.match(built.log, /feature pipeline/);
    assert.equal(built.build.definition.sha, commits['feature']);
    assert.match(ssh.log(), /Accepted publickey for root/);
    const keyBody = ssh.clientKey.split('\n')[2] ?? '';
    assert.ok(keyBody.length > 20 && !built.log.includes(keyBody), 'the log shows the SSH key');
  } finally {
    await ssh.close();
  }
});

test('run-pipeline --local-file runs a file once in place of the definition; its problems at its lines', async () => {
  const file = join(dir.path, 'trying.yml');
  writeFileSync(
    file,
    'version: "1.0"\nsteps:\n  say:\n    image: sluice/busybox:1\n    commands: [\'echo "tried before pushing"\']\n',
  );
  const started = await runSluice(
    [
      'run-pipeline',
      `${PROJECT}/from-repo`,
      '-b',
      'main',
      '--var',
      `REPO_URL=${repoUrl}`,
      '--local-file',
      file,
      '--detach',
    ],
    { env },
  );
  assert.equal(started.code, 0, started.stderr);
  const buildId = started.stdout.trim();
  await runBuildEngine(agent, buildId, {
    serverUrl: server?.url ?? '',
    spoolDir: join(dir.path, 'log-spool'),
  });
  const build = await admin.call('getBuild', { params: { buildId } });
  const log = await (await admin.raw('buildLog', { params: { buildId } })).text();
  assert.equal(build.status, 'success', `${build.reason ?? ''}\n${log}`);
  assert.match(log, /tried before pushing/);
  assert.equal(build.definition.location, 'inline', 'the file, not the repository');

  writeFileSync(file, BROKEN);
  const before = (await admin.call('listBuilds', { query: { limit: 100 } })).items.length;
  const refused = await runSluice(
    ['run-pipeline', `${PROJECT}/from-repo`, '--local-file', file, '--detach'],
    { env },
  );
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, new RegExp(`${file}:5:15: "commands" must be a string or a list`));
  const after = (await admin.call('listBuilds', { query: { limit: 100 } })).items.length;
  assert.equal(after, before, 'no build was made');
});

test('in the web UI a build shows the file, commit and YAML it ran; a pipeline switches between stored YAML and its repository', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const url = server?.url ?? '';
    await page.goto(url);
    await page.getByText('Use an API token instead').click();
    await page.fill('#token', TOKEN);
    await page.getByRole('button', { name: 'Sign in with the token' }).click();
    await page.getByRole('heading', { name: 'Builds' }).waitFor();

    await page.goto(`${url}/builds/${mainBuild.id}`);
    const facts = page.locator('dl.facts');
    await facts.getByText('The YAML it ran').click();
    const sha = (commits['main'] ?? '').slice(0, 7);
    assert.match(
      await facts.innerText(),
      new RegExp(`Definition\\s+codefresh\\.yml in \\S+/acme/repo\\.git at ${sha}`),
    );
    assert.match(await facts.locator('.definition-yaml pre').innerText(), /echo "main pipeline"/);

    await page.goto(`${url}/pipelines/${fromRepo}`);
    await page
      .getByText(
        /Each build reads codefresh\.yml from \S+ at its own commit, with git integration gitsrv/,
      )
      .waitFor();
    assert.ok(await page.getByLabel('In the repository, read by each build').isChecked());
    await page.getByLabel('Stored here').check();
    const note = page.getByRole('note');
    assert.match(await note.innerText(), /Saving below replaces the repository source/);
    await page.getByLabel('Pipeline YAML').fill(pipeline('stored now'));
    await page
      .getByRole('form', { name: 'Edit YAML' })
      .getByRole('button', { name: 'Save' })
      .click();
    await note.waitFor({ state: 'detached' });
    const stored = await admin.call('getPipeline', { params: { pipelineId: fromRepo } });
    assert.deepEqual([stored.specTemplate, stored.yaml], [null, pipeline('stored now')]);

    await page.getByLabel('In the repository, read by each build').check();
    const form = page.getByRole('form', { name: 'Repository source' });
    await form.getByLabel('Repository').fill(repoUrl);
    await form.getByLabel('Path in it').fill('ci/other.yml');
    await form.getByLabel('Revision').fill('moved');
    await form.getByLabel('Git integration').selectOption('gitsrv');
    await form.getByRole('button', { name: 'Save' }).click();
    await page
      .getByText(/Each build reads ci\/other\.yml from \S+ at moved, with git integration gitsrv/)
      .waitFor();
    const back = await admin.call('getPipeline', { params: { pipelineId: fromRepo } });
    assert.deepEqual(back.specTemplate, {
      location: 'git',
      repo: repoUrl,
      path: 'ci/other.yml',
      revision: 'moved',
      context: 'gitsrv',
    });
  } finally {
    await browser.close();
  }
});
