import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTempDir } from '../temp-dir.js';
import { writeKubeconfig } from './kubeconfig.js';

test('a written kubeconfig loads in @kubernetes/client-node with its server, CA and token', async () => {
  const temp = await makeTempDir();
  try {
    const path = await writeKubeconfig(join(temp.path, 'admin.kubeconfig'), {
      server: 'https://127.0.0.1:6443',
      caFile: '/p/ca.crt',
      user: 'sluice-test-admin',
      token: 'secret-token',
    });
    const config = new KubeConfig();
    config.loadFromFile(path);
    assert.equal(config.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
    assert.equal(config.getCurrentCluster()?.caFile, '/p/ca.crt');
    assert.equal(config.getCurrentUser()?.token, 'secret-token');
    assert.equal(config.getContextObject(config.getCurrentContext())?.namespace, 'default');
  } finally {
    await temp.cleanup();
  }
});
