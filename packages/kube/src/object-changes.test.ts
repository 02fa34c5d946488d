import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeChange, objectChanges } from './object-changes.js';

const live = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'sluice-agent',
    resourceVersion: '41',
    generation: 2,
    managedFields: [{ manager: 'sluice' }],
    labels: { 'app.kubernetes.io/name': 'sluice-agent' },
  },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'agent',
            image: 'sluice/engine:1.1',
            env: [{ name: 'HTTP_PROXY', value: 'http://old:3128' }],
          },
        ],
      },
    },
  },
  status: { readyReplicas: 1 },
};

test('the fields an apply changes, the server-kept ones and status left out', () => {
  const dryRun = structuredClone(live);
  dryRun.metadata.resourceVersion = '41';
  dryRun.metadata.generation = 3;
  dryRun.metadata.managedFields = [{ manager: 'other' }];
  dryRun.status.readyReplicas = 0;
  assert.deepEqual(objectChanges(live, dryRun), []);
  const container = dryRun.spec.template.spec.containers[0]!;
  container.image = 'sluice/engine:1';
  container.env = [{ name: 'HTTP_PROXY', value: 'http://new:3128' }];
  (dryRun.metadata.labels as Record<string, string>)['sluice.io/install'] = 'ci';
  assert.deepEqual(
    objectChanges(live, dryRun).map((c) => describeChange(c)),
    [
      'metadata.labels["sluice.io/install"]: (none) → ci',
      'spec.template.spec.containers[agent].env[HTTP_PROXY].value: http://old:3128 → http://new:3128',
      'spec.template.spec.containers[agent].image: sluice/engine:1.1 → sluice/engine:1',
    ],
  );
});

test('named lists by name: an item added or gone is one change', () => {
  const before = { kind: 'Pod', metadata: { name: 'p' }, env: [] as unknown[] };
  const after = { ...before, env: [{ name: 'NO_PROXY', value: 'svc' }] };
  assert.deepEqual(
    objectChanges(before, after).map((c) => describeChange(c)),
    ['env[NO_PROXY]: (none) → {"name":"NO_PROXY","value":"svc"}'],
  );
  assert.deepEqual(
    objectChanges(after, before).map((c) => describeChange(c)),
    ['env[NO_PROXY]: {"name":"NO_PROXY","value":"svc"} → (none)'],
  );
});

test("a list that grows is one change; a Secret's values are never shown", () => {
  const before = { kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' }, list: [1] };
  const after = { ...before, list: [1, 2] };
  assert.deepEqual(objectChanges(before, after), [{ path: 'list', before: [1], after: [1, 2] }]);
  const secret = { kind: 'Secret', metadata: { name: 's' }, data: { token: 'b2xk' } };
  const changed = { ...secret, data: { token: 'bmV3', extra: 'eA==' } };
  assert.deepEqual(
    objectChanges(secret, changed).map((c) => describeChange(c)),
    ['data.extra: (none) → (hidden)', 'data.token: (hidden) → (hidden)'],
  );
});
