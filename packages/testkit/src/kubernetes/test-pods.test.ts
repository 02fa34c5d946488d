import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { makeTempDir } from '../temp-dir.js';
import { clientPod, createDindTls, dindPod } from './test-pods.js';

test('the dind and client pods are valid against the Kubernetes schemas', () => {
  const dind = dindPod('dind', { image: 'sluice/dind:1', caSecretName: 'x-ca' });
  new Pod(dind as ConstructorParameters<typeof Pod>[0]).validate();
  const container = dind.spec?.containers[0];
  assert.equal(container?.securityContext?.privileged, true);
  assert.deepEqual(
    container?.volumeMounts?.map((m) => m.mountPath),
    ['/var/lib/docker', '/etc/sluice/dind-ca'],
  );
  const client = clientPod('engine', {
    image: 'sluice/engine:1',
    command: ['sluice', '--help'],
    clientSecretName: 'x-client',
    env: { A: 'b' },
  });
  new Pod(client as ConstructorParameters<typeof Pod>[0]).validate();
  assert.equal(client.spec?.containers[0]?.imagePullPolicy, 'Never');
});

test('createDindTls makes valid Secrets holding the CA and a client certificate', async () => {
  const temp = await makeTempDir();
  try {
    const tls = await createDindTls(temp.path, 'smoke');
    for (const secret of [tls.caSecret, tls.clientSecret])
      new Secret(secret as ConstructorParameters<typeof Secret>[0]).validate();
    assert.deepEqual(Object.keys(tls.caSecret.stringData ?? {}), ['ca.crt', 'ca.key']);
    assert.deepEqual(Object.keys(tls.clientSecret.stringData ?? {}), [
      'ca.crt',
      'client.crt',
      'client.key',
    ]);
    assert.match(tls.clientSecret.stringData?.['client.crt'] ?? '', /BEGIN CERTIFICATE/);
  } finally {
    await temp.cleanup();
  }
});
