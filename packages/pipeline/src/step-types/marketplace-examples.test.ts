/**
 * Sluice's versions of Codefresh's marketplace steps in `step-types/`: a pipeline written for
 * Codefresh names them with Codefresh's versions (or none) and Codefresh's arguments, and gets
 * ours; an account's own step type that Sluice does not have is still "not found", and one that
 * only works against Codefresh's services is accepted and named as not run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePipeline } from '../parse-pipeline.js';
import { expandTypedStep } from './expand-typed-step.js';
import { loadStepTypeCatalog } from './load-step-type-catalog.js';
import { STEP_TYPE_ISSUE_CODES } from './step-type-codes.js';

const EXAMPLES = fileURLToPath(new URL('../../../../step-types/', import.meta.url));
const catalog = loadStepTypeCatalog([EXAMPLES], { fs });

/** Codefresh's newest versions when these were written, and the arguments each requires. */
const CODEFRESH_VERSIONS: Record<string, [string, Record<string, unknown>]> = {
  helm: ['1.1.12', {}],
  'git-commit': ['0.2.0', { repo: 'acme/app', git: 'github' }],
  'codecov-reporter': ['2.1.0', { codecov_integration: 'codecov' }],
  'codefresh-run': ['1.6.0', { PIPELINE_ID: 'web/app' }],
  'github-pr': ['0.0.7', { GITHUB_TOKEN: 't', GITHUB_REPO_OWNER: 'o', GITHUB_REPO_NAME: 'r' }],
  'slack-message-sender': ['0.0.6', { WEBHOOK_URL: 'https://hooks.slack.com/x', MESSAGE: 'm' }],
  'bump-build-number': ['1.0.5', {}],
};

function expand(type: string, args: unknown) {
  const reported: { message: string; code?: string; severity?: string }[] = [];
  const reporter = {
    report: (_path: unknown, message: string, options?: { code?: string; severity?: string }) =>
      reported.push({ message, ...options }),
  };
  const input = { stepName: 's', path: ['steps', 's'], type, arguments: args };
  return { result: expandTypedStep(input, catalog, reporter), reported };
}

function step(type: string, args: unknown, name: string): Record<string, unknown> {
  const { result, reported } = expand(type, args);
  assert.ok(result, JSON.stringify(reported));
  return result.steps[name] as Record<string, unknown>;
}

test('each marketplace name resolves to ours with Codefresh’s version, with a warning, or with none', () => {
  for (const [name, [version, args]] of Object.entries(CODEFRESH_VERSIONS)) {
    const pinned = expand(`${name}:${version}`, args);
    assert.equal(pinned.result?.stepType ?? pinned.reported[0]?.message, `${name}:1.0.0`);
    assert.deepEqual(
      pinned.reported.map((r) => [r.code, r.severity]),
      [[STEP_TYPE_ISSUE_CODES.standIn, 'warning']],
      name,
    );
    const bare = expand(name, args);
    assert.equal(bare.result?.stepType, `${name}:1.0.0`);
    assert.deepEqual(
      bare.reported.map((r) => r.code),
      [STEP_TYPE_ISSUE_CODES.unpinned],
    );
  }
});

test('a Codefresh pipeline using them validates with their arguments as Codefresh documents them', () => {
  const yaml = `
version: '1.0'
steps:
  deploy:
    type: helm:1.1.12
    arguments:
      action: install
      chart_name: charts/app
      release_name: app
      namespace: prod
      kube_context: prod-cluster
      custom_values: ['image_tag=\${{CF_SHORT_REVISION}}', 'pat.arr="{one,two}"']
      custom_value_files: [charts/app/values-prod.yaml]
      cmd_ps: --atomic
  commit:
    type: git-commit
    arguments:
      repo: acme/app
      git: github
      commit_message: 'chore: bump [skip ci]'
      add: [charts/app/Chart.yaml, CHANGELOG.md]
  coverage:
    type: codecov-reporter
    arguments: { codecov_integration: codecov }
  child:
    type: codefresh-run:1.3.1
    arguments:
      PIPELINE_ID: web/deploy
      BRANCH: \${{CF_BRANCH}}
      VARIABLE: [IMAGE=app:1, ENV=prod]
  pr:
    type: github-pr
    arguments:
      GITHUB_TOKEN: \${{GITHUB_TOKEN}}
      GITHUB_REPO_OWNER: acme
      GITHUB_REPO_NAME: app
      HEAD: release
      BASE: main
      TITLE: Release
  notify:
    type: slack-message-sender
    arguments: { WEBHOOK_URL: '\${{SLACK_WEBHOOK_URL}}', MESSAGE: done }
  bump:
    type: bump-build-number
`;
  const parsed = parsePipeline(yaml, { file: 'codefresh.yml', stepTypes: catalog });
  const errors = parsed.issues.filter((i) => i.severity === 'error');
  assert.deepEqual(errors, []);
  assert.ok(parsed.ok);
});

test('their arguments are checked like any step type’s: a typo has a suggestion', () => {
  const { result, reported } = expand('git-commit:0.2.0', {
    repo: 'acme/app',
    git: 'github',
    commit_mesage: 'x',
  });
  assert.equal(result, undefined);
  assert.deepEqual(
    reported.filter((r) => r.severity !== 'warning').map((r) => r.message),
    ['Step type "git-commit" has no argument "commit_mesage"; did you mean "commit_message"?'],
  );
});

test('an account’s own step type that Sluice does not have is still "not found, here is how"', () => {
  const { result, reported } = expand('acme/deploy-to-prod:1.0.0', {});
  assert.equal(result, undefined);
  assert.match(
    reported[0]?.message ?? '',
    /^Step type "acme\/deploy-to-prod" was not found; .*to add it/,
  );
});

test('codefresh-report-image is accepted and named as not run, with why; the build stops before its first step', () => {
  const text = [
    "version: '1.0'",
    'steps:',
    '  report:',
    '    type: codefresh-report-image:1.0.10',
    '    arguments: {CF_IMAGE: app:1, CF_GIT_BRANCH: main}',
    '  test:',
    '    image: alpine',
  ].join('\n');
  const result = parsePipeline(text, { stepTypes: catalog });
  assert.ok(result.ok, JSON.stringify(result.issues));
  assert.deepEqual(
    result.pipeline.notRun.map((n) => [n.line, n.column, n.effect, n.message]),
    [
      [
        4,
        11,
        'fails',
        'Step type "codefresh-report-image" is not run by Sluice: it reports an image and its git and Jira facts to Codefresh\'s GitOps image dashboard, which Sluice does not have; keep such facts on the build with the step\'s on_success annotations or metadata; the build stops before its first step',
      ],
    ],
  );
});

test('helm: alpine/helm at helm_version, or the image given; the arguments reach jq as JSON', () => {
  const install = { chart_name: './chart', release_name: 'app' };
  assert.equal(step('helm', install, 'helm').image, 'alpine/helm:3.14.4');
  assert.equal(
    step('helm', { ...install, helm_version: '3.0.3' }, 'helm').image,
    'alpine/helm:3.0.3',
  );
  assert.equal(step('helm', { ...install, image: 'mirror/helm:3' }, 'helm').image, 'mirror/helm:3');
  const prepare = step('helm', { ...install, custom_values: ['a_b=1'] }, 'prepare');
  assert.equal(prepare.image, 'sluice/http:1');
  assert.ok((prepare.environment as string[]).includes('SLUICE_HELM_VALUES=["a_b=1"]'));
});

test('codefresh-run: arguments with no effect are named, those that change the run are refused', () => {
  const run = step(
    'codefresh-run',
    { PIPELINE_ID: 'web/app', NO_CACHE: true, TRIGGER_ID: 't', SKIP: ['x'], YAML: 'f.yml' },
    'run',
  );
  const env = run.environment as string[];
  assert.ok(env.includes('SLUICE_RUN_REFUSED=SKIP YAML'), env.join('\n'));
  assert.ok(env.includes('SLUICE_RUN_IGNORED=TRIGGER_ID NO_CACHE '), env.join('\n'));
  assert.ok(env.includes('SLUICE_API_URL=${{CF_URL}}'));
  assert.ok(env.includes('SLUICE_API_TOKEN=${{CF_API_KEY}}'));
});
