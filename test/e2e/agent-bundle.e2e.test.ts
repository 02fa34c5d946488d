/**
 * `sluice-agent` runs from the agent bundle (scripts/bundle-engine.mjs, made by `npm run
 * build`), and is the same command as `sluice agent` through the command tree: the same help,
 * the same refusal of a bad configuration, the same exit codes. The agent e2e tests run their
 * agents through it (cluster-fixture.ts's startAgentProcess).
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { REPO_ROOT, runSluice, SLUICE_AGENT_BIN } from './cli-harness.js';
import type { CliResult } from './cli-harness.js';

const BUNDLE = `${REPO_ROOT}apps/cli/dist/agent-bundle/sluice-agent.mjs`;
const TREE = `${REPO_ROOT}apps/cli/dist/main.js`;
/** No server URL, a concurrency out of range and no runtime: three problems. */
const BAD = ['--concurrency', '0'];
const ENV = { NO_COLOR: '1', SLUICE_SERVER_URL: '', SLUICE_AGENT_TOKEN: 'sa_test' };

/** `sluice-agent args` through its own `#!` line, as a deployment runs it. */
function runAgentBin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      SLUICE_AGENT_BIN,
      args,
      { env: { ...process.env, ...ENV, ...env } },
      (err, stdout, stderr) =>
        resolve({
          code: err === null ? 0 : typeof err.code === 'number' ? err.code : null,
          signal: err?.signal ?? null,
          stdout,
          stderr,
        }),
    );
  });
}

test('sluice-agent runs from the agent bundle, not the command tree', async () => {
  const { stderr } = await runAgentBin(BAD, { NODE_DEBUG: 'esm' });
  assert.ok(
    stderr.includes(BUNDLE),
    'the bundle was not loaded: older than the files it was made from? run npm run build',
  );
  assert.ok(!stderr.includes(TREE), 'sluice-agent loaded the command tree');
});

test('the bundled agent refuses a bad configuration and prints its help as sluice agent does', async () => {
  for (const args of [BAD, ['--help'], ['--no-such-flag']]) {
    const bundled = await runAgentBin(args);
    const tree = await runSluice(['agent', ...args], { env: ENV });
    assert.deepEqual(
      { code: bundled.code, stdout: bundled.stdout, stderr: bundled.stderr },
      { code: tree.code, stdout: tree.stdout, stderr: tree.stderr },
      args.join(' '),
    );
  }
  const refused = await runAgentBin(BAD);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /SLUICE_SERVER_URL/);
  assert.match(refused.stderr, /SLUICE_AGENT_CONCURRENCY/);
});
