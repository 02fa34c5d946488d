/**
 * `sluice auth login [URL]`, `auth status` and `auth logout`, as `gh auth login` does it: the
 * CLI listens on a free port of 127.0.0.1, prints the server's sign-in link (and opens the
 * browser unless `--no-browser`), the server signs the person in (single sign-on, or its
 * password page) and sends the browser back to the loopback with a one-time code bound to the
 * CLI's PKCE challenge; the CLI trades code and verifier for an API token (scope asked for, the
 * user's role by default; expiring) and stores it in a context. `logout` revokes that token.
 * @module
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { InputError, UnavailableError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { TokenScope } from '@sluice/protocol';
import { httpFetch } from '@sluice/protocol/node';
import {
  checkContextName,
  checkServerUrl,
  readContexts,
  writeContexts,
} from '../contexts/context-file.js';
import { parseDuration } from '../duration.js';
import type { Terminal } from '../ui/terminal.js';
import type { ContextFileOptions } from './auth.js';
import { serverClient } from './server-resources.js';
import type { ServerOptions } from './server-resources.js';

/** How long the CLI waits for the browser to come back. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface LoginOptions extends ContextFileOptions {
  /** The server; the current context's when absent. */
  url?: string;
  /** The context to store the token in: the current one for its server, else the host's name. */
  context?: string;
  noBrowser?: boolean;
  scope?: TokenScope;
  /** `30d`, `12h`…: how long the token lives (the server's default: 30 days). */
  expires?: string;
}

export async function login(term: Terminal, options: LoginOptions): Promise<number> {
  const contexts = readContexts(options.file);
  const current = contexts.contexts.find((c) => c.name === contexts.current);
  const url = checkServerUrl(options.url ?? current?.url ?? missingServer());
  const name = options.context ?? (current?.url === url ? current.name : contextNameOf(url));
  checkContextName(name);
  const expiresInSeconds =
    options.expires === undefined ? undefined : parseDuration(options.expires, '--expires');
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(24).toString('base64url');
  const loopback = await listenLoopback(state);
  try {
    const link = new URL('/auth/cli', url);
    link.searchParams.set('redirect_uri', loopback.redirectUri);
    link.searchParams.set(
      'code_challenge',
      createHash('sha256').update(verifier).digest('base64url'),
    );
    link.searchParams.set('state', state);
    term.err(`Open this link to sign in to ${url}:\n\n  ${link.href}\n`);
    if (!options.noBrowser) openBrowser(link.href);
    term.err(term.paint('dim', 'Waiting for the browser (Ctrl-C to stop)…'));
    const code = await loopback.code;
    const client = createClient({ baseUrl: url, fetch: httpFetch });
    const made = await client.call('cliLoginToken', {
      body: {
        code,
        codeVerifier: verifier,
        name: `sluice auth login on ${hostname()} at ${new Date().toISOString().slice(0, 16)}Z`,
        scope: options.scope,
        expiresInSeconds,
      },
    });
    const rest = contexts.contexts.filter((c) => c.name !== name);
    writeContexts(
      options.file,
      { current: name, contexts: [...rest, { name, url, token: made.token }] },
      options,
    );
    term.out(
      `Signed in to ${url} as ${made.info.user ?? '?'} (scope ${made.info.scope ?? '?'}, expires ${made.info.expiresAt ?? 'never'}); context/${name} in use`,
    );
    return 0;
  } finally {
    loopback.close();
  }
}

export async function authStatus(term: Terminal, target: ServerOptions): Promise<number> {
  const me = await serverClient(target).call('me');
  const where =
    target.source.context === undefined
      ? target.server
      : `context/${target.source.context} (${target.server})`;
  term.out(
    `${where}: signed in as ${me.user.name} (${me.user.role}); token ${me.token.id}, scope ${me.token.scope}`,
  );
  return 0;
}

/** Revokes the context's token at the server and forgets the context. */
export async function logout(
  term: Terminal,
  target: ServerOptions,
  options: ContextFileOptions,
): Promise<number> {
  const client = serverClient(target);
  const me = await client.call('me');
  await client.call('revokeCallerToken');
  const name = target.source.context;
  if (name !== undefined) {
    const contexts = readContexts(options.file);
    writeContexts(
      options.file,
      {
        current: contexts.current === name ? null : contexts.current,
        contexts: contexts.contexts.filter((c) => c.name !== name),
      },
      options,
    );
  }
  term.out(
    `Signed out of ${target.server}: token ${me.token.id} revoked${name === undefined ? '' : `, context/${name} deleted`}`,
  );
  return 0;
}

function missingServer(): never {
  throw new InputError('SLUICE_CLI_NO_SERVER', 'Which server? No URL given and no context in use', {
    hint: 'Name it: sluice auth login https://ci.example.com',
  });
}

/** A context name from a server URL: its host (and port), made a valid name. */
function contextNameOf(url: string): string {
  const host = new URL(url).host.replace(/[^\w.@-]+/g, '-');
  return host.replace(/^[^A-Za-z0-9]+/, '').slice(0, 63) || 'default';
}

interface Loopback {
  redirectUri: string;
  code: Promise<string>;
  close(): void;
}

/** Listens on 127.0.0.1 on a free port for the browser's one redirect with `state`. */
async function listenLoopback(state: string): Promise<Loopback> {
  let settle: { resolve(code: string): void; reject(err: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const got = url.searchParams.get('code');
    if (url.pathname !== '/callback' || got === null || url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('This is not the sign-in this sluice auth login is waiting for.\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><meta charset="utf-8"><title>Sluice</title><p>Signed in. You may close this tab and go back to the terminal.</p>',
    );
    settle?.resolve(got);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const timer = setTimeout(
    () =>
      settle?.reject(
        new UnavailableError(
          'SLUICE_CLI_LOGIN_TIMEOUT',
          'The browser did not come back within 5 minutes',
          {
            hint: 'Run sluice auth login again, and open the link it prints',
          },
        ),
      ),
    LOGIN_TIMEOUT_MS,
  );
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
      server.closeAllConnections();
    },
  };
}

/** Opens the link in the desktop's browser; a machine without one just has the printed link. */
function openBrowser(link: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [link], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // The link is printed; the person opens it.
  }
}
