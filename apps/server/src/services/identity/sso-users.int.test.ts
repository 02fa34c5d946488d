import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { startTestServer } from '../../server-harness.test-support.js';
import { SignInFlows } from './sign-in-flows.js';
import { signInProviderUser } from './sso-users.js';

const databases = useTestDatabases();
const ISSUER = 'https://id.example.com';

databases.test(
  'single sign-on users: found by subject, role from each sign-in, grants kept, names not taken over',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const ctx = t.server.services.ctx;
      const first = await signInProviderUser(ctx, {
        issuer: ISSUER,
        subject: 'sub-1',
        claimedName: 'Dana',
        role: 'member',
      });
      assert.equal(first.name, 'dana');
      assert.equal(first.previousRole, undefined);
      await t.admin.call('updateUser', { params: { name: 'dana' }, body: { projects: ['web'] } });

      // The same subject under another name is the same user; a lower role keeps the grants.
      const again = await signInProviderUser(ctx, {
        issuer: ISSUER,
        subject: 'sub-1',
        claimedName: 'dana.renamed',
        role: 'viewer',
      });
      assert.equal(again.id, first.id);
      assert.equal(again.previousRole, 'member');
      const dana = (await t.admin.call('listUsers')).items.find((u) => u.name === 'dana');
      assert.equal(dana?.role, 'viewer');
      assert.deepEqual(dana?.projects, ['web']);

      // Another issuer's subject of the same name, or a local user's name, is not theirs.
      await assert.rejects(
        signInProviderUser(ctx, {
          issuer: 'https://other.example.com',
          subject: 'sub-1',
          claimedName: 'admin',
          role: 'admin',
        }),
        (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_OIDC_USER_NAME_TAKEN',
      );

      // The account's last admin stays one when the groups would demote them; with another
      // admin the demotion holds.
      const boss = { issuer: ISSUER, subject: 'sub-boss', claimedName: 'boss' };
      await signInProviderUser(ctx, { ...boss, role: 'admin' });
      await t.admin.call('deleteUser', { params: { name: 'admin' } });
      const kept = await signInProviderUser(ctx, { ...boss, role: 'viewer' });
      assert.deepEqual([kept.role, kept.keptLastAdmin], ['admin', true]);
      await signInProviderUser(ctx, {
        ...boss,
        subject: 'sub-deputy',
        claimedName: 'deputy',
        role: 'admin',
      });
      const demoted = await signInProviderUser(ctx, { ...boss, role: 'viewer' });
      assert.deepEqual([demoted.role, demoted.keptLastAdmin], ['viewer', undefined]);
    } finally {
      await t.close();
    }
  },
);

databases.test('a sign-in in flight is taken once, and not after it expired', async (database) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const t = await startTestServer(database, {}, { clock: () => now });
  try {
    const flows = new SignInFlows(t.server.services.ctx);
    const key = await flows.put('oidc', { state: 's' }, 60_000);
    assert.equal(await flows.take('cli-code', key), undefined, 'another kind');
    assert.deepEqual(await flows.take('oidc', key), { state: 's' });
    assert.equal(await flows.take('oidc', key), undefined, 'used once');
    const late = await flows.put('oidc', { state: 't' }, 60_000);
    now += 60_001;
    assert.equal(await flows.take('oidc', late), undefined, 'expired');
  } finally {
    await t.close();
  }
});
