import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { stepSettingsFrom, userVolumeBinds } from './step-settings.js';

test('user variables and the proxy become step variables; mounts become binds', () => {
  const settings = stepSettingsFrom({
    SLUICE_USER_ENV_TEAM: 'platform',
    SLUICE_USER_ENV_: 'ignored',
    SLUICE_USER_SECRET_ENV_NPM_TOKEN: 'npm-secret',
    HTTPS_PROXY: 'http://proxy:3128',
    no_proxy: 'internal.example',
    SLUICE_SERVER_URL: 'http://control-plane',
    SLUICE_USER_VOLUME_MOUNTS: JSON.stringify([
      { name: 'cache', mountPath: '/cache', readOnly: true },
      { mountPath: '/data', source: '/srv/data' },
    ]),
  });
  assert.deepEqual(settings.variables, {
    HTTPS_PROXY: 'http://proxy:3128',
    no_proxy: 'internal.example',
    TEAM: 'platform',
  });
  assert.deepEqual(settings.secrets, { NPM_TOKEN: 'npm-secret' });
  assert.deepEqual(userVolumeBinds(settings.mounts), ['/cache:/cache:ro', '/srv/data:/data']);
});

test('mounts that are not a list of absolute paths are refused, naming the variable', () => {
  for (const text of ['{', '{}', '[{"mountPath":"relative"}]']) {
    assert.throws(
      () => stepSettingsFrom({ SLUICE_USER_VOLUME_MOUNTS: text }),
      (err) => isSluiceError(err) && /SLUICE_USER_VOLUME_MOUNTS/.test(err.message),
      text,
    );
  }
});
