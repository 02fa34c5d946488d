/**
 * Who may do what, as data: a user's role (`viewer` < `member` < `admin`), a user token's scope
 * (`read`, `run`, `admin`: the most of its user's rights it carries) and the role each route of
 * `/api/v1` asks for (its `scope` in the route table). Pure: the server enforces it, the CLI and
 * the web UI explain it (docs/access.md).
 * @module
 */

/** A user's roles, weakest first: each may do everything the one before it may. */
export const ROLES = ['viewer', 'member', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A user token's scopes, narrowest first: `read` acts as a viewer, `run` as a member at most. */
export const TOKEN_SCOPES = ['read', 'run', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

const SCOPE_ROLE: Record<TokenScope, Role> = { read: 'viewer', run: 'member', admin: 'admin' };
const ROLE_SCOPE: Record<Role, TokenScope> = { viewer: 'read', member: 'run', admin: 'admin' };

/** The role a token of `scope` acts as at most. */
export function roleOfScope(scope: TokenScope): Role {
  return SCOPE_ROLE[scope];
}

/** The widest scope a user of `role` has use for. */
export function scopeOfRole(role: Role): TokenScope {
  return ROLE_SCOPE[role];
}

/** Whether `role` may do what `needed` may. */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** What a token acts as: its user's role, narrowed by its scope, never widened. */
export function effectiveRole(role: Role, scope: TokenScope): Role {
  const ceiling = roleOfScope(scope);
  return roleAtLeast(role, ceiling) ? ceiling : role;
}
