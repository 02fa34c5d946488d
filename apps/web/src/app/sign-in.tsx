/**
 * Sign in with a token (the admin token `sluice up` prints, or one from `sluice create token`):
 * checked against `GET /api/v1/me` before it is kept.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { createClient } from '@sluice/protocol';
import { ErrorNote } from './error-note.js';

export function SignIn({ onSignIn }: { onSignIn: (token: string, remember: boolean) => void }) {
  const [token, setToken] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const value = token.trim();
      await createClient({ baseUrl: window.location.origin, token: value }).call('me');
      onSignIn(value, remember);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <h1>Sluice</h1>
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          required
          autoFocus
        />
        <label className="check">
          <input
            type="checkbox"
            checked={remember}
            onChange={(e) => setRemember(e.target.checked)}
          />{' '}
          Remember on this browser
        </label>
        <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error ? <ErrorNote error={error} /> : null}
        <p className="muted small">
          The admin token is printed by <code>sluice up</code> on its first start.
        </p>
      </form>
    </main>
  );
}
