import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '@sluice/log';
import { mergeKubeconfigs, withClusterCredentials } from './kube-contexts.js';

const kubeconfig = (name: string, token: string) =>
  JSON.stringify({
    clusters: [{ name, cluster: { server: `https://${name}.example:6443` } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
  });

const FROM_SERVER = {
  clusters: [{ name: 'prod', kubeconfig: kubeconfig('prod', 't-prod'), secrets: ['t-prod'] }],
  deniedClusters: [{ name: 'payments', projects: ['payments'] }],
};

test("the agent's clusters join the control plane's; one it could not mint is denied with its reason", () => {
  const agent = JSON.stringify({
    clusters: [{ name: 'shop', kubeconfig: kubeconfig('shop', 't-shop'), secrets: ['t-shop'] }],
    failed: [{ name: 'gone', reason: 'serviceaccounts "sluice-cluster-gone" not found' }],
  });
  const merged = withClusterCredentials(FROM_SERVER, agent, silentLogger);
  assert.deepEqual(
    merged.clusters.map((c) => [c.name, c.secrets]),
    [
      ['prod', ['t-prod']],
      ['shop', ['t-shop']],
    ],
  );
  assert.deepEqual(merged.deniedClusters, [
    { name: 'payments', projects: ['payments'] },
    {
      name: 'gone',
      projects: [],
      reason:
        'the runner agent could not get a token for it: serviceaccounts "sluice-cluster-gone" not found',
    },
  ]);
  const file = JSON.parse(mergeKubeconfigs(merged.clusters) ?? '{}') as {
    contexts: { name: string }[];
    'current-context': string;
  };
  assert.deepEqual(
    [file.contexts.map((c) => c.name), file['current-context']],
    [['prod', 'shop'], 'prod'],
  );
});

test("without the agent's credentials, or with ones that do not parse, the control plane's alone", () => {
  assert.deepEqual(withClusterCredentials(FROM_SERVER, undefined, silentLogger), FROM_SERVER);
  const warnings: string[] = [];
  const log = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
  assert.deepEqual(withClusterCredentials(FROM_SERVER, '{"clusters": 3}', log), FROM_SERVER);
  assert.deepEqual(warnings, [
    "the agent's cluster credentials do not parse; its clusters are left out",
  ]);
});
