/**
 * The API as the pages see it: the typed client of `@sluice/protocol` on this origin with the
 * signed-in token, reporting reachability to the connection banner and signing out on a 401.
 * @module
 */
import { createContext, useContext, useMemo } from 'react';
import type { ReactNode } from 'react';
import { createClient } from '@sluice/protocol';
import type { CallInput, CallOutput, RouteName } from '@sluice/protocol';
import { AuthenticationError, UnavailableError } from '@sluice/errors';
import { reportConnection } from './connection.js';

export interface Api {
  call<N extends RouteName>(name: N, input?: CallInput<N>): Promise<CallOutput<N>>;
  raw<N extends RouteName>(name: N, input?: CallInput<N>): Promise<Response>;
  token: string;
  signOut: () => void;
}

const ApiContext = createContext<Api | null>(null);

export interface ApiProviderProps {
  token: string;
  onSignOut: () => void;
  children: ReactNode;
}

export function ApiProvider({ token, onSignOut, children }: ApiProviderProps) {
  const api = useMemo(() => createApi(token, onSignOut), [token, onSignOut]);
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error('useApi outside ApiProvider');
  return api;
}

function createApi(token: string, signOut: () => void): Api {
  const client = createClient({ baseUrl: window.location.origin, token });
  async function watched<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      reportConnection(true);
      return result;
    } catch (err) {
      if (err instanceof UnavailableError) reportConnection(false);
      else reportConnection(true);
      if (err instanceof AuthenticationError) signOut();
      throw err;
    }
  }
  return {
    call: (name, input) => watched(() => client.call(name, input)),
    raw: (name, input) => watched(() => client.raw(name, input)),
    token,
    signOut,
  };
}
