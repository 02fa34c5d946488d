/**
 * Typed client for the three APIs, generated from the route table: `client.call('createProject',
 * { body: { name: 'web' } })` is checked against the contract at compile time, and every error
 * response becomes a Sluice error of the matching category with the server's code.
 * @module
 */
import type { z } from 'zod';
import {
  AuthenticationError,
  ConflictError,
  InputError,
  InternalError,
  NotAllowedError,
  NotFoundError,
  UnavailableError,
} from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';
import { fillPath, paramText } from './route.js';
import { routes } from './routes.js';
import type { RouteName, Routes } from './routes.js';
import type { ErrorBody } from './schemas/common.js';

export interface CallInput<N extends RouteName> {
  params?: z.input<Routes[N]['params']>;
  query?: z.input<Routes[N]['query']>;
  body?: z.input<Routes[N]['body']>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export type CallOutput<N extends RouteName> = z.output<Routes[N]['response']>;

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  /** Sent with every call (the web UI's CSRF token, for a session cookie). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export interface SluiceClient {
  call<N extends RouteName>(name: N, input?: CallInput<N>): Promise<CallOutput<N>>;
  /** For streaming routes (SSE, text): the raw Response, after the status was checked. */
  raw<N extends RouteName>(name: N, input?: CallInput<N>): Promise<Response>;
  withToken(token: string): SluiceClient;
}

export function createClient(options: ClientOptions): SluiceClient {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function send<N extends RouteName>(name: N, input: CallInput<N>): Promise<Response> {
    const def = routes[name];
    const url = new URL(base + fillPath(def.path, input.params ?? {}));
    for (const [key, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) url.searchParams.set(key, paramText(value));
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...options.headers,
      ...input.headers,
    };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const hasBody = def.method !== 'GET' && def.method !== 'DELETE';
    if (hasBody) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(url, {
        method: def.method,
        headers,
        body: hasBody ? JSON.stringify(input.body ?? {}) : undefined,
        signal: input.signal,
      });
    } catch (err) {
      if (input.signal?.aborted) throw err;
      throw new UnavailableError(
        'SLUICE_API_UNREACHABLE',
        `Cannot reach the Sluice server at ${base}`,
        { cause: err, hint: 'Check the server URL and that the server is running' },
      );
    }
    if (!response.ok) throw await toError(response, `${def.method} ${def.path}`);
    return response;
  }

  return {
    async call(name, input = {}) {
      const response = await send(name, input);
      if (response.status === 204) return null as CallOutput<typeof name>;
      return (await response.json()) as CallOutput<typeof name>;
    },
    raw: (name, input = {}) => send(name, input),
    withToken: (token) => createClient({ ...options, token }),
  };
}

async function toError(response: Response, what: string): Promise<SluiceError> {
  let body: Partial<ErrorBody> = {};
  try {
    body = (await response.json()) as Partial<ErrorBody>;
  } catch {
    // Not JSON: fall back to the status line.
  }
  const code = body.error?.code ?? `SLUICE_HTTP_${response.status}`;
  const message =
    body.error?.message ?? `${what} answered ${response.status} ${response.statusText}`;
  const options = {
    details: {
      status: response.status,
      ...(body.error?.details === undefined ? {} : { details: body.error.details }),
      ...(body.error?.requestId === undefined ? {} : { requestId: body.error.requestId }),
    },
    hint: body.error?.hint,
  };
  switch (response.status) {
    case 400:
    case 413: // A body over a limit: what was sent must change, as for 400.
    case 422:
      return new InputError(code, message, options);
    case 401:
      return new AuthenticationError(code, message, options);
    case 403:
      return new NotAllowedError(code, message, options);
    case 404:
      return new NotFoundError(code, message, options);
    case 409:
      return new ConflictError(code, message, options);
    case 408: // The body did not arrive in time: a slow or broken network, worth another try.
    case 429: // Too many at once (sign-ins, webhook bodies): worth another try later.
    case 502:
    case 503:
    case 504:
      return new UnavailableError(code, message, options);
    default:
      return new InternalError(code, message, options);
  }
}
