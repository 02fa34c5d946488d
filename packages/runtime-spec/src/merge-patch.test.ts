import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepMerge, mergePatch } from './merge-patch.js';

test('RFC 7386 appendix A examples', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of cases) {
    assert.deepEqual(mergePatch(target, patch), expected, JSON.stringify({ target, patch }));
  }
});

test('a runtime spec patch sets, deletes and merges nested fields', () => {
  const stored = {
    metadata: { name: 'ci' },
    runtimeScheduler: { image: 'engine:1', envVars: { A: '1', B: '2' } },
    dockerDaemonScheduler: { tolerations: [{ key: 'a', operator: 'Exists' }] },
  };
  const patched = mergePatch(stored, {
    runtimeScheduler: { image: 'engine:2', envVars: { B: null, C: '3' } },
    dockerDaemonScheduler: { tolerations: [] },
    description: 'patched',
  });
  assert.deepEqual(patched, {
    metadata: { name: 'ci' },
    runtimeScheduler: { image: 'engine:2', envVars: { A: '1', C: '3' } },
    dockerDaemonScheduler: { tolerations: [] },
    description: 'patched',
  });
  assert.deepEqual(stored.runtimeScheduler.envVars, { A: '1', B: '2' }, 'the input is unchanged');
});

test('a __proto__ key from JSON is data, not a prototype', () => {
  const patch: unknown = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const result = mergePatch({}, patch) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.deepEqual(Object.keys(result), ['__proto__', 'a']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('deepMerge merges maps, replaces lists and keeps what the child leaves out', () => {
  const parent = { a: { b: 1, c: [1, 2] }, d: 'x' };
  const child = { a: { c: [3] }, e: true };
  assert.deepEqual(deepMerge<Record<string, unknown>>(parent, child), {
    a: { b: 1, c: [3] },
    d: 'x',
    e: true,
  });
  assert.deepEqual(parent, { a: { b: 1, c: [1, 2] }, d: 'x' });
});
