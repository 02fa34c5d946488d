import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import { kill, runSluice, serverDatabase, startServer, startSluice } from './cli-harness.js';
import type { RunningServer, ServerDatabase } from './cli-harness.js';
import { createLocalRuntime, createPipelines } from './control-plane-seed.js';

const TOKEN = 'slu_u_runtime-cli-token-0123456789';
const dir = await makeTempDir('sluice-e2e-re-');
let database: ServerDatabase | undefined;
let server: RunningServer;
let env: NodeJS.ProcessEnv;

before(async () => {
  database = await serverDatabase();
  server = await startServer(database.target, {
    SLUICE_BOOTSTRAP_TOKEN: TOKEN,
    SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
  });
  env = { SLUICE_SERVER: server.url, SLUICE_TOKEN: TOKEN };
  await createLocalRuntime(createClient({ baseUrl: server.url, token: TOKEN }), {
    description: 'laptop',
  });
});

after(async () => {
  await kill(server, 'SIGTERM');
  await database?.close();
  await dir.cleanup();
});

test('sluice get re lists runtime environments as a table, and one as YAML or JSON', async () => {
  const table = await runSluice(['get', 're'], { env });
  assert.equal(table.code, 0, table.stderr);
  // The account's first runtime is its default.
  assert.match(table.stdout, /^NAME\s+VERSION\s+DEFAULT\s+DESCRIPTION\nlocal\s+1\s+yes\s+laptop$/m);
  const yaml = await runSluice(['get', 're', 'local', '-o', 'yaml'], { env });
  assert.equal(yaml.code, 0, yaml.stderr);
  const doc = parse(yaml.stdout) as {
    name: string;
    version: number;
    spec: { runtimeScheduler: { type: string } };
  };
  assert.equal(doc.name, 'local');
  assert.equal(doc.spec.runtimeScheduler.type, 'LocalDocker');
  const json = await runSluice(['get', 'runtime-environment', 'local', '-o', 'json'], { env });
  assert.equal((JSON.parse(json.stdout) as { version: number }).version, 1);
});

test('a built-in parent reads like any runtime (get re system/default/k8s) and is refused as read only', async () => {
  const shown = await runSluice(['get', 're', 'system/default/k8s', '-o', 'json'], { env });
  assert.equal(shown.code, 0, shown.stderr);
  const builtIn = JSON.parse(shown.stdout) as { name: string; description: string; spec: unknown };
  assert.equal(builtIn.name, 'system/default/k8s');
  assert.match(builtIn.description, /^Built into Sluice, read only/);
  assert.deepEqual(
    (builtIn.spec as { dockerDaemonScheduler?: { dindImage?: string } }).dockerDaemonScheduler
      ?.dindImage,
    'sluice/dind:1',
  );
  const file = join(dir.path, 'system-patch.yaml');
  writeFileSync(file, 'description: mine\n');
  const changed = await runSluice(['patch', 're', 'system/default/k8s', '-f', file], { env });
  assert.equal(changed.code, 66, changed.stderr);
  assert.match(changed.stderr, /is built into Sluice: it can be read and extended, not changed/);
  assert.match(changed.stderr, /extends: \[system\/default\/k8s\]/);
});

test('sluice patch re -f applies a YAML merge patch as a new version', async () => {
  const file = join(dir.path, 'patch.yml');
  writeFileSync(
    file,
    'description: patched from a file\nproxy:\n  httpProxy: http://proxy.internal:3128\n',
  );
  const result = await runSluice(['patch', 're', 'local', '-f', file], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /runtime-environment\/local patched \(version 2\)/);
  const after = JSON.parse(
    (await runSluice(['get', 're', 'local', '-o', 'json'], { env })).stdout,
  ) as { spec: { description: string; proxy: { httpProxy: string } } };
  assert.equal(after.spec.description, 'patched from a file');
  assert.equal(after.spec.proxy.httpProxy, 'http://proxy.internal:3128');
});

test('a patch that breaks the spec is refused with the field named, and bad YAML with its position', async () => {
  const bad = join(dir.path, 'bad.yml');
  writeFileSync(bad, 'runtimeScheduler:\n  terminationGracePeriodSecond: 30\n');
  const refused = await runSluice(['patch', 're', 'local', '-f', bad], { env });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /terminationGracePeriodSecond/);
  const broken = join(dir.path, 'broken.yml');
  writeFileSync(broken, 'description: [unclosed\n');
  const parseError = await runSluice(['patch', 're', 'local', '-f', broken], { env });
  assert.equal(parseError.code, 2);
  assert.ok(
    parseError.stderr.includes(
      `error: ${broken}:2:1: Flow sequence in block collection must be sufficiently indented and end with a ]\n`,
    ),
    parseError.stderr,
  );
});

test('patch re --default moves the default; run-pipeline with no runtime to run on says why at once', async (t) => {
  const admin = createClient({ baseUrl: server.url, token: TOKEN });
  const spec = {
    metadata: { name: 'spare' },
    runtimeScheduler: { type: 'LocalDocker' },
    dockerDaemonScheduler: { type: 'LocalDocker' },
  };
  await admin.call('createRuntimeEnvironment', { body: { name: 'spare', spec } });
  const moved = await runSluice(['patch', 're', 'spare', '--default'], { env });
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /runtime-environment\/spare is the account's default/);
  assert.match((await runSluice(['get', 're'], { env })).stdout, /^spare\s+1\s+yes\s*$/m);
  const nothing = await runSluice(['patch', 're', 'spare'], { env });
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /Nothing to patch: pass -f FILE or --default/);

  // Deleting the default leaves the account without one: a build then waits, and says why.
  await admin.call('deleteRuntimeEnvironment', { params: { name: 'spare' } });
  await createPipelines(admin, 'waiting', {
    nowhere:
      "version: '1.0'\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: [echo hi]\n",
  });
  const started = Date.now();
  const cli = startSluice(['run-pipeline', 'waiting/nowhere'], { env });
  try {
    for (let i = 0; i < 300 && !cli.stderr().includes('No runtime environment'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(
      cli.stderr(),
      /No runtime environment: the pipeline names none and the account has no default; make one the default with `sluice patch re NAME --default`/,
    );
    t.diagnostic(`the reason was printed ${Date.now() - started} ms after the command started`);
  } finally {
    cli.child.kill('SIGINT');
  }
  const stopped = await cli.done;
  assert.equal(stopped.code, 130, stopped.stderr);
  const { items } = await admin.call('listBuilds', { query: { status: 'pending' } });
  for (const build of items) await admin.call('cancelBuild', { params: { buildId: build.id } });
});

test('without a server the command says what to set', async () => {
  // No contexts file either: what a user who never ran `sluice auth` sees.
  const env = { SLUICE_SERVER: '', SLUICE_TOKEN: '', SLUICE_CONFIG: '/nonexistent/sluice.yaml' };
  const result = await runSluice(['get', 're'], { env });
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /error: This command talks to a Sluice server, but the server URL and a token are not set/,
  );
  assert.match(
    result.stderr,
    /hint: Add a context: sluice auth create-context NAME --url URL --token-stdin; or pass --server URL --token TOKEN, or set SLUICE_SERVER and SLUICE_TOKEN/,
  );
});
