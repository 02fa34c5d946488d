import { test } from 'node:test';
import assert from 'node:assert/strict';
import { equivalentCommand } from './equivalent-command.js';
import { resolveRunnerSettings } from './runner-settings.js';

test('the wizard prints the flags of what its answers settled, shell-quoted', () => {
  const settings = resolveRunnerSettings(
    { setValue: ['agent.replicas=2'] },
    {
      kubeContext: 'prod',
      namespace: 'ci',
      runtime: 'prod/ci',
      controlPlaneUrl: 'https://ci.example.com',
      imageRepository: 'registry:5000/sluice/engine',
      imageTag: '1',
      warmVolumes: true,
      buildNodeSelector: 'pool=builds',
      buildTolerations: 'dedicated=ci:NoSchedule gpu:NoExecute',
      noProxy: 'localhost,10.0.0.0/8',
      setDefault: true,
      testPipeline: false,
    },
    { contextName: 'prod', env: {} },
  );
  assert.equal(
    equivalentCommand(settings, 'prod', { setValue: ['agent.replicas=2', 'a b=c d'] }),
    [
      'sluice runner init --yes --kube-context prod --namespace ci --runtime prod/ci',
      '--control-plane-url https://ci.example.com --image-repository registry:5000/sluice/engine',
      '--image-tag 1 --warm-volumes --build-node-selector pool=builds',
      '--build-toleration dedicated=ci:NoSchedule --build-toleration gpu:NoExecute',
      "--noproxy localhost,10.0.0.0/8 --set-value agent.replicas=2 --set-value 'a b=c d'",
      '--set-default --no-test-pipeline',
    ].join(' '),
  );
});
