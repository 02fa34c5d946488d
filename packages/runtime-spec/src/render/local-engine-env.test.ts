import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import { renderLocalEngineEnv } from './local-engine-env.js';

test('a local engine gets literal userEnvVars, hostPath user mounts and the proxy', () => {
  const spec: RuntimeSpec = {
    version: 1,
    metadata: { name: 'local' },
    proxy: { httpsProxy: 'http://proxy:3128', noProxy: ['internal.example'] },
    runtimeScheduler: {
      type: 'LocalDocker',
      userEnvVars: [
        { name: 'TEAM', value: 'platform' },
        { name: 'NPM_TOKEN', valueFrom: { secretKeyRef: { name: 'npm', key: 'token' } } },
      ],
    },
    dockerDaemonScheduler: {
      type: 'LocalDocker',
      userVolumes: {
        cache: { hostPath: { path: '/srv/cache/' } },
        certs: { secret: { secretName: 'certs' } },
      },
      userVolumeMounts: {
        cache: { mountPath: '/cache', subPath: 'npm', readOnly: true },
        certs: { mountPath: '/certs' },
      },
    },
  };
  assert.deepEqual(renderLocalEngineEnv(spec), {
    SLUICE_USER_ENV_TEAM: 'platform',
    SLUICE_USER_VOLUME_MOUNTS: JSON.stringify([
      { mountPath: '/cache', source: '/srv/cache/npm', readOnly: true },
    ]),
    HTTPS_PROXY: 'http://proxy:3128',
    https_proxy: 'http://proxy:3128',
    NO_PROXY: 'internal.example',
    no_proxy: 'internal.example',
  });
});

test('a spec without them gives a local engine nothing', () => {
  assert.deepEqual(renderLocalEngineEnv({ version: 1, metadata: { name: 'local' } }), {});
});
