/**
 * The step types shipped in `step-types/` at the repository root: each parses, its schema takes
 * a good argument set and refuses a bad one, and it expands into the steps expected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IssuePath } from '../pipeline-issue.js';
import { expandTypedStep } from './expand-typed-step.js';
import { loadStepTypeCatalog } from './load-step-type-catalog.js';
import { parseStepTypeDocument } from './parse-step-type-document.js';
import type { StepTypeDocument } from './parse-step-type-document.js';
import { validateArguments } from './validate-arguments.js';

const EXAMPLES = fileURLToPath(new URL('../../../../step-types/', import.meta.url));
const catalog = loadStepTypeCatalog([EXAMPLES], { fs });

function document(name: string): StepTypeDocument {
  const found = catalog.find(name);
  assert.ok(found, `${name} is not in ${EXAMPLES}`);
  const parsed = parseStepTypeDocument(found.text, found.source);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.deepEqual(parsed.warnings, []);
  return parsed.definition;
}

function expand(type: string, args: unknown) {
  const reported: string[] = [];
  const reporter = {
    report: (path: IssuePath, message: string) => reported.push(`${path.join('.')}: ${message}`),
  };
  const input = { stepName: 's', path: ['steps', 's'], type, arguments: args };
  return { result: expandTypedStep(input, catalog, reporter), reported };
}

function problems(name: string, args: unknown): string[] {
  const doc = document(name);
  return validateArguments(doc.argumentsSchema, args, { stepType: name }).problems.map(
    (p) => p.message,
  );
}

test('every file in step-types/ is a valid step type: ours, and the marketplace stand-ins', () => {
  assert.deepEqual(catalog.problems, []);
  const names = catalog.list().map((d) => `${d.name}:${d.version}`);
  assert.deepEqual(names.sort(), [
    'bump-build-number:1.0.0',
    'codecov-reporter:1.0.0',
    'codefresh-run:1.0.0',
    'git-commit:1.0.0',
    'github-pr:1.0.0',
    'helm:1.0.0',
    'slack-message-sender:1.0.0',
    'sluice/git-commit-push:1.0.0',
    'sluice/kubectl-apply:1.0.0',
    'sluice/webhook-notify:1.0.0',
  ]);
  for (const definition of catalog.list()) {
    const parsed = parseStepTypeDocument(definition.text, definition.source);
    assert.ok(parsed.ok, `${definition.source}: ${JSON.stringify(parsed)}`);
  }
});

test('git-commit-push: takes a message and a branch, refuses a branch name git would refuse', () => {
  assert.deepEqual(problems('sluice/git-commit-push', { MESSAGE: 'm', BRANCH: 'feature/x' }), []);
  assert.deepEqual(
    problems('sluice/git-commit-push', { MESSAGE: '', BRANCH: 'a b', FORCED: true }),
    [
      'Argument "MESSAGE" of step type "sluice/git-commit-push" must be at least 1 character long, got a string ("")',
      'Argument "BRANCH" of step type "sluice/git-commit-push" must match /^[^\\s~^:?*\\[\\\\]+$/, got a string ("a b")',
      'Step type "sluice/git-commit-push" has no argument "FORCED"; did you mean "FORCE"?',
    ],
  );
});

test('git-commit-push: expands into one git step, arguments passed only as environment', () => {
  const { result, reported } = expand('sluice/git-commit-push:1.0.0', {
    MESSAGE: 'fix: "quoted" $HOME\nsecond line',
    BRANCH: '${{CF_BRANCH}}',
    GIT_PASSWORD: '${{GIT_TOKEN}}',
    FORCE: true,
  });
  assert.deepEqual(reported, []);
  assert.equal(result?.stepType, 'sluice/git-commit-push:1.0.0');
  const step = result?.steps.commit_and_push as Record<string, unknown>;
  assert.deepEqual(Object.keys(result?.steps ?? {}), ['commit_and_push']);
  assert.equal(step.image, 'sluice/git:1');
  assert.equal(step.title, 'Commit and push to ${{CF_BRANCH}}');
  assert.deepEqual(step.environment, [
    'SLUICE_GIT_MESSAGE=fix: "quoted" $HOME\nsecond line',
    'SLUICE_GIT_BRANCH=${{CF_BRANCH}}',
    'SLUICE_GIT_REPO_DIR=.',
    'SLUICE_GIT_REMOTE=origin',
    'SLUICE_GIT_ADD=.',
    'SLUICE_GIT_USERNAME=',
    'SLUICE_GIT_PASSWORD=${{GIT_TOKEN}}',
    'GIT_AUTHOR_NAME=Sluice',
    'GIT_AUTHOR_EMAIL=sluice@localhost',
    'GIT_COMMITTER_NAME=Sluice',
    'GIT_COMMITTER_EMAIL=sluice@localhost',
    'SLUICE_GIT_COMMIT_FLAGS=',
    'SLUICE_GIT_PUSH_FLAGS=--force-with-lease',
  ]);
  const commands = (step.commands as string[]).join('\n');
  assert.doesNotMatch(commands, /\[\[|\$\{\{/, 'placeholders or variables left in the commands');
  assert.match(
    commands,
    /push \$SLUICE_GIT_PUSH_FLAGS "\$SLUICE_GIT_REMOTE" "HEAD:refs\/heads\/\$SLUICE_GIT_BRANCH"/,
  );
});

test('webhook-notify: takes a URL and a text, refuses a URL that is not http(s)', () => {
  const good = { URL: '${{SLACK_WEBHOOK_URL}}', TEXT: 'Build ${{CF_BUILD_ID}} passed' };
  assert.deepEqual(problems('sluice/webhook-notify', good), []);
  assert.deepEqual(problems('sluice/webhook-notify', { URL: 'ftp://x', TIMEOUT_SECONDS: 0 }), [
    'Step type "sluice/webhook-notify" requires argument "TEXT"',
    'Argument "URL" of step type "sluice/webhook-notify" must match /^https?:\\/\\/[^\\s]+$/, got a string ("ftp://x")',
    'Argument "TIMEOUT_SECONDS" of step type "sluice/webhook-notify" must be at least 1, got a number (0)',
  ]);
});

test('webhook-notify: expands into one busybox step with the message in the environment', () => {
  const { result, reported } = expand('sluice/webhook-notify:1.0.0', {
    URL: 'https://hooks.example.com/T0/B0/x',
    TEXT: 'Build "${{CF_BUILD_ID}}"\ndone',
    CHANNEL: '#ci',
    FAIL_ON_ERROR: false,
  });
  assert.deepEqual(reported, []);
  const step = result?.steps.notify as Record<string, unknown>;
  assert.equal(step.image, 'sluice/busybox:1');
  assert.deepEqual(step.environment, [
    'SLUICE_WEBHOOK_URL=https://hooks.example.com/T0/B0/x',
    'SLUICE_WEBHOOK_TEXT=Build "${{CF_BUILD_ID}}"\ndone',
    'SLUICE_WEBHOOK_CHANNEL=#ci',
    'SLUICE_WEBHOOK_USERNAME=',
    'SLUICE_WEBHOOK_AUTHORIZATION=',
    'SLUICE_WEBHOOK_TIMEOUT=30',
    'SLUICE_WEBHOOK_FAIL=',
  ]);
  assert.match(
    (step.commands as string[]).join('\n'),
    /wget -q -O - "\$@" --post-data "\$payload"/,
  );
});

test('kubectl-apply: the image is an argument with a default; DRY_RUN is one of three', () => {
  assert.deepEqual(problems('sluice/kubectl-apply', { MANIFESTS: 'k8s/' }), []);
  assert.deepEqual(problems('sluice/kubectl-apply', { MANIFESTS: 'k8s/', DRY_RUN: true }), [
    'Argument "DRY_RUN" of step type "sluice/kubectl-apply" must be a string, got a boolean (true)',
  ]);
  assert.deepEqual(problems('sluice/kubectl-apply', { DRY_RUN: 'yes' }), [
    'Step type "sluice/kubectl-apply" requires argument "MANIFESTS"',
    'Argument "DRY_RUN" of step type "sluice/kubectl-apply" must be one of "none", "client", "server", got a string ("yes")',
  ]);
  const defaults = expand('sluice/kubectl-apply:1.0.0', { MANIFESTS: 'k8s/' });
  const step = defaults.result?.steps.apply as Record<string, unknown>;
  assert.equal(step.image, 'sluice/kubectl:1');
  const mine = expand('sluice/kubectl-apply:1.0.0', {
    MANIFESTS: 'k8s/a.yaml,k8s/b.yaml',
    KUBECONFIG: '${{KUBECONFIG_CONTENT}}',
    NAMESPACE: 'prod',
    RECURSIVE: true,
    SERVER_SIDE: true,
    IMAGE: 'registry.local/kubectl:1.31',
  });
  const custom = mine.result?.steps.apply as Record<string, unknown>;
  assert.equal(custom.image, 'registry.local/kubectl:1.31');
  assert.equal(custom.title, 'kubectl apply -f k8s/a.yaml,k8s/b.yaml');
  assert.deepEqual(custom.environment, [
    'SLUICE_KUBE_MANIFESTS=k8s/a.yaml,k8s/b.yaml',
    'SLUICE_KUBECONFIG_CONTENT=${{KUBECONFIG_CONTENT}}',
    'SLUICE_KUBECONFIG_PATH=',
    'SLUICE_KUBE_CONTEXT=',
    'SLUICE_KUBE_NAMESPACE=prod',
    'SLUICE_KUBE_DRY_RUN=none',
    'SLUICE_KUBE_FLAGS=--recursive --server-side',
  ]);
});
