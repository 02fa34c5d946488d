/**
 * Single sign-on against a real OpenID provider (panva's certified `oidc-provider`, started
 * here on a free port with in-memory accounts carrying a `groups` claim) and `sluice server`
 * configured for it (docs/access.md), Chromium signing in: a user in `platform` is an admin
 * with a session; signed in, `sluice auth login`'s link goes straight to the loopback with a
 * code only the CLI's verifier redeems, once; a replayed callback is refused; `sluice auth login --no-browser` driven to the end stores a
 * token of a user in no mapped group (`viewers: ['*']`), who reads a build and is refused run,
 * cancel, approve and editing the pipeline, and `auth logout` revokes it; a group changed at
 * the provider takes effect at the next sign-in; the provider stopped gives a page naming the
 * problem, not a 500. Each sign-in and refusal is in the audit log.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { isSluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { freeRestartablePort, makeTempDir } from '@sluice/testkit';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { kill, runSluice, serverDatabase, SLUICE_BIN, startServer } from './cli-harness.js';
import type { RunningServer, ServerDatabase } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';

const TOKEN = 'slu_u_single-sign-on-token-0123456789';
const CLIENT_SECRET = 'sluice-client-secret-0123456789';
/** Each account's groups at the provider; a test changes one between sign-ins. */
const groups: Record<string, string[]> = { ada: ['platform'], vic: ['marketing'] };
const PIPELINE = `version: "1.0"
steps:
  hello:
    image: sluice/busybox:1
    commands: [echo hello]
`;

const dir = await makeTempDir('sluice-e2e-sso-');
let idp: Server;
let idpUrl = '';
let database: ServerDatabase | undefined;
let server: RunningServer;
let admin: SluiceClient;
let browser: Browser;

function providerConfig(redirectUri: string): Configuration {
  return {
    clients: [
      {
        client_id: 'sluice',
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'groups'],
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, preferred_username: id, groups: groups[id] ?? [] }),
    }),
    // Consent is granted at once: the tests sign in, they do not review scopes.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { provider, client, session } = ctx.oidc;
      const grant = new provider.Grant({
        clientId: client?.clientId ?? '',
        accountId: session?.accountId ?? '',
      });
      grant.addOIDCScope('openid profile groups');
      await grant.save();
      return grant;
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['sluice-e2e-cookie-key-0123456789'] },
  };
}

before(async () => {
  browser = await launchChromium();
  const [idpPort, port] = [await freeRestartablePort(), await freeRestartablePort()];
  idpUrl = `http://127.0.0.1:${idpPort}`;
  const url = `http://127.0.0.1:${port}`;
  const provider = new Provider(idpUrl, providerConfig(`${url}/auth/oidc/callback`));
  idp = provider.listen(idpPort, '127.0.0.1');
  const secretFile = join(dir.path, 'client-secret');
  await writeFile(secretFile, `${CLIENT_SECRET}\n`, { mode: 0o600 });
  database = await serverDatabase();
  server = await startServer(
    database.target,
    {
      SLUICE_BOOTSTRAP_TOKEN: TOKEN,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_PUBLIC_URL: url,
      SLUICE_OIDC_ISSUER: idpUrl,
      SLUICE_OIDC_CLIENT_ID: 'sluice',
      SLUICE_OIDC_CLIENT_SECRET_FILE: secretFile,
      SLUICE_OIDC_SCOPES: 'openid profile groups',
      SLUICE_OIDC_ROLES: "{admins: [platform], members: [dev], viewers: ['*']}",
      SLUICE_OIDC_NAME: 'Test IdP',
    },
    port,
  );
  admin = createClient({ baseUrl: server.url, token: TOKEN });
});

after(async () => {
  await browser?.close();
  if (server !== undefined) await kill(server, 'SIGTERM');
  await database?.close();
  idp?.close();
  idp?.closeAllConnections();
  await dir.cleanup();
});

/** Fills the provider's login form as `login` and waits to be back at Sluice. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL(`${idpUrl}/**`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any');
  await Promise.all([
    page.waitForURL((u) => !u.href.startsWith(idpUrl)),
    page.click('button[type=submit]'),
  ]);
}

/** The user of the browser's session, as `GET /api/v1/session` (cookie only) tells. */
async function sessionUser(page: Page): Promise<unknown> {
  const answer = await page.request.get(`${server.url}/api/v1/session`);
  assert.equal(answer.status(), 200, await answer.text());
  const { user } = (await answer.json()) as { user: { name: string; role: string } };
  return { name: user.name, role: user.role };
}

async function roleOf(name: string): Promise<string | undefined> {
  const { items } = await admin.call('listUsers');
  return items.find((u) => u.name === name)?.role;
}

async function auditOf(user: string) {
  const { items } = await admin.call('listAudit', { query: { user, limit: 50 } });
  return items;
}

test('the sign-in page learns of single sign-on from the providers route', async () => {
  const providers = await createClient({ baseUrl: server.url }).call('authProviders');
  assert.deepEqual(providers.oidc, {
    label: 'Sign in with Test IdP',
    startPath: '/auth/oidc/start',
  });
});

test('a user in platform signs in through the provider and is an admin; replays are refused', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  let callback = '';
  page.on('request', (r) => {
    if (r.url().includes('/auth/oidc/callback')) callback = r.url();
  });
  await page.goto(`${server.url}/auth/oidc/start?return=/projects`);
  await signInAtProvider(page, 'ada');
  assert.equal(new URL(page.url()).pathname, '/projects');
  assert.equal(await roleOf('ada'), 'admin');
  // The browser holds a session of hers (the cookie), as an admin.
  assert.deepEqual(await sessionUser(page), { name: 'ada', role: 'admin' });
  const [event] = await auditOf('ada');
  assert.equal(event?.action, 'signIn');
  assert.equal(event?.outcome, 'succeeded');
  assert.deepEqual(event?.details.groups, ['platform']);

  // Signed in, the browser goes from sluice auth login's link straight to its loopback with a
  // code that only the CLI's verifier redeems, once.
  const verifier = randomBytes(32).toString('base64url');
  const link = new URL('/auth/cli', server.url);
  link.searchParams.set('redirect_uri', 'http://127.0.0.1:9/callback');
  link.searchParams.set(
    'code_challenge',
    createHash('sha256').update(verifier).digest('base64url'),
  );
  link.searchParams.set('state', 'state-of-this-login-0123');
  const straight = await page.request.get(link.href, { maxRedirects: 0 });
  const loopback = new URL(straight.headers().location ?? '');
  assert.equal(`${loopback.origin}${loopback.pathname}`, 'http://127.0.0.1:9/callback');
  assert.equal(loopback.searchParams.get('state'), 'state-of-this-login-0123');
  const code = loopback.searchParams.get('code') ?? '';
  const anonymous = createClient({ baseUrl: server.url });
  const trade = (codeVerifier: string) =>
    anonymous.call('cliLoginToken', { body: { code, codeVerifier, name: 'laptop' } });
  const invalid = (err: unknown) =>
    isSluiceError(err) && err.code === 'SLUICE_AUTH_LOGIN_CODE_INVALID';
  await assert.rejects(trade(randomBytes(32).toString('base64url')), invalid);
  const straightCode = await page.request.get(link.href, { maxRedirects: 0 });
  const second = new URL(straightCode.headers().location ?? '').searchParams.get('code') ?? '';
  const made = await anonymous.call('cliLoginToken', {
    body: { code: second, codeVerifier: verifier, name: 'laptop' },
  });
  assert.equal(made.info.user, 'ada');
  assert.equal(made.info.scope, 'admin');
  await assert.rejects(
    anonymous.call('cliLoginToken', { body: { code: second, codeVerifier: verifier, name: 'x' } }),
    invalid,
  );

  // The flow was used once: its callback again is a page saying so, not a second sign-in.
  const replay = await page.goto(callback);
  assert.equal(replay?.status(), 400);
  assert.match(await page.innerText('body'), /unknown, expired or already used/);
  assert.match(await page.innerText('body'), /SLUICE_OIDC_FLOW_INVALID/);
  await context.close();
});

test('sluice auth login --no-browser stores a viewer token that reads a build and may change nothing', async () => {
  const config = join(dir.path, 'cli-config.yaml');
  const env = { ...process.env, SLUICE_CONFIG: config, SLUICE_SERVER: '', SLUICE_TOKEN: '' };
  const cli = spawn(
    process.execPath,
    [SLUICE_BIN, 'auth', 'login', server.url, '--no-browser', '--context', 'sso'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  cli.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const link = await new Promise<string>((resolve, reject) => {
    cli.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const match = /(http:\/\/\S+\/auth\/cli\?\S+)/.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    cli.once('exit', (code) => reject(new Error(`sluice auth login exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await signInAtProvider(page, 'vic');
  assert.match(await page.innerText('body'), /Signed in\. You may close this tab/);
  assert.equal(await exited, 0, stderr);
  assert.match(stdout, /Signed in to .* as vic \(scope read, expires 20\d\d-.*context\/sso in use/);
  await context.close();
  assert.equal(await roleOf('vic'), 'viewer');

  const status = await runSluice(['auth', 'status'], { env });
  assert.equal(status.code, 0, status.stderr);
  assert.match(
    status.stdout,
    /context\/sso .*signed in as vic \(viewer\); token tok_\S+, scope read/,
  );

  // What the viewer may and may not do, with the token the CLI stored.
  const ids = await createPipelines(admin, `sso${process.pid}`, { hello: PIPELINE });
  const pipelineId = ids.hello ?? '';
  const build = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const token = /token: (\S+)/.exec(await readConfig(config))?.[1] ?? '';
  const vic = createClient({ baseUrl: server.url, token });
  assert.equal((await vic.call('getBuild', { params: { buildId: build.id } })).id, build.id);
  // One at a time: a call made before its turn would reject with no one awaiting it.
  const refused = [
    () => vic.call('createBuild', { params: { pipelineId }, body: {} }),
    () => vic.call('cancelBuild', { params: { buildId: build.id } }),
    () => vic.call('approveBuild', { params: { buildId: build.id }, body: {} }),
    () => vic.call('updatePipeline', { params: { pipelineId }, body: { yaml: PIPELINE } }),
  ];
  for (const call of refused)
    await assert.rejects(
      call,
      (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_AUTH_ROLE_REQUIRED',
    );
  const login = (await auditOf('vic')).find((e) => e.action === 'cliLogin');
  assert.equal(login?.outcome, 'succeeded');

  const logout = await runSluice(['auth', 'logout'], { env });
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stdout, /token tok_\S+ revoked, context\/sso deleted/);
  await assert.rejects(
    vic.call('me'),
    (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_AUTH_INVALID_TOKEN',
  );
});

test('a group changed at the provider takes effect at the next sign-in', async () => {
  groups.vic = ['dev'];
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.url}/auth/oidc/start`);
  await signInAtProvider(page, 'vic');
  assert.equal(await roleOf('vic'), 'member');
  assert.deepEqual(await sessionUser(page), { name: 'vic', role: 'member' });
  const [event] = await auditOf('vic');
  assert.equal(event?.details.previousRole, 'viewer');
  assert.equal(event?.details.role, 'member');
  await context.close();
});

test('the provider stopped at sign-in gives a page naming the problem, not a 500', async () => {
  idp.close();
  idp.closeAllConnections();
  const page = await browser.newPage();
  const answer = await page.goto(`${server.url}/auth/oidc/start`);
  assert.equal(answer?.status(), 503);
  const text = await page.innerText('body');
  assert.match(text, new RegExp(`identity provider at ${idpUrl} did not answer`));
  assert.match(text, /Check that it is up/);
  assert.match(text, /SLUICE_OIDC_UNREACHABLE/);
  const { items } = await admin.call('listAudit', { query: { limit: 5 } });
  const failed = items.find((e) => e.action === 'signIn');
  assert.equal(failed?.outcome, 'failed');
  await page.close();
});

function readConfig(file: string): Promise<string> {
  return readFile(file, 'utf8');
}
