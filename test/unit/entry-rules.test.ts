// The rules of scripts/check-boundaries.mjs about where a process starts
// (scripts/lib/entry-rules.mjs), on tiny trees in a temporary directory: process.env only in
// config modules and main.ts files, and no app importing another but the CLI importing `main`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { treeWriter } from './script-rules.test-support.js';

interface EntryRules {
  processEnvProblems: (workspaces: string[], root: string) => string[];
  appImportProblems: (apps: Record<string, string>, root: string) => string[];
}

// From test/dist/unit/ back to the repository's scripts/lib/.
const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { processEnvProblems, appImportProblems } = (await import(
  pathToFileURL(join(lib, 'entry-rules.mjs')).href
)) as EntryRules;

const tree = await treeWriter('sluice-entry-rules-');

test('process.env read outside config modules and main.ts is refused; comments and tests are not code', async () => {
  const root = await tree('env', {
    'apps/engine/src/main.ts': 'export const env = process.env;\n',
    'apps/engine/src/config.ts': "export const home = process.env['HOME'];\n",
    'apps/runner/src/runner-config.ts': 'export const env = process.env;\n',
    'apps/runner/src/backends/local.ts':
      "// reads process.env by default\nexport const host = process['env'].DOCKER_HOST;\n",
    'apps/runner/src/agent.ts': 'export const env = { ...process.env };\n',
    'apps/runner/src/agent.test.ts': 'export const env = process.env;\n',
    'packages/kube/src/kube-client.ts':
      "/** process.env is not read here */\nexport const text = 'process.env';\n",
    'packages/config/src/parse-env.ts': 'export const env = process.env;\n',
  });
  const workspaces = ['apps/engine', 'apps/runner', 'packages/kube', 'packages/config'].map((w) =>
    join(root, w),
  );
  const problems = processEnvProblems(workspaces, root).sort();
  assert.deepEqual(
    problems.map((p) => p.split(':')[0]),
    ['apps/runner/src/agent.ts', 'apps/runner/src/backends/local.ts'],
  );
  assert.match(problems[0] ?? '', /only config\.ts \(or \*-config\.ts\) and main\.ts may/);
});

test('an app importing another is refused, but the CLI importing a main entry lazily', async () => {
  const root = await tree('apps', {
    'apps/cli/src/local-commands.ts':
      "export const start = () => import('@sluice/server/main');\nimport type { X } from '@sluice/runner/main';\nexport type Y = X;\n",
    'apps/cli/src/commands/up.ts':
      "import { createServer } from '@sluice/server';\nexport { startAgent } from '@sluice/runner';\nexport const s = createServer;\n",
    'apps/cli/src/commands/run.ts':
      "import { runBuild } from '@sluice/engine';\nexport const r = runBuild;\n",
    'apps/cli/src/up.int.test.ts':
      "import { createServer } from '@sluice/server';\nexport const s = createServer;\n",
    'apps/engine/src/remote-build.ts':
      "import { createControlPlaneClient } from '@sluice/runner/control-plane-client';\nimport { z } from '@sluice/protocol';\nexport const c = [createControlPlaneClient, z];\n",
    'apps/server/src/main.ts': "export const main = () => import('@sluice/engine/main');\n",
    'apps/runner/src/index.ts': 'export const runner = 1;\n',
  });
  const apps = Object.fromEntries(
    ['cli', 'engine', 'server', 'runner'].map((name) => [
      `@sluice/${name}`,
      join(root, 'apps', name),
    ]),
  );
  assert.deepEqual(appImportProblems(apps, root).sort(), [
    'apps/cli/src/commands/up.ts: imports @sluice/runner; the CLI may import another app only through its main entry (@sluice/runner/main)',
    'apps/cli/src/commands/up.ts: imports @sluice/server; the CLI may import another app only through its main entry (@sluice/server/main)',
    'apps/engine/src/remote-build.ts: @sluice/engine imports @sluice/runner/control-plane-client; an app imports no other app (shared code belongs in a package)',
    'apps/server/src/main.ts: @sluice/server imports @sluice/engine/main; an app imports no other app (shared code belongs in a package)',
  ]);
});
