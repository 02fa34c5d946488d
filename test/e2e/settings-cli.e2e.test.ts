/**
 * The account settings commands against a real `sluice server`: registries created with the
 * password on standard input (never shown again), listed and deleted; step types registered
 * from a file (problems at file:line:column) and listed.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { makeTempDir } from '@sluice/testkit';
import {
  kill,
  REPO_ROOT,
  runSluice,
  serverDatabase,
  startServer,
  startSluice,
} from './cli-harness.js';
import type { RunningServer, ServerDatabase } from './cli-harness.js';

const TOKEN = 'slu_u_settings-cli-token-0123456789';
const PASSWORD = 'settings-e2e-password-7Hq';
const dir = await makeTempDir('sluice-e2e-settings-');
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
});

after(async () => {
  await kill(server, 'SIGTERM');
  await database?.close();
  await dir.cleanup();
});

test('sluice create registry reads the password from stdin; get shows it exists, never its value', async () => {
  const create = startSluice(
    ['create', 'registry', 'hub', '--domain', 'registry.example.com:5000', '--username', 'ci'],
    { env },
  );
  create.child.stdin?.end();
  const plain = await create.done;
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /registry\/hub saved \(default\)/);

  const withPassword = startSluice(
    ['create', 'registry', 'local', '--domain', 'localhost:5000', '--password-stdin', '--default'],
    { env },
  );
  withPassword.child.stdin?.end(`${PASSWORD}\n`);
  const saved = await withPassword.done;
  assert.equal(saved.code, 0, saved.stderr);

  const table = await runSluice(['get', 'registries'], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^NAME\s+DOMAIN\s+USERNAME\s+PASSWORD\s+DEFAULT$/m);
  assert.match(table.stdout, /^hub\s+registry\.example\.com:5000\s+ci$/m);
  assert.match(table.stdout, /^local\s+localhost:5000\s+yes\s+yes$/m);
  const yaml = await runSluice(['get', 'registries', '-o', 'yaml'], { env });
  const { kind, items } = parse(yaml.stdout) as {
    kind: string;
    items: { name: string; hasPassword: boolean }[];
  };
  assert.equal(kind, 'List');
  assert.deepEqual(
    items.map((r) => [r.name, r.hasPassword]),
    [
      ['hub', false],
      ['local', true],
    ],
  );
  for (const output of [table.stdout, yaml.stdout, saved.stdout, saved.stderr])
    assert.ok(!output.includes(PASSWORD), 'the password was printed');

  const empty = startSluice(['create', 'registry', 'x', '--domain', 'x.io', '--password-stdin'], {
    env,
  });
  empty.child.stdin?.end();
  const refused = await empty.done;
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--password-stdin read nothing from standard input/);

  const deleted = await runSluice(['delete', 'registry', 'hub'], { env });
  assert.equal(deleted.code, 0, deleted.stderr);
  const missing = await runSluice(['delete', 'registry', 'hub'], { env });
  assert.equal(missing.code, 66);
  assert.match(missing.stderr, /Registry "hub" does not exist/);
});

test('sluice get step-types lists the built-in ones; describe step-type shows arguments and steps', async () => {
  const listed = await runSluice(['get', 'step-types'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^NAME\s+VERSION\s+ORIGIN\s+DESCRIPTION/);
  for (const name of ['git-commit', 'helm', 'slack-message-sender', 'sluice/webhook-notify'])
    assert.match(listed.stdout, new RegExp(`^${name}\\s+1\\.0\\.0\\s+built-in\\s`, 'm'), name);

  const one = await runSluice(['get', 'step-type', 'helm:1.0.0', '-o', 'yaml'], { env });
  assert.equal(one.code, 0, one.stderr);
  const helm = parse(one.stdout) as Record<string, unknown>;
  assert.deepEqual(
    [helm.name, helm.version, helm.origin, helm.createdAt],
    ['helm', '1.0.0', 'built-in', null],
  );
  const missing = await runSluice(['get', 'step-type', 'helm:9.9.9'], { env });
  assert.equal(missing.code, 66, missing.stderr);
  assert.match(missing.stderr, /Step type helm has no version 9\.9\.9 \(it has 1\.0\.0\)/);

  const described = await runSluice(['describe', 'step-type', 'git-commit'], { env });
  assert.equal(described.code, 0, described.stderr);
  assert.match(described.stdout, /^Origin:\s+built-in/m);
  assert.match(described.stdout, /^ {2}commit_message\s+string\s+"Commit by Sluice"\s/m);
  assert.match(described.stdout, /^ {2}repo\s+string\s+yes\s/m);
  assert.match(described.stdout, /^Steps:\n {2}NAME\s+IMAGE\n {2}\S+\s+sluice\/git:1$/m);
  const unknown = await runSluice(['describe', 'step-type', 'acme/nothing'], { env });
  assert.equal(unknown.code, 66, unknown.stderr);
  assert.match(unknown.stderr, /Step type acme\/nothing does not exist/);
});

test("sluice create step-type registers a document; get step-types shows it as the account's", async () => {
  const builtIn = join(REPO_ROOT, 'step-types', 'git-commit-push.yml');
  const created = await runSluice(['create', 'step-type', '-f', builtIn], { env });
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /step-type\/sluice\/git-commit-push:1\.0\.0 registered/);
  const listed = await runSluice(['get', 'step-types', '-o', 'wide'], { env });
  // The account's own replaces the built-in one of the same name: listed once, as the account's.
  const rows = listed.stdout.split('\n').filter((l) => l.startsWith('sluice/git-commit-push '));
  assert.equal(rows.length, 1, listed.stdout);
  assert.match(rows[0] ?? '', /^sluice\/git-commit-push\s+1\.0\.0\s+account\s.*\sadmin\s/);
  const described = await runSluice(['describe', 'step-type', 'sluice/git-commit-push'], { env });
  assert.match(described.stdout, /^Origin:\s+account/m);

  const bad = join(dir.path, 'bad.yml');
  writeFileSync(bad, readFileSync(builtIn, 'utf8').replace('kind: step-type', 'kind: stepp-type'));
  const refused = await runSluice(['create', 'step-type', '-f', bad], { env });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, new RegExp(`${bad.replace(/[.]/g, '\\.')}:5:\\d+: `));
});
