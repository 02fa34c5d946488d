/**
 * Sign in with a user name and password (docs/access.md), with single sign-on when the server
 * offers it (`GET /api/auth/providers`), or, for automation, with an API token exchanged once
 * for a session. Either way the browser then holds only an HttpOnly session cookie. A session
 * that ended (idle, expired, signed out elsewhere) says why above the form.
 * @module
 */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import type { AuthProviders, SessionInfo } from '@sluice/protocol';
import { loadProviders, signInWithPassword, signInWithToken } from '../api/session.js';
import { ErrorNote } from './error-note.js';

export interface SignInProps {
  /** Why the last session ended, when it did. */
  reason: string | null;
  onSignIn: (session: SessionInfo) => void;
}

export function SignIn({ reason, onSignIn }: SignInProps) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState<AuthProviders | undefined>();
  useEffect(() => {
    loadProviders().then(setProviders, () => undefined);
  }, []);

  const run = async (event: FormEvent, signIn: () => Promise<SessionInfo>) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignIn(await signIn());
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form
        onSubmit={(e) => void run(e, () => signInWithPassword(user.trim(), password))}
        aria-label="Sign in"
      >
        <h1>Sluice</h1>
        {reason === null ? null : (
          <p className="note" role="status">
            {reason}. Sign in again.
          </p>
        )}
        <label htmlFor="user">User name</label>
        <input
          id="user"
          autoComplete="username"
          value={user}
          onChange={(e) => setUser(e.target.value)}
          required
          autoFocus
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <button
          type="submit"
          className="primary"
          disabled={busy || user.trim() === '' || password === ''}
        >
          Sign in
        </button>
        {providers?.oidc ? (
          <a className="button" href={providers.oidc.startPath}>
            {providers.oidc.label}
          </a>
        ) : null}
        {error ? <ErrorNote error={error} /> : null}
      </form>
      <details className="token-sign-in">
        <summary>Use an API token instead</summary>
        <form
          onSubmit={(e) => void run(e, () => signInWithToken(token.trim()))}
          aria-label="Sign in with an API token"
        >
          <label htmlFor="token">API token</label>
          <input
            id="token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            required
          />
          <button type="submit" disabled={busy || token.trim() === ''}>
            Sign in with the token
          </button>
          <p className="muted small">
            The admin token is printed by <code>sluice up</code> on its first start. It is exchanged
            for a session once and not kept by the browser.
          </p>
        </form>
      </details>
    </main>
  );
}
