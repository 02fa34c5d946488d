import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { parseProvisionerConfig, parseVolumeAgentConfig } from './config.js';

const REQUIRED = {
  SLUICE_PROVISIONER_NAME: 'sluice.io/volumes-ci',
  SLUICE_PROVISIONER_STORAGE_CLASS: 'sluice-volumes-ci',
  SLUICE_PROVISIONER_NAMESPACE: 'ci',
};

test('flags win over the environment; defaults fill the rest; no kubeconfig means in-cluster', () => {
  const config = parseProvisionerConfig(
    { SLUICE_PROVISIONER_NAMESPACE: 'from-flag' },
    { ...REQUIRED, SLUICE_PROVISIONER_IDENTITY: 'pod-1' },
  );
  assert.equal(config.namespace, 'from-flag');
  assert.equal(config.identity, 'pod-1');
  assert.deepEqual(config.source, { type: 'in-cluster' });
  assert.equal(config.resyncMs, 30_000, 'a slow resync: the watches answer changes');
  assert.equal(config.leaseDurationMs, 15_000);
});

test('every problem at once, each naming its flag and variable', () => {
  let caught: unknown;
  try {
    parseProvisionerConfig(
      {},
      {
        SLUICE_PROVISIONER_NAME: 'x',
        SLUICE_PROVISIONER_LEASE_SECONDS: '1',
        SLUICE_PROVISIONER_RESYNC_SECONDS: 'soon',
      },
    );
  } catch (err) {
    caught = err;
  }
  assert.ok(isSluiceError(caught) && caught.code === 'SLUICE_PROVISIONER_CONFIG_INVALID');
  const message = (caught as Error).message;
  for (const expected of [
    '--storage-class (SLUICE_PROVISIONER_STORAGE_CLASS) is not set',
    '--namespace (SLUICE_PROVISIONER_NAMESPACE) is not set',
    '--lease-seconds (SLUICE_PROVISIONER_LEASE_SECONDS) must be an integer from 2 to 300, got "1"',
    '--resync-seconds (SLUICE_PROVISIONER_RESYNC_SECONDS) must be a number from 0.1 to 3600, got "soon"',
  ])
    assert.ok(message.includes(expected), `${expected}\nin: ${message}`);
});

test("the volume agent keeps 2 spares of the provisioner's StorageClass under the parent directory", () => {
  const config = parseVolumeAgentConfig(
    { SLUICE_VOLUME_SPARES: '4' },
    { ...REQUIRED, SLUICE_NODE_NAME: 'node-1' },
  );
  assert.equal(config.storageClass, 'sluice-volumes-ci');
  assert.equal(config.volumeParentDir, '/var/lib/sluice/volumes');
  assert.equal(config.spares, 4);
  assert.equal(parseVolumeAgentConfig({}, { ...REQUIRED, SLUICE_NODE_NAME: 'n' }).spares, 2);
  assert.throws(
    () => parseVolumeAgentConfig({}, { SLUICE_PROVISIONER_NAME: 'x', SLUICE_NODE_NAME: 'n' }),
    /--storage-class \(SLUICE_PROVISIONER_STORAGE_CLASS\) is not set/,
  );
});
