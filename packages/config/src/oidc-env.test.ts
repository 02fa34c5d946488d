import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oidcRules } from './oidc-env.js';

const none = {
  issuer: undefined,
  clientId: undefined,
  clientSecret: undefined,
  clientSecretFile: undefined,
  roles: undefined,
  rolesFile: undefined,
  publicUrl: undefined,
};

test('single sign-on off needs nothing; on, it needs its client, roles and public URL', () => {
  assert.deepEqual(oidcRules(none), []);
  assert.match(oidcRules({ ...none, clientId: 'x' }).join('\n'), /without SLUICE_OIDC_ISSUER/);
  const problems = oidcRules({ ...none, issuer: 'https://id.example.com' });
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems.join('\n'), /SLUICE_OIDC_CLIENT_ID is required/);
  assert.match(problems.join('\n'), /SLUICE_OIDC_ROLES \(or SLUICE_OIDC_ROLES_FILE\) is required/);
  assert.match(problems.join('\n'), /SLUICE_PUBLIC_URL is required .*\/auth\/oidc\/callback/);
  const both = oidcRules({
    ...none,
    issuer: 'https://id.example.com',
    clientId: 'sluice',
    clientSecret: 's',
    clientSecretFile: '/f',
    roles: '{}',
    rolesFile: '/r',
    publicUrl: 'https://ci.example.com',
  });
  assert.deepEqual(both, [
    'Give SLUICE_OIDC_CLIENT_SECRET or SLUICE_OIDC_CLIENT_SECRET_FILE, not both',
    'Give SLUICE_OIDC_ROLES or SLUICE_OIDC_ROLES_FILE, not both',
  ]);
});
