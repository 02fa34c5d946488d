/**
 * The single sign-on part of the server's configuration (docs/access.md): the variables of
 * `@sluice/config`'s `oidcEnv` made into one object, reading the client secret and the role
 * mapping from their files when given so. Problems are added to the server's list, so every
 * one is reported at once.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { ServerEnv } from '@sluice/config';
import { parseRoleMapping } from './services/identity/oidc-roles.js';
import type { RoleMapping } from './services/identity/oidc-roles.js';

export interface OidcConfig {
  /** The provider's issuer URL, as its discovery document names it. */
  issuer: string;
  clientId: string;
  /** Undefined: a public client (PKCE only). */
  clientSecret: string | undefined;
  /** SLUICE_PUBLIC_URL/auth/oidc/callback: where the provider sends people back. */
  redirectUri: string;
  /** The scopes asked for, space-separated. */
  scopes: string;
  groupsClaim: string;
  roles: RoleMapping;
  /** What the sign-in button calls the provider. */
  name: string;
}

export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';

/** The single sign-on settings, or undefined when SLUICE_OIDC_ISSUER is unset (or has problems). */
export function oidcConfigOf(
  v: ServerEnv,
  publicUrl: string | undefined,
  problems: string[],
): OidcConfig | undefined {
  if (v.SLUICE_OIDC_ISSUER === undefined) return undefined;
  const secret =
    v.SLUICE_OIDC_CLIENT_SECRET_FILE === undefined
      ? v.SLUICE_OIDC_CLIENT_SECRET
      : readSetting(v.SLUICE_OIDC_CLIENT_SECRET_FILE, 'SLUICE_OIDC_CLIENT_SECRET_FILE', problems);
  const rolesText =
    v.SLUICE_OIDC_ROLES_FILE === undefined
      ? v.SLUICE_OIDC_ROLES
      : readSetting(v.SLUICE_OIDC_ROLES_FILE, 'SLUICE_OIDC_ROLES_FILE', problems);
  const where =
    v.SLUICE_OIDC_ROLES_FILE === undefined ? 'SLUICE_OIDC_ROLES' : v.SLUICE_OIDC_ROLES_FILE;
  const roles = rolesText === undefined ? undefined : parseRoleMapping(rolesText, where);
  if (roles?.ok === false) problems.push(...roles.issues);
  if (v.SLUICE_OIDC_CLIENT_ID === undefined || publicUrl === undefined || roles?.ok !== true)
    return undefined;
  return {
    issuer: v.SLUICE_OIDC_ISSUER,
    clientId: v.SLUICE_OIDC_CLIENT_ID,
    clientSecret: secret,
    redirectUri: `${publicUrl}${OIDC_CALLBACK_PATH}`,
    scopes: v.SLUICE_OIDC_SCOPES,
    groupsClaim: v.SLUICE_OIDC_GROUPS_CLAIM,
    roles: roles.value,
    name: v.SLUICE_OIDC_NAME,
  };
}

/** A setting's file, trimmed; a problem naming the variable when it cannot be read. */
function readSetting(file: string, variable: string, problems: string[]): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    problems.push(`${variable} names ${file}, which cannot be read: ${(err as Error).message}`);
    return undefined;
  }
}
