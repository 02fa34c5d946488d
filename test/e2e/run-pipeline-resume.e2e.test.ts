/**
 * `sluice run-pipeline` while the server it follows is killed (SIGKILL) and started again on the
 * same port and data: the command waits, resumes after the last line it printed, and exits with
 * the build's result; every line of the build is printed once, in order. The engine keeps
 * running through the outage (its outbox retries), so the build itself loses nothing either.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import {
  ensureDockerEngine,
  ensureTestImages,
  freeRestartablePort,
  makeTempDir,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { kill, seededDataDir, startServer, startSluice } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { startAgentProcess } from './cluster-fixture.js';
import type { AgentProcess } from './cluster-fixture.js';
import { createLocalRuntime, createPipelines } from './control-plane-seed.js';

const LINES = 400;
const COUNT_YAML = `version: "1.0"
steps:
  count:
    image: sluice/busybox:1
    commands:
      - for i in $(seq 1 ${LINES}); do echo "line $i"; sleep 0.02; done
`;
const TOKEN = 'slu_u_resume-test-token-0123456789';

let temp: TempDir;
let server: RunningServer | undefined;
let agent: AgentProcess | undefined;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  temp = await makeTempDir('sluice-resume-');
});

after(async () => {
  await agent?.stop();
  if (server !== undefined && server.child.exitCode === null) await kill(server, 'SIGTERM');
  await temp.cleanup();
});

test(
  'run-pipeline survives a server killed and restarted mid-build: no line twice, none missing',
  { timeout: 240_000 },
  async () => {
    // Still free when the server comes back on it, whatever other test files bind meanwhile.
    const port = await freeRestartablePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      SLUICE_BOOTSTRAP_TOKEN: TOKEN,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_PUBLIC_URL: url,
    };
    const target = { dataDir: await seededDataDir(join(temp.path, 'data')) };
    server = await startServer(target, env, port);
    const admin = createClient({ baseUrl: url, token: TOKEN });
    await createLocalRuntime(admin, { isDefault: true });
    await createPipelines(admin, 'resume', { count: COUNT_YAML });
    const { token: agentToken } = await admin.call('createAgent', {
      body: { name: 'local', runtimes: ['local'] },
    });
    agent = await startAgentProcess({
      serverUrl: url,
      token: agentToken,
      args: ['--local-runtime', 'local', '--state-dir', join(temp.path, 'agent')],
      logPath: join(temp.path, 'agent.log'),
    });

    const run = startSluice(['run-pipeline', 'resume/count'], {
      env: { SLUICE_SERVER: url, SLUICE_TOKEN: TOKEN, SLUICE_CONFIG: join(temp.path, 'cfg') },
    });
    await run.waitForOutput('[count] line 60', 120_000);
    await kill(server);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    server = await startServer(target, env, port);
    const result = await run.done;

    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const printed = [...result.stdout.matchAll(/^\[count\] line (\d+)$/gm)].map((m) =>
      Number(m[1]),
    );
    assert.deepEqual(
      printed,
      Array.from({ length: LINES }, (_, i) => i + 1),
      'every line once, in order',
    );
    assert.match(result.stderr, /Lost the log stream; reconnecting/);
    assert.match(result.stderr, /Reconnected; resuming after the last line shown/);
    const { items } = await admin.call('listBuilds', { query: { limit: 5 } });
    assert.equal(items[0]?.status, 'success');
  },
);
