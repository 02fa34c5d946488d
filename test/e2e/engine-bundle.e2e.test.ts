/**
 * `sluice engine` as the local runtime starts it (no flags) runs from the engine bundle
 * (scripts/bundle-engine.mjs, made by `npm run build`), and is the same command as the one
 * the command tree runs: the same refusal, output and exit code. The builds of up-local,
 * log-spool and runtime-limits run their engines through the bundle. Every other command runs
 * from the CLI's bundle, which finds what it needs beside it (the built-in step types).
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REPO_ROOT, runSluice } from './cli-harness.js';

const TREE_ONLY = ['--docker-host', 'unix:///var/run/docker.sock'];
/** Neither variable set: the engine refuses to start. */
const UNSET = { SLUICE_SERVER_URL: '', SLUICE_ENGINE_TOKEN: '' };
/** Node names each ES module it loads on stderr. */
const TRACE = { ...UNSET, NODE_DEBUG: 'esm' };
const BUNDLE = `${REPO_ROOT}apps/cli/dist/engine-bundle/sluice-engine.mjs`;
const TREE = `${REPO_ROOT}apps/cli/dist/main.js`;
const CLI_BUNDLE = `${REPO_ROOT}apps/cli/dist/cli-bundle/sluice.mjs`;

test('a bare sluice engine runs from the bundle, a flag from the CLI bundle', async () => {
  const bare = (await runSluice(['engine'], { env: TRACE })).stderr;
  assert.ok(
    bare.includes(BUNDLE),
    'the bundle was not loaded: older than the files it was made from? run npm run build',
  );
  assert.ok(!bare.includes(CLI_BUNDLE), 'a bare sluice engine loaded the CLI bundle');
  const flagged = (await runSluice(['engine', ...TREE_ONLY], { env: TRACE })).stderr;
  assert.ok(flagged.includes(CLI_BUNDLE) && !flagged.includes(BUNDLE), 'a flag takes the CLI');
});

test('other commands run from the CLI bundle, which finds the built-in step types', async () => {
  // github-pr and the others are built-in step types (step-types/ of the repository).
  const checked = await runSluice(['validate', 'examples/marketplace-steps/codefresh.yml'], {
    env: { NODE_DEBUG: 'esm' },
    cwd: REPO_ROOT,
  });
  assert.equal(checked.code, 0, checked.stderr.split('\n').slice(-20).join('\n'));
  assert.ok(
    checked.stderr.includes(CLI_BUNDLE),
    'the CLI bundle was not loaded: run npm run build',
  );
  assert.ok(!checked.stderr.includes(TREE), 'the command tree of dist/ was loaded');
});

test('the bundled engine refuses a missing variable as the command tree does', async () => {
  const bundled = await runSluice(['engine'], { env: UNSET });
  const tree = await runSluice(['engine', ...TREE_ONLY], { env: UNSET });
  assert.equal(bundled.code, 2, bundled.stderr);
  assert.match(bundled.stderr, /SLUICE_SERVER_URL/);
  assert.match(bundled.stderr, /SLUICE_ENGINE_TOKEN/);
  assert.deepEqual(
    { code: bundled.code, stdout: bundled.stdout, stderr: bundled.stderr },
    { code: tree.code, stdout: tree.stdout, stderr: tree.stderr },
  );
});
