/**
 * The account's clusters in every step (kube-contexts.ts), on the real Docker engine: one
 * KUBECONFIG with a context per cluster named after it, copied into each step's container before
 * it starts (not onto the build volume), the first cluster's context current; the credentials
 * are masked wherever a step prints them; a step that sets KUBECONFIG itself keeps its own. A
 * deploy step naming a cluster the build's project may not use stops the build before its
 * first step, naming the step, the cluster and who may.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BuildHarness, SHELL_IMAGE, stepLines, stepSummary } from './build-harness.test-support.js';
import type { KubeCluster } from '../base/kube-contexts.js';

const TOKEN = 'kube-token-5s8Kq2Zx0123';
let harness: BuildHarness;

before(async () => {
  harness = await BuildHarness.create();
});

after(async () => {
  await harness.close();
});

function cluster(name: string, token: string): KubeCluster {
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `https://${name}.example:6443` } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
  return { name, kubeconfig: JSON.stringify(kubeconfig), secrets: [token] };
}

test('every step has KUBECONFIG with a context per cluster, not on the volume, its tokens masked', async () => {
  const build = await harness.runSteps(
    `
  show:
    image: ${SHELL_IMAGE}
    commands: |
      echo "KUBECONFIG=$KUBECONFIG"
      grep -o '"current-context": "[a-z]*"' "$KUBECONFIG"
      grep -o '"name": "[a-z]*"' "$KUBECONFIG" | sort -u
      grep -c '${TOKEN}' "$KUBECONFIG"
      grep '"token"' "$KUBECONFIG" | head -n 1 | tr -d ' '
      ls -a /codefresh/volume | grep -c kubeconfig || true
  own:
    image: ${SHELL_IMAGE}
    environment: [KUBECONFIG=/codefresh/volume/mine]
    commands: ['echo "KUBECONFIG=$KUBECONFIG"']
`,
    { clusters: [cluster('prod', TOKEN), cluster('staging', 'other-token-0123456789')] },
  );
  assert.equal(stepSummary(build, 'show').result, 'success', JSON.stringify(build.summary));
  const shown = stepLines(build.events, 'show');
  assert.deepEqual(shown.slice(0, 6), [
    'KUBECONFIG=/.sluice-kubeconfig',
    '"current-context": "prod"',
    '"name": "prod"',
    '"name": "staging"',
    '1',
    '"token":"****"',
  ]);
  assert.equal(shown[6], '0', 'the kubeconfig is not on the build volume');
  assert.deepEqual(stepLines(build.events, 'own'), ['KUBECONFIG=/codefresh/volume/mine']);
  assert.ok(!JSON.stringify(build.events).includes(TOKEN), 'the token reached the log');
});

test('a build without clusters has no KUBECONFIG', async () => {
  const build = await harness.runSteps(`
  show:
    image: ${SHELL_IMAGE}
    commands: ['echo "KUBECONFIG=[$KUBECONFIG]"']
`);
  assert.deepEqual(stepLines(build.events, 'show'), ['KUBECONFIG=[]']);
});

test('a deploy step to a cluster the project may not use stops the build before its first step', async () => {
  const build = await harness.runSteps(
    `
  test:
    image: ${SHELL_IMAGE}
    commands: ['echo never runs']
  ship:
    type: deploy
    cluster: prod
    service: web
    candidate: {image: app:1}
`,
    { deniedClusters: [{ name: 'prod', projects: ['payments', 'web'] }] },
  );
  assert.equal(build.summary.result, 'failure');
  assert.equal(
    build.summary.reason,
    'Step "ship" at codefresh.yml:6:3 deploys to cluster "prod", which this build cannot use: this build\'s project may not use it (only payments, web may: sluice describe cluster prod); no step was started',
  );
  assert.deepEqual(
    build.events.filter((e) => e.type === 'step-started'),
    [],
  );
  assert.equal(stepSummary(build, 'test').result, 'skipped');
});
