import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '@sluice/errors';
import { singleContext } from './kubeconfig.js';

const FILE = `
apiVersion: v1
kind: Config
current-context: admin@test
clusters:
  - name: test
    cluster: {server: https://10.0.0.1:6443, certificate-authority-data: Q0E=}
  - name: other
    cluster: {server: https://other:6443}
users:
  - name: admin
    user: {token: tok-0123456789}
  - name: robot
    user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}
  - name: cloud
    user: {exec: {command: aws}}
contexts:
  - name: admin@test
    context: {cluster: test, user: admin, namespace: apps}
  - name: robot@other
    context: {cluster: other, user: robot}
  - name: cloud@test
    context: {cluster: test, user: cloud}
`;

function refusal(text: string, options: { context?: string } = {}): string {
  try {
    singleContext(text, { name: 'prod', ...options });
  } catch (err) {
    assert.ok(isSluiceError(err) && err.code === 'SLUICE_CLUSTER_KUBECONFIG_INVALID', String(err));
    return err.message;
  }
  return assert.fail('expected the kubeconfig to be refused');
}

test('one context is kept, named after the cluster, with its cluster, user and namespace', () => {
  const kept = singleContext(FILE, { name: 'prod' });
  assert.deepEqual(
    [kept.server, kept.namespace, kept.secrets],
    ['https://10.0.0.1:6443', 'apps', ['tok-0123456789']],
  );
  assert.deepEqual(JSON.parse(kept.kubeconfig), {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'prod',
        cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': 'Q0E=' },
      },
    ],
    users: [{ name: 'prod', user: { token: 'tok-0123456789' } }],
    contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'prod', namespace: 'apps' } }],
    'current-context': 'prod',
  });
  const robot = singleContext(FILE, { name: 'other', context: 'robot@other', namespace: 'ci' });
  assert.deepEqual([robot.namespace, robot.secrets], ['ci', ['S0VZ']]);
});

test('what a step could not use is refused, saying what to give instead', () => {
  assert.match(
    refusal(FILE, { context: 'cloud@test' }),
    /user "cloud" has exec: .*service account token/,
  );
  assert.match(
    refusal(FILE, { context: 'nope' }),
    /no context "nope"; it has admin@test, robot@other, cloud@test/,
  );
  assert.match(
    refusal(FILE.replace('https://10.0.0.1:6443', 'http://10.0.0.1:8080')),
    /give its https:\/\/ URL/,
  );
  assert.match(
    refusal(
      FILE.replace('certificate-authority-data: Q0E=', 'certificate-authority: /home/me/ca.crt'),
    ),
    /CA file on your machine: give it inline/,
  );
  assert.match(refusal(FILE.replace('current-context: admin@test', '')), /no current-context/);
  assert.match(refusal('{'), /not YAML or JSON/);
  assert.match(refusal('- a list'), /not a kubeconfig/);
});
