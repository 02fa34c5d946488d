import { expect, test } from 'vitest';
import { diffLines, mergePatch } from './spec-diff.js';

test('a line diff keeps common lines and marks the rest', () => {
  expect(diffLines('a\nb\nc', 'a\nx\nc\nd')).toEqual([
    { kind: 'same', text: 'a' },
    { kind: 'del', text: 'b' },
    { kind: 'add', text: 'x' },
    { kind: 'same', text: 'c' },
    { kind: 'add', text: 'd' },
  ]);
});

test('the merge patch nulls removed keys, recurses into objects and replaces arrays', () => {
  const from = { a: 1, b: { c: 2, d: 3 }, list: [1, 2], gone: 'x' };
  const to = { a: 1, b: { c: 5, d: 3 }, list: [1], added: true };
  expect(mergePatch(from, to)).toEqual({ gone: null, b: { c: 5 }, list: [1], added: true });
});
