/**
 * Who is calling: the bearer token resolved to a principal, and whether that principal may use
 * a route. A user token is for people and the CLI, an agent token for its own runtimes' tasks,
 * an engine token for its one build. Tokens are never logged: only their id.
 * @module
 */
import { AuthenticationError, NotAllowedError } from '@sluice/errors';
import type { RouteScope } from '@sluice/protocol';

export interface Principal {
  kind: 'user' | 'agent' | 'engine';
  tokenId: string;
  accountId: string;
  userId: string | undefined;
  isAdmin: boolean;
  agentId: string | undefined;
  buildId: string | undefined;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  // Codefresh agents send the raw token without a scheme; accept that too.
  return match ? match[1] : /^\S+$/.test(header.trim()) ? header.trim() : undefined;
}

export function requireScope(
  principal: Principal | undefined,
  scope: RouteScope,
): asserts principal is Principal {
  if (scope === 'public') return;
  if (principal === undefined) {
    throw new AuthenticationError('SLUICE_AUTH_REQUIRED', 'This endpoint needs a token', {
      hint: 'Send Authorization: Bearer <token>',
    });
  }
  const wanted = scope === 'admin' ? 'user' : scope;
  if (principal.kind !== wanted) {
    throw new NotAllowedError(
      'SLUICE_AUTH_WRONG_SCOPE',
      `A ${principal.kind} token cannot call ${describeScope(scope)} endpoints`,
    );
  }
  if (scope === 'admin' && !principal.isAdmin) {
    throw new NotAllowedError('SLUICE_AUTH_ADMIN_ONLY', 'Only an administrator can do this');
  }
}

function describeScope(scope: RouteScope): string {
  switch (scope) {
    case 'public':
    case 'user':
    case 'admin':
      return '/api/v1';
    case 'agent':
      return 'agent (/api/agent/v1)';
    case 'engine':
      return 'engine (/api/engine/v1)';
  }
}
