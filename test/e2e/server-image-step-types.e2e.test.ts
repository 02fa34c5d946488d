/**
 * The server image ships the built-in step types: images/engine/bundle.sh puts step-types/ in
 * the bundle, and `sluice server` run from it, with the repository out of reach, validates a
 * pipeline whose typed step (`slack-message-sender`) no one registered.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import { REPO_ROOT } from './cli-harness.js';
import { bundleAsInImage, startBundledServer } from './bundled-cli.js';

const TOKEN = 'slu_u_server-image-step-types-0123456789';

test('the bundled sluice server of the server image gives every account the built-in step types', async () => {
  const temp = await makeTempDir('sluice-server-image-step-types-');
  try {
    const { bundle, lib } = await bundleAsInImage(temp.path);
    assert.deepEqual(
      (await readdir(join(bundle, 'step-types'))).sort(),
      (await readdir(`${REPO_ROOT}step-types`)).sort(),
    );
    const server = await startBundledServer(lib, temp.path, TOKEN);
    try {
      const api = createClient({ baseUrl: server.url, token: TOKEN });
      const project = await api.call('createProject', { body: { name: 'notify' } });
      const pipeline = await api.call('createPipeline', {
        params: { project: project.name },
        body: {
          name: 'ship',
          yaml: [
            'version: "1.0"',
            'steps:',
            '  notify:',
            '    type: slack-message-sender',
            '    arguments: {WEBHOOK_URL: "http://hooks.test/x", MESSAGE: built}',
            '',
          ].join('\n'),
        },
      });
      assert.equal(pipeline.name, 'ship', server.output());
      const listed = (await api.call('listStepTypes')).items;
      assert.deepEqual(
        listed.filter((s) => s.origin === 'account'),
        [],
        'nothing was registered',
      );
      assert.ok(
        listed.some((s) => s.name === 'slack-message-sender' && s.origin === 'built-in'),
        'the bundle lists its built-in step types',
      );
    } finally {
      await server.stop();
    }
  } finally {
    await temp.cleanup();
  }
});
