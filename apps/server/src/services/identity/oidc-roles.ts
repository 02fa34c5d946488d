/**
 * Which role a single sign-on user gets: the groups the identity provider says they are in,
 * matched against the mapping of the configuration (`SLUICE_OIDC_ROLES`: docs/access.md). The
 * widest role any of their groups gives wins; `*` matches anyone the provider signs in; a user
 * matched by nothing gets no role and is refused. Pure: the parse reports every problem at once.
 * @module
 */
import type { Role } from '@sluice/protocol';
import { parse as parseYaml } from 'yaml';

/** The groups that make each role. */
export interface RoleMapping {
  admins: readonly string[];
  members: readonly string[];
  viewers: readonly string[];
}

const KEYS = ['admins', 'members', 'viewers'] as const;
const ROLE_OF: Record<(typeof KEYS)[number], Role> = {
  admins: 'admin',
  members: 'member',
  viewers: 'viewer',
};

export type RoleMappingParse = { ok: true; value: RoleMapping } | { ok: false; issues: string[] };

/** Parses the mapping's YAML or JSON text; `where` names it in problems (a variable or a file). */
export function parseRoleMapping(text: string, where: string): RoleMappingParse {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return { ok: false, issues: [`${where} is not YAML or JSON: ${(err as Error).message}`] };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return {
      ok: false,
      issues: [`${where} must be a map such as {admins: [platform], viewers: ['*']}`],
    };
  const issues: string[] = [];
  const mapping: Record<string, string[]> = { admins: [], members: [], viewers: [] };
  for (const [key, value] of Object.entries(doc)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      issues.push(`${where} has "${key}"; the keys are admins, members and viewers`);
      continue;
    }
    const list: unknown = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || !list.every((g) => typeof g === 'string' && g !== '')) {
      issues.push(`${where}.${key} must be a list of group names, e.g. [platform]`);
      continue;
    }
    mapping[key] = list as string[];
  }
  if (issues.length === 0 && KEYS.every((key) => mapping[key]?.length === 0))
    issues.push(`${where} names no group: nobody could sign in`);
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      admins: mapping.admins ?? [],
      members: mapping.members ?? [],
      viewers: mapping.viewers ?? [],
    },
  };
}

/** The widest role the user's groups give, or undefined when none matches. */
export function roleOfGroups(mapping: RoleMapping, groups: readonly string[]): Role | undefined {
  for (const key of KEYS) {
    const names = mapping[key];
    if (names.includes('*') || names.some((name) => groups.includes(name))) return ROLE_OF[key];
  }
  return undefined;
}

/** The groups of a claim's value: a list of names, or one name; anything else is none. */
export function groupsOfClaim(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}
