/**
 * Who is calling: the bearer token resolved to a principal, and whether that principal may use
 * a route. A user token is for people and the CLI, and acts as its user's role narrowed by its
 * scope (docs/access.md); an agent token is for its own runtimes' tasks, an engine token for its
 * one build. Tokens are never logged: only their id.
 * @module
 */
import { AuthenticationError, NotAllowedError } from '@sluice/errors';
import { roleAtLeast } from '@sluice/protocol';
import type { Role, RouteScope, TokenScope } from '@sluice/protocol';

export interface Principal {
  kind: 'user' | 'agent' | 'engine';
  tokenId: string;
  accountId: string;
  userId: string | undefined;
  /** A user token's user, by name (what the audit log and refusals show). */
  userName: string | undefined;
  /** What a user token acts as: its user's role narrowed by the token's scope. */
  role: Role | undefined;
  /** A user token's user's own role, and the token's scope, for refusals that explain. */
  userRole: Role | undefined;
  tokenScope: TokenScope | undefined;
  /** The projects (by name) a user token may use; null: every project. */
  projects: readonly string[] | null;
  agentId: string | undefined;
  buildId: string | undefined;
  /** Signed in by the web UI's session cookie (then `tokenId` is the session's id), not a token. */
  session?: boolean;
}

/** Why a token the server knows was refused; unknown tokens carry nobody to blame. */
export type TokenRejection = 'revoked' | 'expired' | 'user-removed';

/** A token looked up: its principal, or why it is refused (and whose it was, when known). */
export type TokenLookup =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      reason: 'unknown';
    }
  | {
      ok: false;
      reason: TokenRejection;
      owner: { accountId: string; tokenId: string; userId: string | null; userName: string | null };
    };

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  // Codefresh agents send the raw token without a scheme; accept that too.
  return match ? match[1] : /^\S+$/.test(header.trim()) ? header.trim() : undefined;
}

/** The principal of a lookup, or the 401 of a token that is unknown, revoked or expired. */
export function principalOf(lookup: TokenLookup | undefined): Principal | undefined {
  if (lookup === undefined || lookup.ok) return lookup?.principal;
  throw new AuthenticationError(
    'SLUICE_AUTH_INVALID_TOKEN',
    lookup.reason === 'user-removed'
      ? "The token's user was removed"
      : 'The token is unknown, revoked or expired',
    { hint: 'Create a new token' },
  );
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
  const wanted = scope === 'agent' || scope === 'engine' ? scope : 'user';
  if (principal.kind !== wanted) {
    throw new NotAllowedError(
      'SLUICE_AUTH_WRONG_SCOPE',
      `A ${principal.kind} token cannot call ${describeScope(scope)} endpoints`,
    );
  }
  if (scope !== 'agent' && scope !== 'engine') requireRole(principal, scope);
}

/** Refuses a user token acting below `needed`, naming both roles (and the scope that narrowed). */
export function requireRole(principal: Principal, needed: Role, what = 'This'): void {
  const role = principal.role ?? 'viewer';
  if (roleAtLeast(role, needed)) return;
  const narrowed =
    principal.userRole !== undefined && principal.userRole !== role
      ? ` (user ${principal.userName ?? '?'} is ${article(principal.userRole)}; the token's scope is ${principal.tokenScope ?? '?'})`
      : '';
  throw new NotAllowedError(
    'SLUICE_AUTH_ROLE_REQUIRED',
    `${what} needs the ${needed} role; the caller acts as ${role}${narrowed}`,
    {
      details: {
        required: needed,
        role,
        userRole: principal.userRole,
        scope: principal.tokenScope,
      },
      hint:
        narrowed === ''
          ? 'Ask an administrator for the role (sluice get users lists who has which)'
          : `Use a token of a wider scope: sluice create token --scope ${needed === 'admin' ? 'admin' : 'run'}`,
    },
  );
}

/** Refuses a user limited to some projects acting on another. */
export function requireProject(principal: Principal, project: string): void {
  if (principal.projects === null || principal.projects.includes(project)) return;
  throw new NotAllowedError(
    'SLUICE_AUTH_PROJECT_NOT_GRANTED',
    `User ${principal.userName ?? '?'} may not use project "${project}"`,
    {
      details: { project, role: principal.role },
      hint: `Ask an administrator: sluice patch user ${principal.userName ?? 'NAME'} --project ${project}`,
    },
  );
}

function article(role: Role): string {
  return role === 'admin' ? 'an admin' : `a ${role}`;
}

function describeScope(scope: RouteScope): string {
  switch (scope) {
    case 'public':
    case 'viewer':
    case 'member':
    case 'admin':
      return '/api/v1';
    case 'agent':
      return 'agent (/api/agent/v1)';
    case 'engine':
      return 'engine (/api/engine/v1)';
  }
}
