import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROLES, TOKEN_SCOPES, effectiveRole, roleAtLeast, roleOfScope } from './access.js';

test('a token acts as its user narrowed by its scope, never more', () => {
  for (const role of ROLES)
    for (const scope of TOKEN_SCOPES) {
      const acts = effectiveRole(role, scope);
      assert.ok(roleAtLeast(role, acts), `${role} with ${scope} acts as ${acts}`);
      assert.ok(roleAtLeast(roleOfScope(scope), acts), `${role} with ${scope} acts as ${acts}`);
    }
  assert.equal(effectiveRole('admin', 'read'), 'viewer');
  assert.equal(effectiveRole('admin', 'run'), 'member');
  assert.equal(effectiveRole('viewer', 'admin'), 'viewer');
  assert.equal(effectiveRole('member', 'admin'), 'member');
});

test('roles are ordered viewer < member < admin', () => {
  assert.ok(roleAtLeast('admin', 'member') && roleAtLeast('member', 'viewer'));
  assert.ok(!roleAtLeast('viewer', 'member') && !roleAtLeast('member', 'admin'));
});
