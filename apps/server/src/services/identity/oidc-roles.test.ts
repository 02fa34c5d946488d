import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupsOfClaim, parseRoleMapping, roleOfGroups } from './oidc-roles.js';
import { userNameOf } from './sso-users.js';

const mapping = { admins: ['platform'], members: ['dev'], viewers: [] };

test('the widest role any group gives wins; no match is no role', () => {
  assert.equal(roleOfGroups(mapping, ['dev', 'platform']), 'admin');
  assert.equal(roleOfGroups(mapping, ['dev']), 'member');
  assert.equal(roleOfGroups(mapping, ['marketing']), undefined);
  assert.equal(roleOfGroups(mapping, []), undefined);
  assert.equal(roleOfGroups({ ...mapping, viewers: ['*'] }, []), 'viewer');
});

test('the mapping parses from YAML or JSON and reports every problem, naming where', () => {
  const parsed = parseRoleMapping("{admins: [platform], viewers: '*'}", 'SLUICE_OIDC_ROLES');
  assert.deepEqual(parsed, {
    ok: true,
    value: { admins: ['platform'], members: [], viewers: ['*'] },
  });
  assert.deepEqual(parseRoleMapping('{"members": ["dev"]}', 'f.json').ok, true);
  const bad = parseRoleMapping('{admin: [x], members: 3}', 'SLUICE_OIDC_ROLES');
  assert.deepEqual(bad, {
    ok: false,
    issues: [
      'SLUICE_OIDC_ROLES has "admin"; the keys are admins, members and viewers',
      'SLUICE_OIDC_ROLES.members must be a list of group names, e.g. [platform]',
    ],
  });
  assert.deepEqual(parseRoleMapping('{}', '/etc/roles.yaml'), {
    ok: false,
    issues: ['/etc/roles.yaml names no group: nobody could sign in'],
  });
  assert.match(
    JSON.stringify(parseRoleMapping('[a', 'SLUICE_OIDC_ROLES')),
    /SLUICE_OIDC_ROLES is not YAML or JSON/,
  );
});

test("a claim's groups: a list, one name, or none", () => {
  assert.deepEqual(groupsOfClaim(['a', 2, 'b']), ['a', 'b']);
  assert.deepEqual(groupsOfClaim('a'), ['a']);
  assert.deepEqual(groupsOfClaim(undefined), []);
});

test("the provider's name becomes a valid user name, else one from the subject", () => {
  assert.equal(
    userNameOf({ claimedName: 'Ada.Lovelace@Example.com', subject: 's' }),
    'ada.lovelace@example.com',
  );
  assert.equal(userNameOf({ claimedName: ' Vic Jones ', subject: 's' }), 'vic-jones');
  assert.match(userNameOf({ claimedName: '—', subject: 'abc' }), /^sso-[0-9a-f]{12}$/);
});
