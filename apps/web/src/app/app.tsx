/**
 * The UI's root: sign-in until there is a token, then the page the address names.
 * @module
 */
import { useCallback, useState } from 'react';
import { ApiProvider } from '../api/api-context.js';
import { clearToken, loadToken, saveToken } from '../api/session.js';
import { BuildPage } from '../builds/build-page.js';
import { BuildsPage } from '../builds/builds-page.js';
import { Layout } from './layout.js';
import { matchPath, useLocation } from './router.js';
import { SignIn } from './sign-in.js';
import { routePage } from './pages.js';

export function App() {
  const [token, setToken] = useState(() => loadToken());
  const signOut = useCallback(() => {
    clearToken();
    setToken(null);
  }, []);
  const { path, search } = useLocation();
  if (token === null) {
    return (
      <SignIn
        onSignIn={(value, remember) => {
          saveToken(value, remember);
          setToken(value);
        }}
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
    <ApiProvider token={token} onSignOut={signOut}>
      <Layout path={path === '/' ? '/builds' : path}>{page}</Layout>
    </ApiProvider>
  );
}
