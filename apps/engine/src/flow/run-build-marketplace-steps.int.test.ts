/**
 * The marketplace step types of step-types/ (Codefresh's names and arguments, written for
 * Sluice), each run by a real build on the real Docker engine against a real service the test
 * starts: an HTTP receiver for slack-message-sender, github-pr and codecov-reporter, private git
 * servers over HTTP and SSH (testkit's) for git-commit, cloned with a git integration. Each names
 * a Codefresh version Sluice does not have, as pipelines written for Codefresh do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStepTypeCatalog } from '@sluice/pipeline';
import {
  createGitRepo,
  dockerHostAddress,
  makeTempDir,
  runCommand,
  startGitHttpServer,
  startGitSshServer,
} from '@sluice/testkit';
import { useBuildHarness, pipelineFrom, stepSummary } from './build-harness.test-support.js';
import type { RecordedBuild } from './build-harness.test-support.js';
import { startReceiver } from './marketplace-services.test-support.js';
import type { RecordedRequest } from './marketplace-services.test-support.js';

const harness = useBuildHarness();
const STEP_TYPES = fileURLToPath(new URL('../../../../step-types', import.meta.url));
const catalog = loadStepTypeCatalog([STEP_TYPES], { fs });
const GIT_TOKEN = 'git-push-token-5s8Kq2';

function pipeline(yaml: string) {
  return pipelineFrom(yaml, { stepTypes: catalog });
}

/** Every log line of the build, whatever step or stream. */
function allLines(build: RecordedBuild): string[] {
  return build.events.flatMap((e) => (e.type === 'step-log' ? [e.line] : []));
}

function json(request: RecordedRequest | undefined): unknown {
  assert.ok(request, 'no request');
  return JSON.parse(request.body) as unknown;
}

test('slack-message-sender posts the message as JSON to the webhook, whose URL is not shown', async (t) => {
  const slack = await startReceiver(() => ({ body: 'ok' }));
  t.after(() => slack.close());
  const yaml = `
version: '1.0'
steps:
  notify:
    type: slack-message-sender:0.0.6
    arguments:
      WEBHOOK_URL: \${{SLACK_WEBHOOK}}
      MESSAGE: "Build of \${{CF_BRANCH}} says \\"done\\"\\nand 'more' $HOME"
`;
  const build = await harness().run(pipeline(yaml), {
    facts: { pipelineName: 'slack', branch: 'main' },
    secrets: { SLACK_WEBHOOK: `${slack.url}/services/T000/B000/s3cr3t` },
  });
  assert.equal(build.summary.result, 'success', build.summary.reason);
  assert.deepEqual(
    slack.requests.map((r) => `${r.method} ${r.url} ${r.headers['content-type']}`),
    ['POST /services/T000/B000/s3cr3t application/json'],
  );
  assert.deepEqual(json(slack.requests[0]), {
    text: `Build of main says "done"\nand 'more' $HOME`,
  });
  assert.ok(allLines(build).includes('Slack accepted the message: ok'), allLines(build).join('\n'));
  assert.ok(!allLines(build).some((l) => l.includes('s3cr3t')), 'the webhook URL was logged');
});

test('github-pr creates a pull request, closes it by the number it exported, and fails with GitHub’s reason', async (t) => {
  const github = await startReceiver((request) => {
    if (request.method === 'PUT')
      return { status: 405, body: '{"message":"Pull Request is not mergeable"}' };
    const html_url = 'https://github.example/acme/app/pull/42';
    return {
      status: request.method === 'POST' ? 201 : 200,
      body: JSON.stringify({ number: 42, html_url }),
    };
  });
  t.after(() => github.close());
  const common = `
      GITHUB_TOKEN: \${{GH_TOKEN}}
      GITHUB_REPO_OWNER: acme
      GITHUB_REPO_NAME: app
      GITHUB_API_URL: ${github.url}/api/v3`;
  const yaml = `
version: '1.0'
steps:
  open_pr:
    type: github-pr:0.0.7
    arguments:${common}
      HEAD: feature/x
      BASE: main
      TITLE: 'Add "x"'
  close_pr:
    type: github-pr
    arguments:${common}
      GITHUB_PR_OPERATION: close
      GITHUB_PR_NUMBER: \${{GITHUB_PR_NUMBER}}
  merge_pr:
    type: github-pr
    fail_fast: false
    arguments:${common}
      GITHUB_PR_OPERATION: merge
      GITHUB_PR_NUMBER: '42'
`;
  const build = await harness().run(pipeline(yaml), {
    facts: { pipelineName: 'github' },
    secrets: { GH_TOKEN: 'ghp_test-token' },
  });
  assert.deepEqual(
    github.requests.map((r) => `${r.method} ${r.url}`),
    [
      'POST /api/v3/repos/acme/app/pulls',
      'PATCH /api/v3/repos/acme/app/pulls/42',
      'PUT /api/v3/repos/acme/app/pulls/42/merge',
    ],
  );
  for (const request of github.requests) {
    assert.equal(request.headers.authorization, 'Bearer ghp_test-token');
    assert.equal(request.headers.accept, 'application/vnd.github+json');
  }
  assert.deepEqual(json(github.requests[0]), { title: 'Add "x"', head: 'feature/x', base: 'main' });
  assert.deepEqual(json(github.requests[1]), { state: 'closed' });
  assert.equal(stepSummary(build, 'open_pr').result, 'success');
  assert.equal(stepSummary(build, 'close_pr').result, 'success');
  assert.equal(stepSummary(build, 'merge_pr').result, 'failure');
  const lines = allLines(build);
  assert.ok(lines.includes('Pull request #42 (create): https://github.example/acme/app/pull/42'));
  assert.ok(
    lines.includes('github-pr: GitHub answered 405 to merge: Pull Request is not mergeable'),
  );
  assert.ok(!lines.some((l) => l.includes('ghp_test-token')), 'the token was logged');
});

test('codecov-reporter uploads the reports it finds to Codecov’s v4 API with the token and commit', async (t) => {
  const codecov = await startReceiver((request, url) =>
    request.method === 'POST'
      ? { body: `https://codecov.example/acme/app/commit/abc\n${url}/storage/upload-1` }
      : {},
  );
  t.after(() => codecov.close());
  const yaml = `
version: '1.0'
steps:
  test:
    image: sluice/busybox:1
    commands:
      - mkdir -p /codefresh/volume/app/build
      - printf '<coverage line-rate="0.5"/>\\n' > /codefresh/volume/app/build/coverage.xml
      - printf 'TN:\\nSF:src/a.js\\nend_of_record\\n' > /codefresh/volume/app/lcov.info
  upload:
    type: codecov-reporter:2.1.0
    arguments:
      codecov_integration: codecov
      codecov_url: ${codecov.url}
      codecov_token: \${{CODECOV_TOKEN}}
      working_directory: /codefresh/volume/app
      flags: unit
`;
  const revision = 'a'.repeat(40);
  const build = await harness().run(pipeline(yaml), {
    facts: {
      pipelineName: 'codecov',
      branch: 'main',
      revision,
      repoOwner: 'acme',
      repoName: 'app',
    },
    secrets: { CODECOV_TOKEN: 'cc-upload-token' },
  });
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const [post, put] = codecov.requests;
  assert.ok(post && put, `requests: ${codecov.requests.map((r) => r.url).join(', ')}`);
  const query = new URL(post.url, 'http://x').searchParams;
  assert.equal(post.method, 'POST');
  assert.equal(new URL(post.url, 'http://x').pathname, '/upload/v4');
  assert.equal(post.headers.authorization, 'token cc-upload-token');
  assert.deepEqual(
    ['commit', 'branch', 'slug', 'flags', 'service'].map((k) => query.get(k)),
    [revision, 'main', 'acme/app', 'unit', 'custom'],
  );
  assert.equal(`${put.method} ${put.url}`, 'PUT /storage/upload-1');
  assert.equal(
    put.body,
    [
      '<<<<<< network',
      '# path=build/coverage.xml',
      '<coverage line-rate="0.5"/>',
      '<<<<<< EOF',
      '# path=lcov.info',
      'TN:',
      'SF:src/a.js',
      'end_of_record',
      '<<<<<< EOF',
      '',
    ].join('\n'),
  );
  assert.ok(!allLines(build).some((l) => l.includes('cc-upload-token')), 'the token was logged');
});

test('git-commit commits the changes of a clone made with a git integration and pushes them with the token it is given', async (t) => {
  const dir = await makeTempDir('sluice-git-commit-');
  t.after(() => dir.cleanup());
  const repo = await createGitRepo({
    files: { 'README.md': '# app\n' },
    dir: join(dir.path, 'acme'),
  });
  const git = await startGitHttpServer({ root: dir.path, username: 'bot', password: GIT_TOKEN });
  t.after(() => git.close());
  const hostUrl = git.urlVia(await dockerHostAddress());
  // As in Codefresh: the clone and the commit name the same integration.
  const gitIntegrations = [
    { name: 'github', kind: 'git' as const, url: hostUrl, username: 'bot', token: GIT_TOKEN },
  ];
  const yaml = (token: string) => `
version: '1.0'
steps:
  clone:
    type: git-clone
    repo: acme/repo
    git: github
    revision: main
  generate:
    image: sluice/busybox:1
    working_directory: \${{clone}}
    commands: ['echo "generated by \${{CF_BUILD_ID}}" > generated.txt']
  commit:
    type: git-commit:0.2.0
    arguments:
      repo: acme/repo
      git: github
      commit_message: 'chore: regenerate "files"'
      git_user_name: Sluice Bot
      git_user_email: bot@sluice.test
      working_directory: \${{clone}}
      git_username: bot
      git_token: ${token}
`;
  const build = await harness().run(pipeline(yaml('${{GIT_TOKEN}}')), {
    facts: { pipelineName: 'git-commit', branch: 'main' },
    secrets: { GIT_TOKEN },
    gitIntegrations,
  });
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const log = await runCommand('git', [
    `--git-dir=${repo.path}`,
    'log',
    '-1',
    '--format=%s|%an|%ae',
    'main',
  ]);
  assert.equal(log.stdout.trim(), 'chore: regenerate "files"|Sluice Bot|bot@sluice.test');
  const file = await runCommand('git', [`--git-dir=${repo.path}`, 'show', 'main:generated.txt']);
  assert.equal(file.stdout, `generated by ${build.buildId}\n`);
  const pushes = git.requests.filter((r) => r.url.includes('git-receive-pack'));
  assert.ok(
    pushes.some((r) => r.auth === 'accepted'),
    JSON.stringify(pushes),
  );
  assert.ok(!allLines(build).some((l) => l.includes(GIT_TOKEN)), 'the token was logged');

  const wrong = await harness().run(pipeline(yaml('not-the-token')), {
    facts: { pipelineName: 'git-commit', branch: 'main' },
    secrets: { GIT_TOKEN },
    gitIntegrations,
  });
  assert.equal(stepSummary(wrong, 'clone').result, 'success');
  assert.equal(stepSummary(wrong, 'commit').result, 'failure');
  assert.ok(git.requests.some((r) => r.url.includes('git-receive-pack') && r.auth === 'refused'));
  const refusal = allLines(wrong).join('\n');
  assert.match(refusal, /Authentication failed|401/);
  assert.match(
    refusal,
    /git-commit: the push to main was refused \(see git's reason above\); check git_token, the credentials Sluice uses for git integration 'github'/,
  );
});

test('git-commit with use_ssh pushes over SSH with the key of the git integration it names, which is never shown; without a key it says so', async (t) => {
  const dir = await makeTempDir('sluice-git-commit-ssh-');
  t.after(() => dir.cleanup());
  const repo = await createGitRepo({
    files: { 'README.md': '# app\n' },
    dir: join(dir.path, 'acme'),
  });
  const ssh = await startGitSshServer({ root: dir.path });
  t.after(() => ssh.close());
  const url = ssh.urlVia(await dockerHostAddress(), 'acme/repo.git');
  const gitIntegrations = [
    { name: 'box', kind: 'git' as const, url: '', sshKey: ssh.clientKey },
    { name: 'web', kind: 'git' as const, url: 'https://git.test', token: GIT_TOKEN },
  ];
  const commit = (git: string, dir = '${{clone}}') => `
  commit:
    type: git-commit:0.2.0
    arguments:
      repo: acme/repo
      git: ${git}
      use_ssh: true
      commit_message: 'chore: over ssh'
      working_directory: ${dir}`;
  const build = await harness().run(
    pipeline(`
version: '1.0'
steps:
  clone: { type: git-clone, repo: '${url}', git: box, revision: main }
  generate:
    image: sluice/busybox:1
    working_directory: \${{clone}}
    commands: ['echo "made by \${{CF_BUILD_ID}}" > made.txt']
${commit('box')}
`),
    { facts: { pipelineName: 'git-commit-ssh', branch: 'main' }, gitIntegrations },
  );
  assert.equal(build.summary.result, 'success', build.summary.reason);
  const file = await runCommand('git', [`--git-dir=${repo.path}`, 'show', 'main:made.txt']);
  assert.equal(file.stdout, `made by ${build.buildId}\n`);
  const subject = await runCommand('git', [`--git-dir=${repo.path}`, 'log', '-1', '--format=%s']);
  assert.equal(subject.stdout.trim(), 'chore: over ssh');
  // The clone's login and the push's.
  assert.equal(ssh.log().match(/Accepted publickey for root/g)?.length, 2, ssh.log());
  const keyBody = ssh.clientKey.split('\n')[2] ?? '';
  assert.ok(keyBody.length > 20 && !allLines(build).some((l) => l.includes(keyBody)), 'key shown');

  // An integration with a token only: use_ssh fails naming it, before touching the repository.
  const noKey = await harness().run(
    pipeline(`
version: '1.0'
steps:
${commit('web', '/codefresh/volume')}
`),
    { facts: { pipelineName: 'git-commit-ssh', branch: 'main' }, gitIntegrations },
  );
  assert.equal(stepSummary(noKey, 'commit').result, 'failure');
  assert.match(
    allLines(noKey).join('\n'),
    /git-commit: use_ssh needs an SSH key, and git integration 'web' has none here/,
  );
});

// No helm image can be built or pulled here: the commands helm would run are checked, and the
// helm step, given an image without helm, fails saying so rather than pretending.
test('helm builds quoted helm commands from Codefresh’s arguments; without helm in the image the step fails', async () => {
  const yaml = `
version: '1.0'
steps:
  deploy:
    type: helm:1.1.12
    arguments:
      chart_name: ./charts/app
      release_name: web
      namespace: prod
      chart_repo_url: https://charts.example.com
      custom_values: ['image_tag=1.2.3', 'ingress__class=nginx', 'note=a b "c" $HOME']
      custom_value_files: [values-prod.yaml]
      wait: true
      timeout: '300'
      kubeconfig: \${{KUBECONFIG_CONTENT}}
      image: sluice/busybox:1
`;
  const build = await harness().run(pipeline(yaml), {
    facts: { pipelineName: 'helm' },
    secrets: { KUBECONFIG_CONTENT: 'apiVersion: v1\nkind: Config' },
  });
  assert.equal(stepSummary(build, 'deploy_prepare').result, 'success');
  assert.equal(stepSummary(build, 'deploy_helm').result, 'failure');
  const prepared = build.events.flatMap((e) =>
    e.type === 'step-log' && e.step === 'deploy_prepare' && e.stream === 'stdout' ? [e.line] : [],
  );
  assert.deepEqual(prepared, [
    'helm will run:',
    '  set -e',
    "  'helm' 'repo' 'add' 'remote' 'https://charts.example.com'",
    '  helm repo update',
    "  if [ -f './charts/app'/Chart.lock ]; then helm dependency build './charts/app'; fi",
    "  'helm' 'upgrade' '--install' 'web' './charts/app' '--namespace' 'prod' '--values' 'values-prod.yaml' '--set' 'image.tag=1.2.3' '--set' 'ingress_class=nginx' '--set' 'note=a b \"c\" $HOME' '--wait' '--timeout' '300s' $SLUICE_HELM_CMD_PS",
  ]);
  const failed = allLines(build).filter((l) => /helm/.test(l) && /not found/.test(l));
  assert.ok(failed.length > 0, allLines(build).join('\n'));
});
