import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from './tokenizer.js';

test('splits operators greedily and keeps offsets', () => {
  const tokens = tokenize('a>=1&&!b').map((t) => [t.type, t.start, t.end]);
  assert.deepEqual(tokens, [
    ['identifier', 0, 1],
    ['punctuator', 1, 3],
    ['number', 3, 4],
    ['punctuator', 4, 6],
    ['punctuator', 6, 7],
    ['identifier', 7, 8],
    ['end', 8, 8],
  ]);
});

test('reads dotted names with dashes inside segments', () => {
  const [first] = tokenize('steps.build-image.result');
  assert.deepEqual(first, {
    type: 'identifier',
    path: ['steps', 'build-image', 'result'],
    start: 0,
    end: 24,
  });
});

test('decodes escapes in either quote style, raw newlines included', () => {
  const values = tokenize(`'a\\'b' "c\\"d" "x\ny" "\\z\\0"`).flatMap((t) =>
    t.type === 'string' ? [t.value] : [],
  );
  assert.deepEqual(values, ["a'b", 'c"d', 'x\ny', 'z\0']);
});

test('stops at the first lexical error with an invalid token', () => {
  const tokens = tokenize('1 + @ + "never reached');
  assert.deepEqual(tokens.at(-1), {
    type: 'invalid',
    message: 'Unexpected character "@"',
    start: 4,
    end: 4,
  });
  assert.equal(tokens.length, 3);
});

test('names a character outside the BMP whole', () => {
  const tokens = tokenize('😀');
  assert.deepEqual(tokens, [
    { type: 'invalid', message: 'Unexpected character "😀"', start: 0, end: 0 },
  ]);
});
