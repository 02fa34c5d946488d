import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HandoverMemory, holds, secretValues } from './warm-pool-memory.js';

const secret = (name: string, own: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  ...own,
});

test("a Secret's values: data decoded, stringData over data, none when it holds nothing", () => {
  const both = secret('s', {
    data: {
      a: Buffer.from('from data').toString('base64'),
      b: Buffer.from('x').toString('base64'),
    },
    stringData: { b: 'from stringData' },
  });
  assert.deepEqual(secretValues(both), { a: 'from data', b: 'from stringData' });
  assert.equal(secretValues(secret('s', {})), undefined);
  // What a malformed manifest carries that is not a string is not a value.
  assert.deepEqual(secretValues(secret('s', { stringData: { n: 1, ok: 'y' }, data: null })), {
    ok: 'y',
  });
});

test('the memory keeps Secrets by namespace and name, the newest 512, and nothing of other kinds', () => {
  const memory = new HandoverMemory();
  memory.noteSecret(secret('build-1', { stringData: { token: 't1' } }), 'builds');
  memory.noteSecret(
    {
      ...secret('elsewhere', { stringData: { k: 'v' } }),
      metadata: { name: 'elsewhere', namespace: 'other' },
    },
    'builds',
  );
  memory.noteSecret({ kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } }, 'builds');
  assert.deepEqual(memory.secret('builds', 'build-1'), { token: 't1' });
  assert.deepEqual(memory.secret('other', 'elsewhere'), { k: 'v' });
  assert.equal(memory.secret('builds', 'elsewhere'), undefined);
  assert.equal(memory.secret('builds', 'cm'), undefined);
  // A deleted Secret's values are not kept.
  memory.forgetSecret('other', 'elsewhere');
  assert.equal(memory.secret('other', 'elsewhere'), undefined);
  for (let i = 0; i < 512; i++) memory.noteValues('builds', `pod-${i}`, { key: String(i) });
  assert.equal(memory.secret('builds', 'build-1'), undefined, 'the oldest went first');
  assert.deepEqual(memory.secret('builds', 'pod-0'), { key: '0' });
  assert.deepEqual(memory.secret('builds', 'pod-511'), { key: '511' });
});

test('a pod is held by a build when taken and labelled with its id', () => {
  const state = { label: 'sluice.io/warm-pool', taken: 'taken' };
  const pod = (labels: Record<string, string>) => ({ metadata: { name: 'p', labels } });
  const taken = { 'sluice.io/warm-pool': 'taken', 'sluice.io/build-id': 'bld_1' };
  assert.equal(holds(pod(taken), 'bld_1', state), true);
  assert.equal(holds(pod(taken), 'bld_2', state), false);
  assert.equal(holds(pod({ ...taken, 'sluice.io/warm-pool': 'waiting' }), 'bld_1', state), false);
  assert.equal(holds({ metadata: { name: 'p' } }, 'bld_1', state), false);
});
