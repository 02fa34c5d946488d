/**
 * What a local engine is started with, using a real child process that prints its environment
 * in place of `sluice engine`: the agent's environment without the credentials of the agent and
 * the control plane, plus its build's server URL, engine token, build id and Docker host.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@sluice/log';
import { makeTempDir } from '@sluice/testkit';
import { testTask } from '../../task.test-support.js';
import { createLocalBackend } from './local-backend.js';

const temp = await makeTempDir('sluice-local-backend-');
after(() => temp.cleanup());

const CREDENTIALS = {
  SLUICE_AGENT_TOKEN: 'agent-token',
  SLUICE_TOKEN: 'user-token',
  SLUICE_BOOTSTRAP_TOKEN: 'bootstrap-token',
  SLUICE_SECRET_KEY: 'server-key',
  DATABASE_URL: 'postgres://sluice:secret@db/sluice',
};

test("an engine inherits the agent's environment without its credentials, with its build's own and its runtime's", async () => {
  const stateDir = join(temp.path, 'state');
  const backend = createLocalBackend(
    {
      kind: 'local',
      name: 'local',
      engineCommand: [process.execPath, '-e', 'console.log(JSON.stringify(process.env))'],
      stateDir,
      stopGraceSeconds: 1,
      dockerHost: 'unix:///run/runtime-docker.sock',
    },
    {
      logger: silentLogger,
      env: {
        PATH: process.env.PATH,
        KEPT: 'yes',
        DOCKER_HOST: 'unix:///run/agent-docker.sock',
        SLUICE_ENGINE_TOKEN: 'a stale token',
        ...CREDENTIALS,
      },
    },
  );
  const task = testTask({
    type: 'RunEngine',
    buildId: 'bld_env',
    runtime: 'local',
    spec: {
      buildId: 'bld_env',
      serverUrl: 'http://cp.example:8080',
      engineToken: 'engine-token',
      // What the runtime spec gives the engine; only those names are taken.
      env: {
        SLUICE_USER_ENV_TEAM: 'platform',
        SLUICE_USER_VOLUME_MOUNTS: '[{"mountPath":"/shared","source":"/srv/shared"}]',
        HTTPS_PROXY: 'http://proxy:3128',
        LD_PRELOAD: '/tmp/evil.so',
        SLUICE_ENGINE_TOKEN: 'not this one',
      },
    },
  });
  await backend.apply(task, new AbortController().signal);
  // The engine's exit removes its pid file; its output is in the log by then.
  while (existsSync(join(stateDir, 'bld_env.json')))
    await new Promise((resolve) => setTimeout(resolve, 20));
  await backend.close();

  const env = JSON.parse(readFileSync(join(stateDir, 'bld_env.log'), 'utf8')) as Record<
    string,
    string
  >;
  for (const name of Object.keys(CREDENTIALS)) assert.equal(env[name], undefined, name);
  assert.equal(env.KEPT, 'yes');
  assert.equal(env.SLUICE_SERVER_URL, 'http://cp.example:8080');
  assert.equal(env.SLUICE_ENGINE_TOKEN, 'engine-token');
  assert.equal(env.SLUICE_BUILD_ID, 'bld_env');
  assert.equal(env.DOCKER_HOST, 'unix:///run/runtime-docker.sock');
  assert.equal(env.SLUICE_USER_ENV_TEAM, 'platform');
  assert.equal(env.SLUICE_USER_VOLUME_MOUNTS, '[{"mountPath":"/shared","source":"/srv/shared"}]');
  assert.equal(env.HTTPS_PROXY, 'http://proxy:3128');
  assert.equal(env.LD_PRELOAD, undefined);
  // Its log spool beside the pid files, not in the directory the agent was started from.
  assert.equal(env.SLUICE_LOG_SPOOL_DIR, join(stateDir, 'log-spool'));
});
