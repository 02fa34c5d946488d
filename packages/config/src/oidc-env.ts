/**
 * The server's single sign-on settings (OpenID Connect, docs/access.md): the identity
 * provider, the client Sluice is registered as there, and which groups make which role. All
 * unset: no single sign-on. The rules between them are checked with the rest of the server's.
 * @module
 */
import { textVar, urlVar } from './variables.js';

export const OIDC_DEFAULTS = {
  scopes: 'openid profile email',
  groupsClaim: 'groups',
  name: 'single sign-on',
} as const;

export const oidcEnv = {
  SLUICE_OIDC_ISSUER: urlVar({
    description:
      "The identity provider's issuer URL (its `/.well-known/openid-configuration` is read from there); unset: no single sign-on",
  }),
  SLUICE_OIDC_CLIENT_ID: textVar({
    description: 'The client id Sluice is registered under at the identity provider',
  }),
  SLUICE_OIDC_CLIENT_SECRET: textVar({
    description:
      "The client's secret at the identity provider; unset with no `SLUICE_OIDC_CLIENT_SECRET_FILE`: a public client (PKCE only)",
    secret: true,
  }),
  SLUICE_OIDC_CLIENT_SECRET_FILE: textVar({
    description:
      "A file holding the client's secret (a mounted Kubernetes secret), instead of `SLUICE_OIDC_CLIENT_SECRET`",
  }),
  SLUICE_OIDC_SCOPES: textVar({
    description:
      'The scopes asked for, separated by spaces; add the one that makes the provider send groups when it needs one (Okta: `groups`)',
    default: OIDC_DEFAULTS.scopes,
  }),
  SLUICE_OIDC_GROUPS_CLAIM: textVar({
    description:
      "The claim of the ID token (or, when the token has none, of the userinfo answer) that lists the user's groups",
    default: OIDC_DEFAULTS.groupsClaim,
  }),
  SLUICE_OIDC_ROLES: textVar({
    description:
      "Which groups make which role, as YAML or JSON: `{admins: [platform], members: [dev], viewers: ['*']}`; `*` is anyone the provider signs in; a user in none is refused. Required with `SLUICE_OIDC_ISSUER` unless `SLUICE_OIDC_ROLES_FILE` is set",
  }),
  SLUICE_OIDC_ROLES_FILE: textVar({
    description: 'A YAML or JSON file of the same mapping, instead of `SLUICE_OIDC_ROLES`',
  }),
  SLUICE_OIDC_NAME: textVar({
    description: 'What the sign-in page\'s button calls the provider: "Sign in with …"',
    default: OIDC_DEFAULTS.name,
  }),
};

/** The rules between the single sign-on settings and the server's others. */
export function oidcRules(settings: {
  issuer: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  clientSecretFile: string | undefined;
  roles: string | undefined;
  rolesFile: string | undefined;
  publicUrl: string | undefined;
}): string[] {
  const problems: string[] = [];
  const s = settings;
  const others = [s.clientId, s.clientSecret, s.clientSecretFile, s.roles, s.rolesFile];
  if (s.issuer === undefined) {
    if (others.some((value) => value !== undefined))
      problems.push(
        'SLUICE_OIDC_* settings are given without SLUICE_OIDC_ISSUER: set the issuer URL to turn single sign-on on, or remove them',
      );
    return problems;
  }
  if (s.clientId === undefined)
    problems.push('SLUICE_OIDC_CLIENT_ID is required with SLUICE_OIDC_ISSUER');
  if (s.clientSecret !== undefined && s.clientSecretFile !== undefined)
    problems.push('Give SLUICE_OIDC_CLIENT_SECRET or SLUICE_OIDC_CLIENT_SECRET_FILE, not both');
  if (s.roles === undefined && s.rolesFile === undefined)
    problems.push(
      "SLUICE_OIDC_ROLES (or SLUICE_OIDC_ROLES_FILE) is required with SLUICE_OIDC_ISSUER, e.g. {admins: [platform], viewers: ['*']}",
    );
  if (s.roles !== undefined && s.rolesFile !== undefined)
    problems.push('Give SLUICE_OIDC_ROLES or SLUICE_OIDC_ROLES_FILE, not both');
  if (s.publicUrl === undefined)
    problems.push(
      'SLUICE_PUBLIC_URL is required with SLUICE_OIDC_ISSUER: the identity provider sends people back to SLUICE_PUBLIC_URL/auth/oidc/callback',
    );
  return problems;
}
