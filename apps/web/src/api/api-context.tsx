/**
 * The API as the pages see it: the typed client of `@sluice/protocol` on this origin, signed in
 * by the session cookie the browser sends by itself, with the session's CSRF token on every
 * call; reporting reachability to the connection banner and back to sign-in on a 401.
 * @module
 */
import { createContext, useContext, useMemo } from 'react';
import type { ReactNode } from 'react';
import { createClient } from '@sluice/protocol';
import type { CallInput, CallOutput, RouteName, SessionInfo } from '@sluice/protocol';
import { AuthenticationError, UnavailableError } from '@sluice/errors';
import { reportConnection } from './connection.js';
import { CSRF_HEADER } from './session.js';

export interface Api {
  call<N extends RouteName>(name: N, input?: CallInput<N>): Promise<CallOutput<N>>;
  raw<N extends RouteName>(name: N, input?: CallInput<N>): Promise<Response>;
  session: SessionInfo;
  signOut: () => void;
}

const ApiContext = createContext<Api | null>(null);

export interface ApiProviderProps {
  session: SessionInfo;
  onSignOut: () => void;
  /** The server refused the session (ended, expired): back to sign-in, saying why. */
  onSessionEnded: (reason: string) => void;
  children: ReactNode;
}

export function ApiProvider({ session, onSignOut, onSessionEnded, children }: ApiProviderProps) {
  const api = useMemo(
    () => createApi(session, onSignOut, onSessionEnded),
    [session, onSignOut, onSessionEnded],
  );
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error('useApi outside ApiProvider');
  return api;
}

function createApi(
  session: SessionInfo,
  signOut: () => void,
  ended: (reason: string) => void,
): Api {
  const client = createClient({
    baseUrl: window.location.origin,
    headers: session.csrfToken === null ? {} : { [CSRF_HEADER]: session.csrfToken },
  });
  async function watched<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      reportConnection(true);
      return result;
    } catch (err) {
      if (err instanceof UnavailableError) reportConnection(false);
      else reportConnection(true);
      if (err instanceof AuthenticationError) ended(err.message);
      throw err;
    }
  }
  return {
    call: (name, input) => watched(() => client.call(name, input)),
    raw: (name, input) => watched(() => client.raw(name, input)),
    session,
    signOut,
  };
}
