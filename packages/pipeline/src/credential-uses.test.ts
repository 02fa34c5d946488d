import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import type { Pipeline } from './model.js';
import { credentialUses, imageRegistryHost } from './credential-uses.js';
import { catalogFromDefinitions } from './step-types/load-step-type-catalog.js';

/** A step type whose step gets a git integration's credentials, and names a kube context. */
const COMMIT = `version: '1.0'
kind: step-type
metadata:
  name: acme/commit
  version: 1.0.0
spec:
  arguments:
    type: object
    properties:
      git: {type: string}
      context: {type: string}
  steps:
    commit:
      image: alpine
      environment:
        - SLUICE_GIT_INTEGRATION=[[ .Arguments.git ]]
        - SLUICE_KUBE_CONTEXT=[[ .Arguments.context ]]
      commands: [git push]
`;

const stepTypes = catalogFromDefinitions(
  [{ name: 'acme/commit', version: '1.0.0', source: 'memory', text: COMMIT }],
  'memory',
);

function parse(lines: string[]): Pipeline {
  const parsed = parsePipeline(`${lines.join('\n')}\n`, { file: 'ci.yml', stepTypes });
  assert.ok(parsed.ok, JSON.stringify(parsed.issues));
  return parsed.pipeline;
}

test('the registries, git integrations, clusters and images a pipeline names', () => {
  const pipeline = parse([
    "version: '1.0'",
    'steps:',
    '  clone:',
    '    type: git-clone',
    '    repo: acme/app',
    '    git: gitlab-main',
    '  build:',
    '    type: build',
    '    image_name: acme/app',
    '    registry: ecr',
    '    disable_push: false',
    '    cache_from: [cache.example.com:5000/acme/app:cache]',
    '  local_only:',
    '    type: build',
    '    image_name: acme/tool',
    '    registry: never-pushed',
    '  push:',
    '    type: push',
    '    candidate: ${{build}}',
    '    registry: ${{TARGET_REGISTRY}}',
    '  parallel_block:',
    '    type: parallel',
    '    steps:',
    '      test:',
    '        image: registry.example.com/acme/test:1',
    '        commands:',
    '          - kubectl --context staging get pods',
    '          - helm upgrade --kube-context=${{PROD}} app ./chart',
    '          - kubectl --context "$FROM_ENV" get pods',
    '          - kubectl config use-context qa',
    '  commit:',
    '    type: acme/commit:1.0.0',
    '    arguments:',
    '      git: github-bot',
    '      context: eu',
    '  deploy:',
    '    type: deploy',
    '    kind: kubernetes',
    '    cluster: prod',
    '    service: app',
    '    candidate: {image: acme/app}',
    'hooks:',
    '  on_finish:',
    '    exec:',
    '      image: localhost:5000/notify',
    '      commands: [notify]',
  ]);
  const uses = credentialUses(pipeline);
  assert.deepEqual(
    { ...uses, images: [...uses.images].sort(), clusters: [...uses.clusters].sort() },
    {
      registries: ['ecr', '${{TARGET_REGISTRY}}'],
      defaultRegistry: false,
      images: [
        'alpine',
        'cache.example.com:5000/acme/app:cache',
        'localhost:5000/notify',
        'registry.example.com/acme/test:1',
        'sluice/kubectl:1',
      ],
      gitIntegrations: ['gitlab-main', 'github-bot'],
      defaultGitIntegration: false,
      clusters: ['${{PROD}}', 'eu', 'prod', 'qa', 'staging'],
    },
  );
});

test('a build that pushes or a clone without naming one uses the default; one that does not push, none', () => {
  const uses = credentialUses(
    parse([
      "version: '1.0'",
      'steps:',
      '  clone:',
      '    type: git-clone',
      '    repo: acme/app',
      '  build:',
      '    type: build',
      '    image_name: acme/app',
      '    disable_push: false',
      '  commit:',
      '    type: acme/commit:1.0.0',
    ]),
  );
  assert.deepEqual(
    [uses.defaultRegistry, uses.defaultGitIntegration, uses.registries, uses.gitIntegrations],
    [true, true, [], []],
  );
  const none = credentialUses(
    parse(["version: '1.0'", 'steps:', '  test:', '    image: alpine', '    commands: ["true"]']),
  );
  assert.deepEqual(
    [none.defaultRegistry, none.defaultGitIntegration, none.clusters],
    [false, false, []],
  );
});

test('the registry host of an image reference', () => {
  assert.equal(imageRegistryHost('alpine'), 'docker.io');
  assert.equal(imageRegistryHost('library/alpine:3'), 'docker.io');
  assert.equal(imageRegistryHost('Registry.Example.com/a/b:1'), 'registry.example.com');
  assert.equal(imageRegistryHost('localhost/a'), 'localhost');
  assert.equal(imageRegistryHost('host:5000/a@sha256:00'), 'host:5000');
});
