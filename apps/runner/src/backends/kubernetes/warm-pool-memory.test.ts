import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HandoverMemory, holds, secretValues, SkippedObjects } from './warm-pool-memory.js';

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

test('taken pods are kept until their handover, the newest 256: a build that never came back is let go', () => {
  const memory = new HandoverMemory();
  const taken = (name: string) => ({ pod: { metadata: { name } }, labelled: Promise.resolve() });
  memory.noteTaken('bld_gone', taken('warm-pool-a'));
  memory.noteTaken('bld_1', taken('warm-pool-b'));
  assert.equal(memory.taken('bld_1')?.pod.metadata.name, 'warm-pool-b');
  memory.forgetTaken('bld_1');
  assert.equal(memory.taken('bld_1'), undefined, 'handed over: the API server says');
  for (let i = 0; i < 256; i++) memory.noteTaken(`bld_${String(i + 2)}`, taken(`p${String(i)}`));
  assert.equal(memory.taken('bld_gone'), undefined, 'the oldest went first');
  assert.equal(memory.taken('bld_2')?.pod.metadata.name, 'p0');
  assert.equal(memory.taken('bld_257')?.pod.metadata.name, 'p255');
});

test("a build's skipped objects are kept once each, in order, by kind, the newest 1,000 builds", () => {
  const skipped = new SkippedObjects();
  const claim = { kind: 'PersistentVolumeClaim', metadata: { name: 'build-1' } };
  const dind = { kind: 'Pod', metadata: { name: 'build-1-dind' } };
  skipped.keep('bld_1', claim);
  skipped.keep('bld_1', dind);
  skipped.keep('bld_1', { ...claim, spec: {} });
  assert.deepEqual(skipped.of('bld_1'), [claim, dind], 'a task that came again keeps one');
  assert.deepEqual(skipped.of('bld_1', 'Pod'), [dind]);
  assert.deepEqual(skipped.of('bld_2'), []);
  for (let i = 0; i < 1_000; i++) skipped.keep(`bld_x${String(i)}`, dind);
  assert.deepEqual(skipped.of('bld_1'), [], 'the oldest build went first');
  assert.deepEqual(skipped.of('bld_x0'), [dind]);
  skipped.forget('bld_x0');
  assert.deepEqual(skipped.of('bld_x0'), []);
});
