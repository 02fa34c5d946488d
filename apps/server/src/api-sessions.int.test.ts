import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { SessionInfo } from '@sluice/protocol';
import { ONE_KIND, startTestServer } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

const PASSWORD = 'correct horse battery staple';

/** A signed-in browser: its cookie header and CSRF token, and the Set-Cookie it was given. */
interface Browser {
  cookie: string;
  csrf: string;
  setCookie: string;
}

async function post(t: TestServer, path: string, body: unknown, headers = {}) {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function signIn(t: TestServer, user: string, password = PASSWORD): Promise<Browser> {
  const response = await post(t, '/api/auth/sign-in', { user, password });
  assert.equal(response.status, 200, await response.clone().text());
  const setCookie = response.headers.get('set-cookie') ?? '';
  const body = (await response.json()) as { csrfToken: string };
  return { cookie: setCookie.split(';')[0] ?? '', csrf: body.csrfToken, setCookie };
}

async function withCookie(t: TestServer, browser: Browser, path: string, init: RequestInit = {}) {
  const response = await fetch(`${t.url}${path}`, {
    ...init,
    headers: { cookie: browser.cookie, ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  const error =
    response.status >= 400
      ? (JSON.parse(text) as { error: { code: string; message: string } }).error
      : undefined;
  return { status: response.status, error, text, setCookie: response.headers.get('set-cookie') };
}

async function addUser(t: TestServer, name: string, role: 'viewer' | 'member' | 'admin') {
  await t.admin.call('createUser', { body: { name, role, password: PASSWORD } });
}

databases.test(
  'a password sign-in sets an HttpOnly, SameSite=Lax session cookie that authenticates the UI',
  async (database) => {
    const t = await startTestServer(database, { trustProxy: true });
    try {
      await addUser(t, 'alice', 'member');
      const browser = await signIn(t, 'alice');
      assert.match(browser.setCookie, /^sluice_session=slu_s_[\w-]+;/);
      assert.match(browser.setCookie, /; HttpOnly/);
      assert.match(browser.setCookie, /; SameSite=Lax/);
      assert.match(browser.setCookie, /; Path=\//);
      assert.match(browser.setCookie, /; Expires=/);
      // Plain http (a localhost install): no Secure, or the browser would never send it back.
      assert.doesNotMatch(browser.setCookie, /Secure/);
      // Behind a trusted proxy that received https: Secure.
      const viaProxy = await post(
        t,
        '/api/auth/sign-in',
        { user: 'alice', password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      );
      assert.match(viaProxy.headers.get('set-cookie') ?? '', /; Secure/);

      const session = await withCookie(t, browser, '/api/v1/session');
      assert.equal(session.status, 200, session.text);
      const info = JSON.parse(session.text) as SessionInfo;
      assert.deepEqual(info.user, { name: 'alice', role: 'member' });
      assert.equal(info.csrfToken, browser.csrf);
      // The stored session holds a hash, never the cookie's value.
      const value = browser.cookie.split('=')[1] ?? '';
      const rows = await database.db.selectFrom('sessions').selectAll().execute();
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((row) => row.id_hash !== value && !JSON.stringify(row).includes(value)));

      // A bearer token still works alone, with no CSRF token.
      await t.admin.call('createProject', { body: { name: 'by-token' } });
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a change made with the session cookie needs the CSRF token and the server’s own origin',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await addUser(t, 'alice', 'member');
      const browser = await signIn(t, 'alice');
      const create = (name: string, headers: Record<string, string>) =>
        withCookie(t, browser, '/api/v1/projects', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ name }),
        });
      // What a page of another site can make a browser send: the cookie, not the header.
      const crossSite = await create('evil', { origin: 'https://evil.example' });
      assert.equal(crossSite.status, 403, crossSite.text);
      assert.equal(crossSite.error?.code, 'SLUICE_AUTH_CSRF');
      const noToken = await create('evil', {});
      assert.equal(noToken.status, 403);
      assert.equal(noToken.error?.code, 'SLUICE_AUTH_CSRF');
      assert.match(noToken.error?.message ?? '', /x-sluice-csrf/);
      const wrongToken = await create('evil', { 'x-sluice-csrf': 'x'.repeat(43) });
      assert.equal(wrongToken.error?.code, 'SLUICE_AUTH_CSRF');
      // The token is right but the page is another site's.
      const otherOrigin = await create('evil', {
        'x-sluice-csrf': browser.csrf,
        origin: 'https://evil.example',
      });
      assert.equal(otherOrigin.error?.code, 'SLUICE_AUTH_CSRF');
      const ok = await create('web', { 'x-sluice-csrf': browser.csrf, origin: t.url });
      assert.equal(ok.status, 201, ok.text);
      const names = (await t.admin.call('listProjects')).items.map((p) => p.name);
      assert.deepEqual(names, ['web']);
      // Refusals of audited routes are in the log, with the session as the caller.
      const events = await t.admin.call('listAudit', { query: { user: 'alice' } });
      const denied = events.items.filter(
        (e) => e.action === 'createProject' && e.outcome === 'denied',
      );
      assert.equal(denied.length, 4);
      assert.match(denied[0]?.actor.tokenId ?? '', /^ses_/);
      // A sign-in posted from another site is refused too.
      const loginCsrf = await post(
        t,
        '/api/auth/sign-in',
        { user: 'alice', password: PASSWORD },
        { origin: 'https://evil.example' },
      );
      assert.equal(loginCsrf.status, 403);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a session ends when idle, at its time limit, at sign-out and when its user is removed; a lowered role holds at once',
  async (database) => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const t = await startTestServer(
      database,
      { sessionIdleMinutes: 30, sessionMaxHours: 2 },
      { clock: () => now },
    );
    try {
      await addUser(t, 'alice', 'admin');
      // Idle: 31 minutes unused.
      let browser = await signIn(t, 'alice');
      now += 31 * 60_000;
      let refused = await withCookie(t, browser, '/api/v1/session');
      assert.equal(refused.status, 401);
      assert.equal(refused.error?.code, 'SLUICE_AUTH_SESSION_ENDED');
      assert.match(refused.error?.message ?? '', /ended after 30 minutes without use/);
      assert.match(refused.setCookie ?? '', /^sluice_session=;.*Expires=Thu, 01 Jan 1970/);

      // Absolute: used every 20 minutes, still ends 2 hours after sign-in.
      browser = await signIn(t, 'alice');
      for (let i = 0; i < 5; i++) {
        now += 20 * 60_000;
        assert.equal((await withCookie(t, browser, '/api/v1/session')).status, 200);
      }
      now += 20 * 60_000;
      refused = await withCookie(t, browser, '/api/v1/session');
      assert.equal(refused.status, 401);
      assert.match(refused.error?.message ?? '', /reached its time limit/);

      // Sign-out needs the CSRF token, then the session is gone.
      browser = await signIn(t, 'alice');
      const noCsrf = await withCookie(t, browser, '/api/auth/sign-out', { method: 'POST' });
      assert.equal(noCsrf.status, 403);
      const out = await withCookie(t, browser, '/api/auth/sign-out', {
        method: 'POST',
        headers: { 'x-sluice-csrf': browser.csrf },
      });
      assert.equal(out.status, 204, out.text);
      assert.match(out.setCookie ?? '', /^sluice_session=;/);
      refused = await withCookie(t, browser, '/api/v1/session');
      assert.equal(refused.status, 401);
      assert.match(refused.error?.message ?? '', /session has ended/);

      // A lowered role holds at the next request; a removed user's sessions end.
      browser = await signIn(t, 'alice');
      await t.admin.call('updateUser', { params: { name: 'alice' }, body: { role: 'viewer' } });
      const users = await withCookie(t, browser, '/api/v1/users');
      assert.equal(users.status, 403);
      assert.equal(users.error?.code, 'SLUICE_AUTH_ROLE_REQUIRED');
      await t.admin.call('deleteUser', { params: { name: 'alice' } });
      refused = await withCookie(t, browser, '/api/v1/session');
      assert.equal(refused.status, 401);
      assert.equal(refused.error?.code, 'SLUICE_AUTH_SESSION_ENDED');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  '20 wrong passwords in a minute are slowed and logged; an unknown name costs the same scrypt work',
  async (database) => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const t = await startTestServer(database, { trustProxy: true }, { clock: () => now });
    try {
      await addUser(t, 'bob', 'viewer');
      const hasher = t.server.services.signIn.passwords;
      // The same work for a known name with a wrong password and a name nobody has.
      const before = hasher.work;
      assert.equal(
        (await post(t, '/api/auth/sign-in', { user: 'bob', password: 'guess-1' })).status,
        401,
      );
      const known = hasher.work;
      // From another address, so only bob's name and address count below.
      const unknown = await post(
        t,
        '/api/auth/sign-in',
        { user: 'nobody', password: 'guess-1' },
        { 'x-forwarded-for': '10.0.0.9' },
      );
      assert.equal(unknown.status, 401);
      assert.equal(
        ((await unknown.json()) as { error: { message: string } }).error.message,
        'Wrong user name or password',
      );
      const after = hasher.work;
      assert.equal(known.runs - before.runs, 1);
      assert.equal(after.runs - known.runs, 1);
      assert.equal(after.cost - known.cost, known.cost - before.cost);

      for (let i = 2; i <= 20; i++) {
        const response = await post(t, '/api/auth/sign-in', {
          user: 'bob',
          password: `guess-${i}`,
        });
        assert.equal(response.status, 401, `attempt ${i}`);
      }
      const runs = hasher.work.runs;
      // The 21st, even with the right password, waits: 429 with Retry-After, and no scrypt run.
      const slowed = await post(t, '/api/auth/sign-in', { user: 'bob', password: PASSWORD });
      assert.equal(slowed.status, 429);
      const retryAfter = Number(slowed.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 60, String(retryAfter));
      assert.equal(
        ((await slowed.json()) as { error: { code: string } }).error.code,
        'SLUICE_AUTH_SIGN_IN_THROTTLED',
      );
      assert.equal(hasher.work.runs, runs);
      // Each failure is in the audit log, the last as throttled.
      const events = (await t.admin.call('listAudit', { query: { limit: 100 } })).items.filter(
        (e) => e.action === 'signIn',
      );
      const bobs = events.filter((e) => e.details.user === 'bob');
      assert.equal(bobs.length, 21);
      assert.deepEqual(bobs[0]?.details, { user: 'bob', reason: 'throttled' });
      assert.equal(bobs[0]?.status, 429);
      assert.ok(bobs.every((e) => e.outcome === 'denied' && !JSON.stringify(e).includes('guess-')));
      // A minute later the name may try again.
      now += 61_000;
      await signIn(t, 'bob');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'an API token is exchanged for a session once, only with all its user’s rights',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const full = await t.admin.call('createToken', { body: { name: 'ui' } });
      const response = await post(t, '/api/auth/sign-in', { token: full.token });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { user: { name: string; role: string } };
      assert.deepEqual(body.user, { name: 'admin', role: 'admin' });
      assert.match(response.headers.get('set-cookie') ?? '', /^sluice_session=slu_s_/);
      const narrow = await t.admin.call('createToken', { body: { name: 'ro', scope: 'read' } });
      const refused = await post(t, '/api/auth/sign-in', { token: narrow.token });
      assert.equal(refused.status, 400);
      const unknown = await post(t, '/api/auth/sign-in', { token: 'slu_u_nope' });
      assert.equal(unknown.status, 401);
      const providers = await fetch(`${t.url}/api/auth/providers`);
      assert.deepEqual(await providers.json(), { password: true, oidc: null });
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
