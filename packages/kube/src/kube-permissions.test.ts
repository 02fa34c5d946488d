import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGENT_PERMISSIONS,
  findMissing,
  formatPermissions,
  grantedByRules,
} from './kube-permissions.js';

const podsDelete = { verb: 'delete', resource: 'pods' };

test('a rule grants a permission when its verb, group and resource each match or are *', () => {
  const exact = [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }];
  assert.equal(grantedByRules(exact, podsDelete), true);
  assert.equal(grantedByRules(exact, { verb: 'create', resource: 'pods' }), false);
  assert.equal(grantedByRules(exact, { verb: 'delete', resource: 'secrets' }), false);
  const wild = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
  assert.ok(AGENT_PERMISSIONS.every((need) => grantedByRules(wild, need)));
});

test('the group must match: pods of another group are not the core pods', () => {
  const apps = [{ verbs: ['*'], apiGroups: ['apps'], resources: ['pods'] }];
  assert.equal(grantedByRules(apps, podsDelete), false);
  const storage = { verb: 'get', resource: 'storageclasses', group: 'storage.k8s.io' };
  assert.equal(
    grantedByRules([{ verbs: ['get'], apiGroups: ['storage.k8s.io'], resources: ['*'] }], storage),
    true,
  );
  assert.equal(grantedByRules([{ verbs: ['get'], resources: ['*'] }], storage), false);
});

test('a rule limited to named objects, a subresource or an empty rule grants nothing', () => {
  const named = [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }];
  assert.equal(grantedByRules(named, podsDelete), false);
  assert.equal(
    grantedByRules([{ verbs: ['delete'], apiGroups: [''], resources: ['pods/log'] }], podsDelete),
    false,
  );
  assert.equal(grantedByRules([{}], podsDelete), false);
  assert.equal(grantedByRules([], podsDelete), false);
});

test('permissions are named as kubectl auth can-i names them', () => {
  assert.equal(
    formatPermissions([
      podsDelete,
      { verb: 'get', resource: 'storageclasses', group: 'storage.k8s.io' },
    ]),
    'delete pods, get storageclasses.storage.k8s.io',
  );
});

test('what the rules do not grant is asked one by one, and only that', async () => {
  const asked: string[] = [];
  const missing = await findMissing('ns', AGENT_PERMISSIONS, (review) => {
    asked.push(review.kind);
    if (review.kind === 'rules review') {
      const rules = [{ verbs: ['*'], apiGroups: [''], resources: ['pods', 'secrets'] }];
      return Promise.resolve({ status: { resourceRules: rules } });
    }
    // Another authorizer allows configmaps, which the rules did not show.
    return Promise.resolve({ status: { allowed: review.kind.includes('configmaps') } });
  });
  assert.equal(asked[0], 'rules review');
  assert.equal(
    asked.length,
    1 + AGENT_PERMISSIONS.filter((p) => !/^(pods|secrets)$/.test(p.resource)).length,
  );
  assert.equal(
    formatPermissions(missing),
    'create persistentvolumeclaims, delete persistentvolumeclaims, list persistentvolumeclaims, ' +
      'get persistentvolumeclaims, patch persistentvolumeclaims, create services, get services',
  );
});

test('cluster-wide needs (no namespace) are each asked: a rules review needs a namespace', async () => {
  const asked: string[] = [];
  const needs = [
    { verb: 'create', resource: 'namespaces' },
    { verb: 'create', resource: 'clusterroles', group: 'rbac.authorization.k8s.io' },
  ];
  const missing = await findMissing('', needs, (review) => {
    asked.push(review.kind);
    return Promise.resolve({ status: { allowed: review.kind.includes('namespaces') } });
  });
  assert.deepEqual(asked, [
    'access review (create namespaces)',
    'access review (create clusterroles.rbac.authorization.k8s.io)',
  ]);
  assert.deepEqual(missing, [needs[1]]);
});
