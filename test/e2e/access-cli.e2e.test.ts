/**
 * The access commands against a real `sluice server` (docs/access.md): users created with a
 * role and listed, a token made for one of them with a scope and an expiry (its value on stdout
 * alone), what that token may not do refused with the role it needs, the audit log read back,
 * and a removed user's token refused at once.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { makeTempDir } from '@sluice/testkit';
import { kill, runSluice, serverDatabase, startServer } from './cli-harness.js';
import type { RunningServer, ServerDatabase } from './cli-harness.js';

const TOKEN = 'slu_u_access-cli-token-0123456789';
const dir = await makeTempDir('sluice-e2e-access-');
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

test('users, their tokens and the audit log through the CLI', async () => {
  const created = await runSluice(['create', 'user', 'vera', '--role', 'viewer'], { env });
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /user\/vera created \(viewer, projects: \*\)/);
  const bot = await runSluice(
    ['create', 'user', 'deploy-bot', '--role', 'member', '--project', 'web'],
    { env },
  );
  assert.equal(bot.code, 0, bot.stderr);
  const users = await runSluice(['get', 'users'], { env });
  assert.match(users.stdout, /^NAME\s+ROLE\s+PROJECTS\s+AGE$/m);
  assert.match(users.stdout, /^deploy-bot\s+member\s+web\s/m);
  assert.match(users.stdout, /^vera\s+viewer\s+\*\s/m);

  const token = await runSluice(
    ['create', 'token', 'dashboard', '--user', 'vera', '--scope', 'read', '--expires', '30d'],
    { env },
  );
  assert.equal(token.code, 0, token.stderr);
  const value = token.stdout.trim();
  assert.match(value, /^slu_u_[A-Za-z0-9_-]{40}$/, 'stdout is the token alone');
  assert.match(token.stderr, /created for vera \(scope read, expires 20\d\d-/);
  const veraEnv = { SLUICE_SERVER: server.url, SLUICE_TOKEN: value };

  // A viewer reads, and is refused a change with the role it needs and the one she has.
  const read = await runSluice(['get', 'projects'], { env: veraEnv });
  assert.equal(read.code, 0, read.stderr);
  const refused = await runSluice(['create', 'project', 'web'], { env: veraEnv });
  assert.equal(refused.code, 77, refused.stderr);
  assert.match(refused.stderr, /needs the member role; the caller acts as viewer/);

  const tokens = await runSluice(['get', 'tokens', '--user', 'vera'], { env });
  assert.match(tokens.stdout, /^\S+\s+dashboard\s+vera\s+read\s/m);
  assert.ok(!tokens.stdout.includes(value), 'a token value was listed');

  const bad = await runSluice(['create', 'token', '--expires', 'soon'], { env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--expires takes a duration like 90s, 15m, 1h, 30d or 2w, got "soon"/);

  const audit = await runSluice(['get', 'audit', '--since', '1h', '-o', 'wide'], { env });
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, /\s+vera\s+createProject\s+\/api\/v1\/projects\s+denied 403\s/);
  assert.match(audit.stdout, /\s+admin\s+createUser\s+\/api\/v1\/users\s+succeeded 201\s/);
  assert.ok(!audit.stdout.includes(value) && !audit.stdout.includes(TOKEN));
  const own = await runSluice(['get', 'audit', '--user', 'vera'], { env });
  assert.deepEqual(
    own.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[2]),
    ['createProject'],
  );

  // A password from standard input: the web UI's sign-in takes it, the audit log never shows it.
  const withPassword = await runSluice(
    ['create', 'user', 'paula', '--role', 'member', '--password-stdin'],
    { env, input: 'first password 1\n' },
  );
  assert.equal(withPassword.code, 0, withPassword.stderr);
  assert.match(
    withPassword.stdout,
    /user\/paula created \(member, projects: \*, with a password\)/,
  );
  const changed = await runSluice(['patch', 'user', 'paula', '--password-stdin'], {
    env,
    input: 'second password 2',
  });
  assert.equal(changed.code, 0, changed.stderr);
  const signIn = (password: string) =>
    fetch(`${server.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'paula', password }),
    });
  assert.equal((await signIn('first password 1')).status, 401);
  assert.equal((await signIn('second password 2')).status, 200);
  const events = await runSluice(['get', 'audit', '-o', 'json'], { env });
  assert.ok(!events.stdout.includes('password 1') && !events.stdout.includes('password 2'));

  const removed = await runSluice(['delete', 'user', 'vera'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  const after = await runSluice(['get', 'projects'], { env: veraEnv });
  assert.notEqual(after.code, 0);
  assert.match(after.stderr, /The token is unknown, revoked or expired/);
});
