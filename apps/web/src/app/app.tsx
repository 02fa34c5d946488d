/**
 * The UI's root: the session asked of the server at load; sign-in (saying why, when a session
 * ended) until there is one, then the page the address names.
 * @module
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionInfo } from '@sluice/protocol';
import { ApiProvider } from '../api/api-context.js';
import { loadSession, signOut as endSession } from '../api/session.js';
import { BuildPage } from '../builds/build-page.js';
import { BuildsPage } from '../builds/builds-page.js';
import { Layout } from './layout.js';
import { matchPath, useLocation } from './router.js';
import { SignIn } from './sign-in.js';
import { routePage } from './pages.js';

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out'; reason: string | null }
  | { kind: 'signed-in'; session: SessionInfo };

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    loadSession().then(
      (result) =>
        setState(
          result.ok
            ? { kind: 'signed-in', session: result.session }
            : { kind: 'signed-out', reason: result.reason },
        ),
      (err: unknown) =>
        setState({ kind: 'signed-out', reason: err instanceof Error ? err.message : null }),
    );
  }, []);
  const csrf = state.kind === 'signed-in' ? state.session.csrfToken : null;
  const signOut = useCallback(() => {
    void endSession(csrf)
      .catch(() => undefined)
      .then(() => setState({ kind: 'signed-out', reason: null }));
  }, [csrf]);
  // The first 401 says why (the session ended); requests still in flight then fail for want of
  // the cookie it cleared, and must not replace that reason with "no token was sent".
  const ended = useCallback(
    (reason: string) =>
      setState((prev) => (prev.kind === 'signed-out' ? prev : { kind: 'signed-out', reason })),
    [],
  );
  const { path, search } = useLocation();
  if (state.kind === 'loading') return <main className="sign-in" aria-busy="true" />;
  if (state.kind === 'signed-out') {
    return (
      <SignIn
        reason={state.reason}
        onSignIn={(session) => setState({ kind: 'signed-in', session })}
      />
    );
  }
  const build = matchPath('/builds/:buildId', path);
  const page = build ? (
    <BuildPage buildId={build.buildId ?? ''} />
  ) : path === '/' || path === '/builds' ? (
    <BuildsPage search={search} />
  ) : (
    routePage(path)
  );
  return (
    <ApiProvider session={state.session} onSignOut={signOut} onSessionEnded={ended}>
      <Layout path={path === '/' ? '/builds' : path}>{page}</Layout>
    </ApiProvider>
  );
}
